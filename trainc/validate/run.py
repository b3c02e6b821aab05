"""Validation layers in the API server's order, over every object of a run.

Per object: migration hints, the structural schema check (with ObjectMeta rules), CRD
defaults, then CEL rules. Across objects: the webhook-equivalent checks. Then each
TrainJob is resolved (:mod:`trainc.resolve`) and the resolved job checked as the cluster
will judge its JobSet and Jobs (:mod:`trainc.validate.resolved`), with the organisation
policies; with ``--base``, transition rules against the same objects at that revision.
Every layer adds to one diagnostics list; none stops the others.

TrainJobs are resolved one at a time, in (namespace, name) order, and handed to the
caller's :data:`OnResolved` before the next: compile builds from exactly what was
checked, and neither command holds every resolved job at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from trainc.config import RepoConfig
from trainc.diagnostics import Diagnostic, exit_code
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath
from trainc.model.kinds import KINDS_BY_NAME, TRAINJOB
from trainc.model.labels import API_VERSION
from trainc.model.schematree import load_kind_schema
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.objects import DefaultedObject
from trainc.resolve.resolved import ResolvedJob
from trainc.validate.cel.rules import check_rules
from trainc.validate.crossobject.run import check_cross_object, document_order
from trainc.validate.defaults import apply_defaults, drop_nulls
from trainc.validate.metadata import check_metadata
from trainc.validate.migrations import check_migrations
from trainc.validate.policies import PolicySet, check_policies
from trainc.validate.resolved.run import Target, check_resolved
from trainc.validate.structural import check_schema
from trainc.validate.sweeper import Enforcement
from trainc.validate.workload.version import parse_version

ObjectKey = tuple[str, str | None, str]
Progress = Callable[[int, int], None]

#: ``on_resolved(job, clean)``: a TrainJob resolved and checked; ``clean`` when the run
#: has found no error so far, this job's findings included.
OnResolved = Callable[[ResolvedJob, bool], None]


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
    base: Sequence[LoadedObject] | None = None,
    context_files: frozenset[str] = frozenset(),
    clean: bool = True,
    progress: Progress | None = None,
    job_progress: Progress | None = None,
    on_resolved: OnResolved | None = None,
) -> ValidationOutcome:
    """Run every validation layer; ``base`` enables the transition rules.

    ``context_files`` are files read only to find the targets' runtimes (every TrainJob
    is a target): findings in those that no target uses are left out. ``clean`` says
    whether the caller found no error before (loading, policies). ``progress(done,
    total)`` is called after each object's own checks and ``job_progress`` after each
    TrainJob is resolved and checked; ``on_resolved`` gets each resolved TrainJob (see
    :data:`OnResolved`).
    """
    diagnostics: list[Diagnostic] = []
    checked: list[DefaultedObject] = []
    for done, obj in enumerate(objects, 1):
        found, defaulted = _check_document(obj, config)
        diagnostics.extend(found)
        if defaulted is not None:
            checked.append(defaulted)
        if progress is not None:
            progress(done, len(objects))
    index = RuntimeIndex(document_order(checked))
    diagnostics.extend(check_cross_object(checked, index))
    for checked_obj in checked:
        if checked_obj.kind != TRAINJOB.kind:
            diagnostics.extend(check_policies(policies, checked_obj))
    hidden = context_files - _used_runtime_files(checked, index)
    visible = [d for d in diagnostics if d.file not in hidden]
    clean = clean and not exit_code(visible)
    erroneous = {_origin_key(d) for d in visible if d.is_error}
    visible += _check_trainjobs(
        checked,
        index,
        config,
        policies,
        run=_Run(clean, erroneous),
        progress=job_progress,
        on_resolved=on_resolved,
    )
    if base is not None:
        visible.extend(_check_against_base(checked, base, config))
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
    """What the run found before TrainJobs are resolved: whether it is clean, and the
    objects with errors, as :func:`_origin_key` names them."""

    clean: bool
    erroneous: set[tuple[str | None, str | None, str | None, str | None]]

    def blocks(self, *objects: DefaultedObject) -> bool:
        """Whether one of ``objects`` already has an error."""
        return any(_object_key(obj) in self.erroneous for obj in objects)


def _origin_key(
    diagnostic: Diagnostic,
) -> tuple[str | None, str | None, str | None, str | None]:
    return (diagnostic.file, diagnostic.kind, diagnostic.namespace, diagnostic.name)


def _object_key(obj: DefaultedObject) -> tuple[str | None, str | None, str | None, str | None]:
    return (obj.loaded.path, obj.kind, obj.namespace, obj.name)


def _check_trainjobs(
    objects: Sequence[DefaultedObject],
    index: RuntimeIndex,
    config: RepoConfig,
    policies: PolicySet,
    *,
    run: _Run,
    progress: Progress | None,
    on_resolved: OnResolved | None,
) -> list[Diagnostic]:
    """Resolve and check each TrainJob, with its policies, in (namespace, name) order.

    A TrainJob is still resolved when it or its runtime has errors (policies read what it
    resolves to), but not judged further: the API server would refuse the object with
    the error before any JobSet or Job existed, and the findings about those would only
    repeat the first mistake.
    """
    target = Target(parse_version(config.kubernetes_version))
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
        if resolved is not None and not run.blocks(trainjob, resolved.runtime):
            job_findings = check_resolved(resolved, target)
            enforcement.add(resolved)
        job_findings += check_policies(policies, trainjob, runtime=runtime, resolved=resolved)
        diagnostics.extend(job_findings)
        run.clean = run.clean and not exit_code(job_findings)
        if resolved is not None and on_resolved is not None:
            on_resolved(resolved, run.clean)
        if progress is not None:
            progress(done, len(trainjobs))
    diagnostics.extend(enforcement.findings())
    return diagnostics


def prepare_object(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None, frozenset[FieldPath]]:
    """Document-level layers up to defaulting: (findings, defaulted object, error paths).

    Returns no object when the document is not the served API version: nothing after
    the migration hint could say anything useful about it.
    """
    migration = check_migrations(obj)
    diagnostics = list(migration.diagnostics)
    if obj.api_version != API_VERSION:
        return diagnostics, None, frozenset()
    info = KINDS_BY_NAME[obj.kind]
    schema = load_kind_schema(obj.kind)
    data = drop_nulls(obj.data)
    findings = check_schema(data, schema, skip=migration.handled_paths)
    diagnostics.extend(obj.finding(f.path, f.code, f.message, hint=f.hint) for f in findings)
    diagnostics.extend(check_metadata(obj, namespaced=info.namespaced))
    defaulted_data = apply_defaults(data, schema)
    namespace = (obj.namespace or config.namespace) if info.namespaced else None
    defaulted = DefaultedObject(
        loaded=obj,
        data=defaulted_data if isinstance(defaulted_data, dict) else {},
        namespace=namespace,
        schema_valid=not findings and not migration.diagnostics,
    )
    error_paths = frozenset(f.path for f in findings) | migration.handled_paths
    return diagnostics, defaulted, error_paths


def _check_document(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None]:
    diagnostics, defaulted, error_paths = prepare_object(obj, config)
    if defaulted is not None:
        schema = load_kind_schema(obj.kind)
        diagnostics.extend(check_rules(defaulted, schema, skip_paths=error_paths))
    return diagnostics, defaulted


def _key(obj: DefaultedObject) -> ObjectKey:
    return (obj.kind, obj.namespace, obj.name)


def _check_against_base(
    current: Iterable[DefaultedObject], base: Sequence[LoadedObject], config: RepoConfig
) -> list[Diagnostic]:
    """Transition rules for every object that also exists, valid, at the base revision."""
    # Only ``--base`` runs need the transition layer: loaded here, not by every run.
    from trainc.validate.cel.transitions import check_transitions  # noqa: PLC0415

    previous: dict[ObjectKey, DefaultedObject] = {}
    for loaded in base:
        _, defaulted, _ = prepare_object(loaded, config)
        if defaulted is not None and defaulted.schema_valid:
            previous.setdefault(_key(defaulted), defaulted)
    diagnostics: list[Diagnostic] = []
    for obj in current:
        old = previous.get(_key(obj))
        if old is not None and obj.schema_valid:
            diagnostics.extend(check_transitions(obj, old, load_kind_schema(obj.kind)))
    return diagnostics
