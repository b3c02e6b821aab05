"""Validation layers in the API server's order, over every object of a run.

Per object: migration hints, the structural schema check (with ObjectMeta rules), CRD
defaults, then CEL rules. Across objects: the webhook-equivalent checks. Then each
TrainJob is resolved (:mod:`trainc.resolve`) and the resolved job checked as the cluster
will judge its JobSet and Jobs (:mod:`trainc.validate.resolved`), with the organisation
policies; with ``--base``, transition rules against the same objects at that revision,
and each JobSet against the one its TrainJob deployed (:mod:`trainc.validate.base`).
Every layer adds to one diagnostics list; none stops the others.

TrainJobs are resolved one at a time, in (namespace, name) order, and handed to the
caller's :data:`OnResolved` before the next: compile builds from exactly what was
checked, and neither command holds every resolved job at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trainc.config import RepoConfig
from trainc.diagnostics import Diagnostic, exit_code
from trainc.load.documents import LoadedObject
from trainc.model.kinds import TRAINJOB
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.objects import DefaultedObject, effective_namespace
from trainc.resolve.resolved import ResolvedJob
from trainc.validate.crossobject.run import check_cross_object, document_order
from trainc.validate.policies import PolicySet, check_policies
from trainc.validate.prepare import check_document
from trainc.validate.resolved.run import Target, check_resolved
from trainc.validate.sweeper import Enforcement
from trainc.validate.workload.version import parse_version

if TYPE_CHECKING:
    from trainc.validate.base import BaseRevision

Progress = Callable[[int, int], None]

#: ``on_resolved(job, clean)``: a TrainJob resolved and checked; ``clean`` when the run
#: has found no error so far, this job's findings included.
OnResolved = Callable[[ResolvedJob, bool], None]
#: ``check_built(job)``: what the objects built from a resolved job that passed every
#: check would meet on their way into the cluster (:mod:`trainc.validate.apply_limits`).
#: The caller builds: the compiler sits above validation.
CheckBuilt = Callable[[ResolvedJob], Sequence[Diagnostic]]


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    """Objects with defaults applied, the run's runtime index, and everything found.

    ``hidden`` are the context files no target uses: their findings are left out.
    """

    objects: tuple[DefaultedObject, ...]
    diagnostics: tuple[Diagnostic, ...]
    index: RuntimeIndex
    hidden: frozenset[str] = frozenset()


def validate_objects(
    objects: Sequence[LoadedObject],
    config: RepoConfig,
    policies: PolicySet,
    *,
    base: BaseRevision | None = None,
    context_files: frozenset[str] = frozenset(),
    elsewhere: Sequence[LoadedObject] = (),
    clean: bool = True,
    progress: Progress | None = None,
    job_progress: Progress | None = None,
    on_resolved: OnResolved | None = None,
    check_built: CheckBuilt | None = None,
) -> ValidationOutcome:
    """Run every validation layer; ``base`` (``--base``) enables the transition rules.

    ``context_files`` are files read only to find the targets' runtimes (every TrainJob
    is a target): findings in those that no target uses are left out. ``elsewhere`` are
    runtimes of the repository that are not checked, named to a TrainJob whose runtime is
    not found (a suggestion of the right name). ``clean`` says
    whether the caller found no error before (loading, policies). ``progress(done,
    total)`` is called after each object's own checks and ``job_progress`` after each
    TrainJob is resolved and checked; ``on_resolved`` gets each resolved TrainJob (see
    :data:`OnResolved`), and ``check_built`` judges the objects of each that passed its
    checks (see :data:`CheckBuilt`).
    """
    diagnostics: list[Diagnostic] = []
    checked: list[DefaultedObject] = []
    for done, obj in enumerate(objects, 1):
        found, defaulted = check_document(obj, config)
        diagnostics.extend(found)
        if defaulted is not None:
            checked.append(defaulted)
        if progress is not None:
            progress(done, len(objects))
    index = RuntimeIndex(
        document_order(checked),
        elsewhere=((o.kind, effective_namespace(o, config.namespace), o.name) for o in elsewhere),
    )
    diagnostics.extend(check_cross_object(checked, index))
    for checked_obj in checked:
        if checked_obj.kind != TRAINJOB.kind:
            diagnostics.extend(check_policies(policies, checked_obj))
    hidden = context_files - _used_runtime_files(checked, index)
    visible = [d for d in diagnostics if d.file not in hidden]
    clean = clean and not exit_code(visible)
    erroneous = {_origin_key(d) for d in visible if d.is_error}
    transitions = base.check_transitions(checked) if base is not None else []
    visible += _check_trainjobs(
        checked,
        index,
        config,
        policies,
        run=_Run(clean and not exit_code(transitions), erroneous, base),
        progress=job_progress,
        hooks=_Hooks(on_resolved, check_built),
    )
    visible += transitions
    if base is not None:
        visible += base.update_findings()
    return ValidationOutcome(
        tuple(checked), tuple(d for d in visible if d.file not in hidden), index, hidden
    )


def _used_runtime_files(objects: Sequence[DefaultedObject], index: RuntimeIndex) -> set[str]:
    """Files of the runtimes some TrainJob uses: findings in them concern the targets."""
    used = set()
    for obj in objects:
        if obj.kind == TRAINJOB.kind:
            runtime = index.lookup(obj)
            if isinstance(runtime, DefaultedObject):
                used.add(runtime.loaded.path)
    return used


@dataclass(slots=True)
class _Run:
    """What the run found before TrainJobs are resolved: whether it is clean, the
    objects with errors (as :func:`_origin_key` names them), and the base revision that
    deployed JobSets are compared with (``--base``)."""

    clean: bool
    erroneous: set[tuple[str | None, str | None, str | None, str | None]]
    base: BaseRevision | None = None

    def blocks(self, *objects: DefaultedObject) -> bool:
        """Whether one of ``objects`` already has an error."""
        return any(_object_key(obj) in self.erroneous for obj in objects)


def _origin_key(
    diagnostic: Diagnostic,
) -> tuple[str | None, str | None, str | None, str | None]:
    return (diagnostic.file, diagnostic.kind, diagnostic.namespace, diagnostic.name)


def _object_key(obj: DefaultedObject) -> tuple[str | None, str | None, str | None, str | None]:
    return (obj.loaded.path, obj.kind, obj.namespace, obj.name)


@dataclass(frozen=True, slots=True)
class _Hooks:
    """The caller's part in judging each TrainJob (see :data:`OnResolved`, :data:`CheckBuilt`)."""

    on_resolved: OnResolved | None = None
    check_built: CheckBuilt | None = None


