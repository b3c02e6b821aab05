"""``trainc diff``: what a change to the repository does to the cluster, before it merges."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from trainc import __version__
from trainc.app import RunOptions, Session
from trainc.argocd import argocd_overrides
from trainc.cli.options import ReportOptions
from trainc.cli.progress import progress_line
from trainc.diff.json import diff_document
from trainc.diff.markdown import render_markdown
from trainc.diff.text import render_text
from trainc.report.base import use_color, write_json

if TYPE_CHECKING:
    from trainc.engine.diff import DiffReport  # the report's type: the engine makes it

#: How the working tree is named in the diff headers.
WORKING_TREE = "working tree"


@click.command(
    "diff",
    epilog="Exit codes: 0 compared (differences or not, unless --exit-code), 1 errors in "
    "the working tree (an update the API server refuses included) or, with --exit-code, "
    "differences, 2 usage or internal error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--base",
    metavar="REF",
    required=True,
    help="Git revision the cluster runs now (e.g. origin/main): compared with the working tree.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text for people, markdown for a pull-request comment (cut to fit GitHub's "
    "65,536-character limit), json for scripts.",
)
@click.option(
    "--exit-code", is_flag=True, help="Exit 1 when there are differences, as `git diff` does."
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Repository config file (default: trainc.yaml at the repository root).",
)
@click.option("--env", "environment", metavar="NAME", help="Environment of trainc.yaml.")
@click.option("-q", "--quiet", is_flag=True, help="Report errors only, not warnings.")
@click.option(
    "--color/--no-color",
    default=None,
    help="Force colour on or off (default: on for terminals, off when NO_COLOR is set).",
)
def diff_command(
    paths: tuple[Path, ...],
    *,
    base: str,
    output_format: str,
    exit_code: bool,
    config_file: Path | None,
    environment: str | None,
    quiet: bool,
    color: bool | None,
) -> int:
    """Show what the change since REF does to the cluster, TrainJob by TrainJob.

    Compiles PATHS (default: the repository) at git revision REF and in the working
    tree, in memory (nothing is written), and prints the objects added, removed and
    changed, as unified diffs of the manifests compile emits. A change the API server
    cannot apply to a running job (a field the JobSet API makes immutable) is flagged
    "needs a new TrainJob name". The working tree is validated as `trainc validate
    --base REF` validates it; findings go to stderr, the diff to stdout.

    \b
    Examples:
      trainc diff --base origin/main
      trainc diff jobs/llama.yaml --base HEAD
      trainc diff --base origin/main --format markdown > comment.md
      trainc diff --base origin/main --exit-code --format json | jq .summary
    """
    options = ReportOptions(
        output_format="text",
        config_file=config_file,
        environment=environment,
        overrides=argocd_overrides(os.environ),
        verbose=False,
        quiet=quiet,
        color=color,
    )
    with progress_line(sys.stderr, "comparing", enabled=not quiet) as progress:
        run = RunOptions(
            cwd=Path.cwd(), paths=paths, base=base, progress=progress, **options.repository
        )
        result = Session(run).diff()
    options.write(result.validation, result.diagnostics, sys.stderr, version=__version__)
    if result.exit_code and not result.changes:
        return result.exit_code
    _print(result, output_format, base=base, color=color)
    if result.exit_code:
        return result.exit_code
    return 1 if exit_code and result.changes else 0


def _print(result: DiffReport, output_format: str, *, base: str, color: bool | None) -> None:
    if output_format == "json":
        document = diff_document(
            result.changes, base=base, head=WORKING_TREE, exit_code=result.exit_code
        )
        write_json(document, sys.stdout)
    elif output_format == "markdown":
        sys.stdout.write(render_markdown(result.changes, base=base, head=WORKING_TREE))
    else:
        painted = use_color(sys.stdout, os.environ) if color is None else color
        sys.stdout.write(render_text(result.changes, base=base, head=WORKING_TREE, color=painted))
    sys.stdout.flush()
