"""``trainc diff`` as a library call: the output at a base revision and in the working
tree, compared."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trainc.config.settings import Overrides, RepoConfig
from trainc.diagnostics import Diagnostic

if TYPE_CHECKING:
    from trainc.build.job import BuiltJob
    from trainc.diff.changes import Emitted, ObjectChange

from trainc.app.session import (
    Builds,
    ExitCodeFromFindings,
    Progress,
    Request,
    Steps,
    ValidationReport,
    base_revision,
    config_failure,
    named_paths,
    run_validation,
)


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


def diff_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    base: str,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
) -> DiffReport:
    """Compile the TrainJobs in ``paths`` (default: the repository) at git revision
    ``base`` and in the working tree, in memory, and compare the two outputs.

    The working tree is validated as ``validate --base`` validates it. At ``base``, a
    TrainJob counts as deployed when it resolved cleanly there (as ``--base`` compares
    JobSets); both sides are built with the current configuration. With ``paths``, only
    the TrainJobs of those files are compared, and the sweeper's objects (which depend
    on every job of the repository) are left out.
    """
    from trainc.build.job import build_job  # noqa: PLC0415 - compile only
    from trainc.diff.changes import compare  # noqa: PLC0415 - diff only
    from trainc.emit.selection import Selection  # noqa: PLC0415 - compile only

    request = Request(paths, cwd, config_file, environment, overrides)
    loaded_config = request.open()
    config = loaded_config.config
    if config is None:
        report = config_failure(loaded_config)
        return DiffReport(report, report.diagnostics, ())
    revision = base_revision(base, config)
    builds = Builds(config, keep=True)
    report = run_validation(
        request.targets,
        loaded_config,
        config,
        base=revision,
        steps=Steps(progress),
        builds=builds,
    )
    if any(d.is_error and not revision.reported(d) for d in report.diagnostics):
        return DiffReport(report, report.diagnostics, ())
    selected = Selection(named_paths(request.targets, root=config.root))
    deployed = revision.deployed_jobs()
    before = [build_job(job) for job in deployed if selected.covers(job.trainjob.loaded.path)]
    changes = compare(
        _emitted(config, before, shared=not paths),
        _emitted(config, [built for _, built in builds.kept], shared=not paths),
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
    from trainc.build.sweeper import build_sweeper  # noqa: PLC0415 - compile only
    from trainc.diff.changes import Emitted  # noqa: PLC0415 - diff only

    sweeper = build_sweeper(config, {job.namespace for job in jobs}) if shared else ()
    return Emitted({f"{job.namespace}/{job.name}": job.objects for job in jobs}, sweeper)
