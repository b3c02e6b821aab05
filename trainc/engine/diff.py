"""``trainc diff``'s run: the output at a base revision and in the working tree, built in
memory and compared (:mod:`trainc.diff.changes`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainc.build.job import BuiltJob, build_job
from trainc.build.sweeper import build_sweeper
from trainc.checks.transitions.base import BaseRevision
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.diff.changes import Emitted, ObjectChange, compare
from trainc.emit.selection import Selection
from trainc.engine.job_pass import JobStages
from trainc.engine.report import ExitCodeFromFindings, ValidationReport
from trainc.engine.repository import Run, validate_repository


@dataclass(frozen=True, slots=True)
class DiffReport(ExitCodeFromFindings):
    """The outcome of ``trainc diff``: diagnostics, and what the edit does to the cluster.

    ``changes`` is empty when the working tree has errors of its own: it would not
    compile, so there is nothing to show. Errors that exist only against the base
    revision (an update the API server refuses to apply in place) flag the changes.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    changes: tuple[ObjectChange, ...]


def diff_repository(run: Run, revision: BaseRevision) -> DiffReport:
    """Compile the run's TrainJobs at ``revision`` and in the working tree, in memory,
    and compare the two outputs.

    The working tree is validated as ``validate --base`` validates it (``run.base`` is
    ``revision``). At the base, a TrainJob counts as deployed when it resolved cleanly
    there (as ``--base`` compares JobSets); both sides are built with the current
    configuration. With named paths, only the TrainJobs of those files are compared, and
    the sweeper's objects (which depend on every job of the repository) are left out.
    """
    validated = validate_repository(run, JobStages(build=True, keep=True))
    report = validated.report
    if any(d.is_error and not revision.reported(d) for d in report.diagnostics):
        return DiffReport(report, report.diagnostics, ())
    config = run.config
    selected = Selection(run.named_paths)
    deployed = revision.deployed_jobs()
    before = [build_job(job) for job in deployed if selected.covers(job.trainjob.loaded.path)]
    after = [kept.built for kept in validated.kept if kept.built is not None]
    shared = not run.targets
    changes = compare(
        _emitted(config, before, shared=shared),
        _emitted(config, after, shared=shared),
        lambda owner: [_reason(d) for d in revision.refusals(*owner.split("/", 1))],
    )
    return DiffReport(report, report.diagnostics, changes)


def _reason(refusal: Diagnostic) -> str:
    """A refused update in one line: the object's field and what the API server says."""
    if refusal.field_path is None or refusal.field_path in refusal.message:
        return refusal.message
    return f"{refusal.kind} {refusal.field_path}: {refusal.message}"


def _emitted(config: RepoConfig, jobs: Sequence[BuiltJob], *, shared: bool) -> Emitted:
    """What compile emits for ``jobs``: their objects and, with ``shared``, the sweeper's."""
    sweeper = build_sweeper(config, {job.namespace for job in jobs}) if shared else ()
    return Emitted({f"{job.namespace}/{job.name}": job.objects for job in jobs}, sweeper)
