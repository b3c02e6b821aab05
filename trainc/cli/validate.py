"""``trainc validate``: check TrainJobs and runtimes the way the API server would."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.app import RunOptions, Session
from trainc.cache.store import Store
from trainc.cli.options import (
    ReportOptions,
    cache_options,
    jobs_option,
    report_options,
    say_untracked,
    split_inputs,
    untracked_option,
)
from trainc.cli.progress import progress_line


@click.command(
    "validate",
    epilog="Exit codes: 0 clean (warnings allowed), 1 errors in the input, "
    "2 usage or internal error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--base",
    metavar="REF",
    help="Git revision to compare with: checks that immutable fields (runtimeRef, trainer, "
    "activeDeadlineSeconds, ...) did not change.",
)
@untracked_option
@jobs_option
@cache_options
@report_options
def validate_command(
    paths: tuple[Path, ...],
    *,
    base: str | None,
    untracked: bool,
    jobs: int | None,
    cache: Store | None,
    report: ReportOptions,
) -> int:
    """Validate TrainJobs and runtimes in PATHS (default: the repository).

    Every file and directory given is read (directories recursively, *.yaml, *.yml and
    *.j2 templates); documents that are not trainer.kubeflow.org objects are skipped,
    and so are kustomize directories and Helm charts, whose rendered output can be
    piped in: - reads a YAML stream from the standard input. Each object is checked
    against the generated CRD schema and its CEL rules, the checks Trainer's admission
    webhooks make, and the organisation policies of the repository. The repository (its
    trainc.yaml, policies and runtimes) is the one PATHS are in: the nearest directory
    above them holding trainc.yaml or .git. Without PATHS, in a git work tree, only the
    files git tracks (committed or staged) are read: see --untracked.

    \b
    Examples:
      trainc validate
      trainc validate jobs/ runtimes/
      trainc validate ~/team-repo
      kustomize build overlays/prod | trainc validate -
      trainc validate --base origin/main --format github
      trainc validate --env prod -v
    """
    inputs = split_inputs(paths)
    with progress_line(sys.stderr, "validating", enabled=not report.quiet) as progress:
        options = RunOptions(
            cwd=Path.cwd(),
            paths=inputs.paths,
            stdin=inputs.stdin,
            base=base,
            jobs=jobs,
            cache=cache,
            untracked=untracked,
            progress=progress,
            **report.repository,
        )
        result = Session(options).validate()
    report.write(result, result.diagnostics, sys.stdout, version=__version__)
    say_untracked(result, report)
    return result.exit_code
