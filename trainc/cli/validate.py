"""``trainc validate``: check TrainJobs and runtimes the way the API server would."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.api import validate_paths
from trainc.report.base import REPORTERS, ReporterOptions, ReportInput, make_reporter


@click.command(
    "validate",
    epilog="Exit codes: 0 clean (warnings allowed), 1 errors in the input, "
    "2 usage or internal error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Report format: text for people, json for scripts, github for workflow "
    "annotations, junit and sarif for CI dashboards and code scanning.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Repository config file (default: trainc.yaml at the repository root).",
)
@click.option(
    "--env",
    "environment",
    metavar="NAME",
    help="Environment of trainc.yaml whose template values render *.j2 files.",
)
@click.option(
    "--base",
    metavar="REF",
    help="Git revision to compare with: checks that "
    "immutable fields (runtimeRef, trainer, activeDeadlineSeconds, ...) did not change.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also show informational findings, such "
    "as documents that are not Trainer objects and were skipped.",
)
@click.option("-q", "--quiet", is_flag=True, help="Show errors only.")
@click.option(
    "--color/--no-color",
    default=None,
    help="Force colour on or off (default: on for terminals, off when NO_COLOR is set).",
)
def validate_command(
    paths: tuple[Path, ...],
    *,
    output_format: str,
    config_file: Path | None,
    environment: str | None,
    base: str | None,
    verbose: bool,
    quiet: bool,
    color: bool | None,
) -> int:
    """Validate TrainJobs and runtimes in PATHS (default: the repository).

    Every file and directory given is read (directories recursively, *.yaml, *.yml and
    *.j2 templates); documents that are not trainer.kubeflow.org objects are skipped.
    Each object is checked against the generated CRD schema and its CEL rules, the
    checks Trainer's admission webhooks make, and the organisation policies of the
    repository.

    \b
    Examples:
      trainc validate
      trainc validate jobs/ runtimes/
      trainc validate --base origin/main --format github
      trainc validate --env prod -v
    """
    report = validate_paths(
        list(paths), cwd=Path.cwd(), config_file=config_file, environment=environment, base=base
    )
    diagnostics = report.diagnostics
    if quiet:
        diagnostics = tuple(d for d in diagnostics if d.is_error)
    reporter = make_reporter(output_format, ReporterOptions(verbose=verbose, color=color))
    reporter.write(
        ReportInput(
            diagnostics=diagnostics,
            sources=report.sources,
            files_checked=report.files,
            objects_checked=report.objects,
            version=__version__,
        ),
        sys.stdout,
    )
    sys.stdout.flush()
    return report.exit_code
