"""``trainc prune``: take the TrainJobs the cluster is done with out of the working tree."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from trainc import __version__
from trainc.app import trainjob_sources
from trainc.cli.cluster import context_option, kubeconfig_option
from trainc.cli.options import ReportOptions, report_options
from trainc.prune.removal import plan, prune, summary
from trainc.sweep.calls import ApiError, SweepLimits
from trainc.sweep.client import connect


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
    sources = trainjob_sources(
        list(paths),
        cwd=Path.cwd(),
        config_file=report.config_file,
        environment=report.environment,
        overrides=report.overrides,
    )
    report.write(sources.validation, sources.diagnostics, sys.stderr, version=__version__)
    if sources.exit_code:
        return sources.exit_code
    client = connect(kubeconfig=kubeconfig, context=context, limits=SweepLimits())
    namespaces = tuple(sorted({job.namespace for job in sources.trainjobs}))
    try:
        jobsets = client.list_jobsets(namespaces) if namespaces else ()
    except ApiError as error:
        click.echo(f"trainc: cannot list JobSets: {error}", err=True)
        return 1
    judged = plan(sources.trainjobs, jobsets, datetime.now(UTC))
    outcome = prune(judged, root=sources.root, limits=sources.limits, dry_run=dry_run)
    for entry in outcome:
        click.echo(entry.line())
    click.echo(summary(outcome, dry_run=dry_run))
    return 0
