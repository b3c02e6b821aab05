"""``trainc prune``: the TrainJobs the cluster is done with, taken out of the working tree.

Two steps, so a front end can report the repository's findings before the cluster is
reached: :func:`prune_plan` validates the repository and says where each TrainJob
lives; :func:`prune_plan_in` asks the cluster and edits the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from trainc.app.cluster import Cluster
from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.engine.job_pass import JobStages
from trainc.engine.report import ExitCodeFromFindings, ValidationReport
from trainc.engine.repository import Run, validate_repository
from trainc.prune.removal import Pruned, TrainJobSource, plan, prune
from trainc.resolve.resolved import ResolvedJob
from trainc.sweep.calls import ApiError


@dataclass(frozen=True, slots=True)
class PrunePlan(ExitCodeFromFindings):
    """The TrainJobs of a repository that compiles, in (namespace, name) order, or the
    findings that stop it (then none: prune edits only a repository that compiles); the
    repository root and the loader's limits, to read the files again."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    root: Path
    limits: InputLimits
    trainjobs: tuple[TrainJobSource, ...] = ()


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What became of each TrainJob, or why the cluster could not be read."""

    pruned: tuple[Pruned, ...] = ()
    unreachable: str | None = None


@dataclass(frozen=True, slots=True)
class PruneRequest:
    """Which cluster tells which TrainJobs are done, when (``now``), and whether only to
    say what would be removed (``dry_run``)."""

    cluster: Cluster
    now: datetime
    dry_run: bool


def prune_plan(run: Run) -> PrunePlan:
    """Validate the run's inputs and say where each TrainJob lives."""
    validated = validate_repository(run, JobStages(build=True, keep=True))
    report = validated.report
    found = (report, report.diagnostics, run.config.root, run.config.limits)
    if report.exit_code:
        return PrunePlan(*found)
    return PrunePlan(*found, tuple(_source(kept.resolved) for kept in validated.kept))


def prune_plan_in(planned: PrunePlan, request: PruneRequest) -> PruneReport:
    """Take out of the working tree each TrainJob of ``planned`` whose JobSet finished
    and outlived its TTL. The cluster is only read: one list of JobSets per namespace."""
    client = request.cluster.connect()
    namespaces = tuple(sorted({job.namespace for job in planned.trainjobs}))
    try:
        jobsets = client.list_jobsets(namespaces) if namespaces else ()
    except ApiError as error:
        return PruneReport(unreachable=f"cannot list JobSets: {error}")
    judged = plan(planned.trainjobs, jobsets, request.now)
    limits, dry_run = planned.limits, request.dry_run
    return PruneReport(tuple(prune(judged, root=planned.root, limits=limits, dry_run=dry_run)))


def _source(job: ResolvedJob) -> TrainJobSource:
    """Where git holds ``job``'s TrainJob, to find its document again."""
    loaded = job.trainjob.loaded
    return TrainJobSource(job.namespace, job.name, loaded.path, loaded.data)
