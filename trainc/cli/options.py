"""Options shared by the commands that report diagnostics (validate, compile)."""

from __future__ import annotations

import functools
import io
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import click

from trainc.app import ValidationReport, cache_max_size
from trainc.app.options import ConfigChoices
from trainc.argocd import argocd_overrides
from trainc.cache.budget import bounded
from trainc.cache.location import NO_CACHE_VARIABLE, cache_root
from trainc.cache.store import Store
from trainc.config.settings import Overrides, path_from_git_top
from trainc.diagnostics import Diagnostic, counted
from trainc.errors import os_errors_as_usage
from trainc.records import dataclass
from trainc.report.base import REPORTERS, ReporterOptions, ReportInput, make_reporter


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportOptions:
    """The parsed shared options: which config and environment, and how to report.

    ``overrides`` are the choices of the Argo CD Application when trainc runs as its
    plugin (read from the process environment), and empty otherwise.
    """

    output_format: str
    config_file: Path | None
    environment: str | None
    overrides: Overrides
    verbose: bool
    quiet: bool
    color: bool | None

    @property
    def repository(self) -> ConfigChoices:
        """How to read the repository's trainc.yaml, as :class:`~trainc.app.RunOptions` takes it."""
        return ConfigChoices(
            config_file=self.config_file, environment=self.environment, overrides=self.overrides
        )

    def write(
        self,
        run: ValidationReport,
        diagnostics: Sequence[Diagnostic],
        stream: TextIO,
        *,
        version: str,
    ) -> None:
        """Render ``diagnostics`` (errors only, and no all-clear, with ``-q``) to ``stream``.

        The machine formats name files from the top of the git checkout, the text format
        as the findings do, from the repository root (:class:`ReportInput`).

        A character the stream's encoding (the locale's, or ``PYTHONIOENCODING``) cannot
        carry, such as a file name's ``ü`` under an ASCII locale or the lone surrogate of
        a name that is not UTF-8, is written as a backslash escape rather than failing.
        """
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
        shown = tuple(d for d in diagnostics if d.is_error) if self.quiet else tuple(diagnostics)
        reporter = make_reporter(
            self.output_format,
            ReporterOptions(verbose=self.verbose, color=self.color, quiet=self.quiet),
        )
        report = ReportInput(
            diagnostics=shown,
            sources=run.sources,
            files_checked=run.files,
            objects_checked=run.objects,
            policy_files_checked=run.policy_files,
            version=version,
            root_from_top=path_from_git_top(run.root) if run.root is not None else "",
            root=run.root,
        )
        with os_errors_as_usage("write to", getattr(stream, "name", "the report stream")):
            reporter.write(report, stream)
            stream.flush()


#: The path that names the standard input, as in ``kustomize build DIR | trainc validate -``.
STDIN_PATH = "-"


@dataclass(frozen=True, slots=True)
class Inputs:
    """The PATHS argument: files and directories, and the standard input if ``-`` is one."""

    paths: list[Path]
    stdin: BinaryIO | None


def split_inputs(given: Sequence[Path]) -> Inputs:
    """Split ``-`` (named once or more, read once) from the paths; ``./-`` is a file."""
    paths = [path for path in given if str(path) != STDIN_PATH]
    reads = len(paths) < len(given)
    return Inputs(paths, sys.stdin.buffer if reads else None)