def _check_trainjobs(
    objects: Sequence[DefaultedObject],
    index: RuntimeIndex,
    config: RepoConfig,
    policies: PolicySet,
    *,
    run: _Run,
    progress: Progress | None,
    hooks: _Hooks,
) -> list[Diagnostic]:
    """Resolve and check each TrainJob, with its policies, in (namespace, name) order.

    A job the resolved checks pass has its built objects judged (``hooks.check_built``).
    With a base revision, each JobSet is also compared with the one its TrainJob
    deployed (the findings come from :meth:`BaseRevision.update_findings` once every job
    is checked). A TrainJob is still resolved when it or its runtime has errors
    (policies read what it resolves to), but not judged further: the API server would
    refuse the object with the error before any JobSet or Job existed, and the findings
    about those would only repeat the first mistake.
    """
    target = Target(parse_version(config.kubernetes_version), config.rules)
    trainjobs = sorted(
        (obj for obj in objects if obj.kind == TRAINJOB.kind),
        key=lambda obj: (obj.namespace or "", obj.name),
    )
    specs = RuntimeSpecs()
    enforcement = Enforcement(config)
    diagnostics: list[Diagnostic] = []
    for done, trainjob in enumerate(trainjobs, 1):
        found = index.lookup(trainjob)
        runtime = found if isinstance(found, DefaultedObject) else None
        resolved = None
        if runtime is not None and trainjob.schema_valid and runtime.schema_valid:
            resolved = resolve_job(trainjob, runtime, config.compile, specs=specs)
        job_findings = []
        refused = False
        if resolved is not None and not run.blocks(trainjob, resolved.runtime):
            job_findings = check_resolved(resolved, target)
            if hooks.check_built is not None and not exit_code(job_findings):
                job_findings += hooks.check_built(resolved)
            enforcement.add(resolved)
            refused = run.base is not None and run.base.check_update(resolved)
        job_findings += check_policies(policies, trainjob, runtime=runtime, resolved=resolved)
        diagnostics.extend(job_findings)
        run.clean = run.clean and not refused and not exit_code(job_findings)
        if resolved is not None and hooks.on_resolved is not None:
            hooks.on_resolved(resolved, run.clean)
        if progress is not None:
            progress(done, len(trainjobs))
    diagnostics.extend(enforcement.findings())
    return diagnostics
