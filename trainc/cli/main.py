"""The ``trainc`` command group and the one error boundary of the program.

Exit codes, the contract CI scripts rely on: 0 clean (warnings allowed), 1 the input has
errors, 2 usage errors and internal errors (a traceback only with ``--debug``). An
operating-system error (a path that cannot be read or written, a full disk) is a usage
error of every command: one line naming the path and the system's reason.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING

import click

from trainc import __version__
from trainc.diagnostics import closest
from trainc.errors import CompilerBug, UsageError, describe_os_error

if TYPE_CHECKING:
    from trainc.cli.refresh import Refresh

EXIT_USAGE = 2
#: The generate command of deploy/argocd/plugin.yaml, less the program's name: answered
#: from the cache before any command is imported (:mod:`trainc.cli.refresh`).
GENERATE = ("compile", "-o", "-")

#: Each subcommand's module and attribute. A module is imported when its command is
#: first looked up, so ``trainc validate`` (the pre-commit hook) loads neither the
#: compiler and emitter nor the sweeper's Kubernetes client.
_COMMANDS = {
    "cache": ("trainc.cli.cache", "cache_command"),
    "cluster": ("trainc.cli.cluster_pull", "cluster_group"),
    "compile": ("trainc.cli.compile", "compile_command"),
    "diff": ("trainc.cli.diff", "diff_command"),
    "explain": ("trainc.cli.explain", "explain_command"),
    "init": ("trainc.cli.init", "init_command"),
    "migrate": ("trainc.cli.migrate", "migrate_command"),
    "prune": ("trainc.cli.prune", "prune_command"),
    "schemas": ("trainc.cli.schemas", "schemas_command"),
    "server": ("trainc.cli.server", "server_group"),
    "sweep": ("trainc.cli.sweep", "sweep_command"),
    "validate": ("trainc.cli.validate", "validate_command"),
}


class _LazyCommands(MutableMapping[str, click.Command]):
    """The group's subcommands by name, each imported on first access (see _COMMANDS)."""

    def __init__(self, targets: dict[str, tuple[str, str]]) -> None:
        self._targets = dict(targets)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, attribute = self._targets[name]
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{module}.{attribute} is not a click command")
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._targets.pop(name, None)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._targets and name not in self._loaded:
            raise KeyError(name)
        self._targets.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._targets, *self._loaded}))

    def __len__(self) -> int:
        return len({*self._targets, *self._loaded})


class _Group(click.Group):
    """A command group that suggests the closest command for a typo."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            match = closest(name, self.list_commands(ctx))
            suggestion = f" Did you mean {match!r}?" if match is not None else ""
            raise click.UsageError(f"No such command {name!r}.{suggestion}", ctx)
        return super().resolve_command(ctx, args)


@click.group(
    cls=_Group,
    commands=_LazyCommands(_COMMANDS),
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Exit codes: 0 clean (warnings allowed), 1 errors in the input, "
    "2 usage or internal error.",
)
@click.version_option(__version__, "-V", "--version", prog_name="trainc")
@click.option("--debug", is_flag=True, help="Show a traceback for internal errors.")
def cli(*, debug: bool) -> None:
    """Validate and compile Kubeflow Trainer TrainJobs for GitOps, offline.

    trainc reads TrainJob, TrainingRuntime and ClusterTrainingRuntime YAML from a
    repository and checks them as the Kubernetes API server and the Trainer admission
    webhooks would, without a cluster or network access. In the cluster, `trainc sweep`
    enforces the deadlines and TTLs of what was compiled, as the Trainer controller would.

    \b
    Examples:
      trainc validate                     # the whole repository
      trainc validate jobs/llama.yaml     # one file
      trainc validate --format github     # annotations in GitHub Actions
      trainc compile -o rendered/         # manifests, one file per TrainJob
      trainc diff --base origin/main      # what a change does to the cluster
      trainc migrate --write              # old API spellings rewritten
      trainc sweep -n ml-team --once      # in the cluster: deadlines, TTL, garbage
    """
    del debug  # main() reads it from the command line, to show a traceback


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script; never lets an exception escape as a traceback.

    Argo CD's ``generate`` of a repository whose answer is kept is answered here, before
    any command is imported (:mod:`trainc.cli.refresh`).
    """
    args = argv if argv is not None else sys.argv[1:]
    debug = "--debug" in args
    code: object
    try:
        refresh = _refresh(args) if tuple(args) == GENERATE else None
        answer = refresh.answer() if refresh is not None else None
        if answer is not None:
            sys.stdout.buffer.write(answer.stream)
            sys.stdout.buffer.flush()
            sys.stderr.write(answer.said)
            code = 0
        else:
            code = cli.main(args=argv, prog_name="trainc", standalone_mode=False, obj=refresh)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        code = EXIT_USAGE
    except click.ClickException as error:
        error.show()
        code = EXIT_USAGE
    except UsageError as error:
        click.echo(f"trainc: error: {error}", err=True)
        code = EXIT_USAGE
    except OSError as error:
        click.echo(f"trainc: error: {describe_os_error(error)}", err=True)
        code = EXIT_USAGE
    except CompilerBug as error:
        click.echo(f"trainc: internal error (this is a bug in trainc): {error}", err=True)
        if debug:
            _print_traceback()
        code = EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - the program's one error boundary
        click.echo(f"trainc: internal error: {type(error).__name__}: {error}", err=True)
        if debug:
            _print_traceback()
        else:
            click.echo("Run again with --debug for a traceback, and report it.", err=True)
        code = EXIT_USAGE
    sys.exit(code if isinstance(code, int) else 0)


def _refresh(args: Sequence[str]) -> Refresh | None:
    """Argo CD's ``generate`` with a cache: click's context object, for the command to
    keep its answer."""
    from trainc.cli.refresh import begin_refresh  # noqa: PLC0415 - see GENERATE

    return begin_refresh(args, os.environ, sys.stderr)


def _print_traceback() -> None:
    """The traceback of the error being handled (``--debug``); imported only then."""
    import traceback  # noqa: PLC0415 - an internal error is rare; a start is not

    traceback.print_exc()
