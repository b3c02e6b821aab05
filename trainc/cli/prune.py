"""``trainc prune``: take the TrainJobs the cluster is done with out of the working tree."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.app import RunOptions, Session
from trainc.app.cluster import Cluster
from trainc.cli.cluster import context_option, kubeconfig_option
from trainc.cli.options import ReportOptions, report_options
from trainc.prune.removal import summary


@click.command(
    "prune",
    epilog="Exit codes: 0 done (whether or not anything was removed), 1 errors in the "
    "input (nothing removed) or the cluster could not be read, 2 usage or configuration "
    "error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@kubeconfig_option
@context_option
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
@report_options
def prune_command(
    paths: tuple[Path, ...],
    *,
    kubeconfig: Path | None,
    context: str | None,
    dry_run: bool,
    report: ReportOptions,
) -> int:
    """Remove from PATHS (default: the repository) the TrainJobs that are done for good.

    Asks the cluster for the JobSet of every TrainJob (it only lists JobSets: nothing in
    the cluster is changed) and takes out of the working tree each TrainJob whose JobSet
    finished, Completed or Failed, and whose TTL after finishing has passed: its file, or
    only its document when the file holds others. Commit the result, and GitOps prunes
    the JobSet with its PodGroup, claims and ConfigMaps. A TrainJob whose JobSet is
    missing, still running, within its TTL or without one, or compiled from another file,
    is left alone and said so. A repository with errors is not touched.

    \b
    Examples:
      trainc prune --kubeconfig ~/.kube/prod --dry-run
      trainc prune jobs/ --kubeconfig kubeconfig --context prod
    """
    options = RunOptions(cwd=Path.cwd(), paths=paths, **report.repository)
    planned = Session(options).prune_plan()
    report.write(planned.validation, planned.diagnostics, sys.stderr, version=__version__)
    if planned.exit_code:
        return planned.exit_code
    result = Session.prune(planned, Cluster(kubeconfig, context), dry_run=dry_run)
    if result.unreachable is not None:
        click.echo(f"trainc: {result.unreachable}", err=True)
        return 1
    for entry in result.pruned:
        click.echo(entry.line())
    click.echo(summary(result.pruned, dry_run=dry_run))
    return 0