_OPTIONS: tuple[Callable[[Callable[..., Any]], Callable[..., Any]], ...] = (
    click.option(
        "--format",
        "output_format",
        type=click.Choice(sorted(REPORTERS)),
        default="text",
        show_default=True,
        help="Report format: text for people, json for scripts, github for workflow "
        "annotations, junit and sarif for CI dashboards and code scanning.",
    ),
    click.option(
        "--config",
        "config_file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Repository config file (default: trainc.yaml at the repository root).",
    ),
    click.option(
        "--env",
        "environment",
        metavar="NAME",
        help="Environment of trainc.yaml whose template values render *.j2 files. Wins over "
        "an Argo CD Application's `env` parameter (docs/argocd.md).",
    ),
    click.option(
        "-v",
        "--verbose",
        is_flag=True,
        help="Also show informational findings, such as documents that are not Trainer "
        "objects and were skipped.",
    ),
    click.option(
        "-q",
        "--quiet",
        is_flag=True,
        help="Show errors only; print nothing when there are none (the text format).",
    ),
    click.option(
        "--color/--no-color",
        default=None,
        help="Force colour on or off (default: on for terminals, off when NO_COLOR is set).",
    ),
)


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options to ``command``, passing them as one ``report`` argument."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        report = ReportOptions(
            output_format=kwargs.pop("output_format"),
            config_file=kwargs.pop("config_file"),
            environment=kwargs.pop("environment"),
            overrides=argocd_overrides(os.environ),
            verbose=kwargs.pop("verbose"),
            quiet=kwargs.pop("quiet"),
            color=kwargs.pop("color"),
        )
        return command(*args, report=report, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


#: ``--untracked``: read the work-in-progress files git does not track, too.
untracked_option = click.option(
    "--untracked",
    is_flag=True,
    help="In a git work tree, also read input files git does not track. Without PATHS "
    "only tracked and staged files are read, as a commit holds them (pre-commit); "
    "named PATHS are always read.",
)


def say_untracked(run: ValidationReport, report: ReportOptions) -> None:
    """Say on stderr which untracked input files a run left out, and how to read them."""
    skipped = run.untracked
    if not skipped or report.quiet:
        return
    shown = ", ".join(skipped[:_LISTED_UNTRACKED])
    more = len(skipped) - _LISTED_UNTRACKED
    shown += f" and {more} more" if more > 0 else ""
    them = "it" if len(skipped) == 1 else "them"
    click.echo(
        f"trainc: skipped {counted(len(skipped), 'input file')} git does not track ({shown}); "
        f"`git add` {them} or pass --untracked to read {them}",
        err=True,
    )


_LISTED_UNTRACKED = 3


#: ``--jobs N``: how many processes judge (and compile) the TrainJobs.
jobs_option = click.option(
    "-j",
    "--jobs",
    type=int,
    metavar="N",
    help="Processes to resolve, check and build TrainJobs with (default: the usable CPU "
    "cores). A small repository stays in one process; output and findings are the same "
    "whatever N is.",
)


#: ``--cache-dir DIR``: the cache directory, over TRAINC_CACHE_DIR and the user's default.
cache_dir_option = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Where results of unchanged files and TrainJobs are kept between runs (default: "
    "$TRAINC_CACHE_DIR, else $XDG_CACHE_HOME/trainc, else ~/.cache/trainc; see "
    "docs/cache.md). Findings and output are the same with or without it.",
)


def cache_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--cache-dir`` and ``--no-cache`` to ``command``, passing the opened cache (or
    None) as one ``cache`` argument.

    A cache that cannot be used (a read-only home, a directory of another user) is said
    once on the standard error and the run goes on without it: the cache only saves time.
    The bytes the run wrote are added to the cache's usage, which trims it past its
    bound (``TRAINC_CACHE_MAX_SIZE``, see :mod:`trainc.cache.budget`); when the run's own
    entries alone are over it, that is said once, as a warning (the exit code stays).
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        root = cache_root(
            kwargs.pop("cache_dir"), disabled=kwargs.pop("no_cache"), environ=os.environ
        )
        limit = cache_max_size(os.environ) if root is not None else None
        store = Store.open(root) if root is not None else None
        if isinstance(store, str):
            click.echo(f"trainc: {store}; running without a cache", err=True)
            store = None
        if store is not None and limit is not None:
            store.account = functools.partial(bounded, directory=store.directory, limit=limit)
        try:
            return command(*args, cache=store, **kwargs)
        finally:
            if store is not None:
                store.flush()
            if store is not None and store.write_failure is not None:
                click.echo(f"trainc: {store.write_failure}; later results were not kept", err=True)
            if store is not None and store.over_bound is not None:
                click.echo(f"trainc: warning: {store.over_bound}", err=True)

    wrapper = click.option(
        "--no-cache",
        is_flag=True,
        help=f"Check everything again and keep nothing (also: {NO_CACHE_VARIABLE}=1).",
    )(wrapper)
    return cache_dir_option(wrapper)
