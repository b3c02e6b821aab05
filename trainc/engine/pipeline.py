"""Validation layers in the API server's order, over every object of a run.

Per object: migration hints, the structural schema check (with ObjectMeta rules), CRD
defaults, then CEL rules. Across objects: the webhook-equivalent checks. Then each
TrainJob is resolved (:mod:`trainc.resolve`) and the resolved job checked as the cluster
will judge its JobSet and Jobs (:mod:`trainc.checks.created`), with the organisation
policies; with ``--base``, transition rules against the same objects at that revision,
and each JobSet against the one its TrainJob deployed (:mod:`trainc.checks.transitions.base`).
Every layer adds to one diagnostics list; none stops the others.

TrainJobs are resolved one at a time, in (namespace, name) order, and handed to the
caller's :data:`OnResolved` before the next: compile builds from exactly what was
checked, and neither command holds every resolved job at once. A run without that hook
(validate, compile with its :class:`Emitter`) judges them in worker processes
(:mod:`trainc.engine.workers`) and takes their verdicts in the same order, so its
findings and output are those of one process.

Objects come checked on their own (:mod:`trainc.engine.file_pass`), TrainJobs as outlines
(:mod:`trainc.engine.outlines`) whose whole objects are read back only to judge them;
with a cache (:mod:`trainc.engine.cache`), a TrainJob whose inputs did not change is
not judged again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from trainc.checks.created.resolved_job import Target, check_resolved
from trainc.checks.shared.whose import merge_shared
from trainc.checks.webhooks.cross_object import check_cross_object, check_trainjob, document_order
from trainc.checks.webhooks.elsewhere import rest_of_repository
from trainc.checks.workload.version import parse_version
from trainc.config.judgement import Judgement
from trainc.config.settings import RepoConfig
from trainc.config.sweeper import Enforcement, lifecycle_file
from trainc.diagnostics import Diagnostic, exit_code
from trainc.engine.blocking import stopped_by_runtime, stops_later_checks
from trainc.engine.cache import CROSS_CHECKS, TRAINJOBS, Cache, ObjectKeys, policies_digest
from trainc.engine.file_pass import (
    CheckedObject,
    CrossChecked,
    Whole,
    check_object,
    whole_object,
)
from trainc.engine.workers import ordered
from trainc.load.declared import Declared
from trainc.load.defaulted import DefaultedObject, effective_namespace
from trainc.load.documents import LoadedObject
from trainc.model.kinds import TRAINJOB
from trainc.plugins import registry
from trainc.policy.apply import PolicySet, check_policies
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.resolved import ResolvedJob

if TYPE_CHECKING:
    from trainc.checks.transitions.base import BaseRevision

Progress = Callable[[int, int], None]

#: ``on_resolved(job, clean)``: a TrainJob resolved and checked; ``clean`` when the run
#: has found no error so far, this job's findings included.
OnResolved = Callable[[ResolvedJob, bool], None]
#: ``check_built(job)``: what the objects built from a resolved job that passed every
#: check would meet on their way into the cluster (:mod:`trainc.checks.apply_limits`).
#: The caller builds: the compiler sits above validation.
CheckBuilt = Callable[[ResolvedJob], Sequence[Diagnostic]]

Product = TypeVar("Product")


class Emitter(Protocol[Product]):
    """What a caller makes of each TrainJob that passed every check while the run is clean.

    :meth:`make` may run in a worker process (it may read what the run prepared, and
    must return picklable data: compile's rendered output); :meth:`take` runs in the
    run's process, in (namespace, name) order, for each job while the run is clean.
    """

    @property
    def cache_key(self) -> str | None:
        """What :meth:`make` makes, named for the cache: equal names, equal products of
        equal jobs. None keeps the jobs of the run out of the cache."""

    def make(self, job: ResolvedJob) -> Product:
        """The caller's product of ``job``."""

    def take(self, product: Product) -> None:
        """Keep what :meth:`make` made of the next clean job."""


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
    objects: Sequence[LoadedObject | CheckedObject],
    config: RepoConfig,
    policies: PolicySet,
    *,
    base: BaseRevision | None = None,
    context_files: frozenset[str] = frozenset(),
    elsewhere: Sequence[LoadedObject] = (),
    declared: Sequence[Declared] | None = None,
    clean: bool = True,
    progress: Progress | None = None,
    job_progress: Progress | None = None,
    on_resolved: OnResolved | None = None,
    check_built: CheckBuilt | None = None,
    emitter: Emitter[Any] | None = None,
    jobs: int = 1,
    cache: Cache | None = None,
    judgement: Judgement | None = None,
) -> ValidationOutcome:
    """Run every validation layer; ``base`` (``--base``) enables the transition rules.

    ``context_files`` are files read only to find the targets' runtimes (every TrainJob
    is a target): findings in those that no target uses are left out. ``elsewhere`` are
    runtimes of the repository that are not checked, named to a TrainJob whose runtime is
    not found (a suggestion of the right name); ``declared`` are the TrainJobs of the
    files a run on named files does not check, given when the checked objects must not
    clash with the rest of the repository: a checked object whose name clashes with one
    of those or of ``elsewhere`` is the one reported
    (:mod:`trainc.checks.webhooks.elsewhere`).
    ``clean`` says
    whether the caller found no error before (loading, policies). ``progress(done,
    total)`` is called after each object's own checks and ``job_progress`` after each
    TrainJob is resolved and checked; ``on_resolved`` gets each resolved TrainJob (see
    :data:`OnResolved`), ``check_built`` judges the objects of each that passed its
    checks (see :data:`CheckBuilt`), and ``emitter`` makes the output of each while the
    run is clean (see :class:`Emitter`). ``jobs`` is how many processes may judge the
    TrainJobs (see :func:`_check_trainjobs`); the outcome is the same whatever it is.
    ``objects`` already checked on their own (:mod:`trainc.engine.file_pass`) are not
    checked again. ``cache`` keeps each TrainJob's verdict and cross-object checks
    (:mod:`trainc.engine.cache`): a run takes them from there when nothing they depend
    on changed. ``judgement`` (default: none) sets every finding's level and drops the
    suppressed ones before anything is decided on them (:mod:`trainc.config.judgement`);
    the cache keeps findings as found.
    """
    judge = judgement if judgement is not None else Judgement()
    diagnostics: list[Diagnostic] = []
    checked: list[DefaultedObject] = []
    # By the outline's identity: ``objects`` keeps every outline alive for the whole call.
    whole_by_outline: dict[int, Whole] = {}
    from_file_checks: dict[int, CrossChecked] = {}
    for done, obj in enumerate(objects, 1):
        alone = obj if isinstance(obj, CheckedObject) else check_object(obj, config)
        diagnostics.extend(alone.findings)
        if alone.defaulted is not None:
            checked.append(alone.defaulted)
            if alone.whole is not None:
                whole_by_outline[id(alone.defaulted)] = alone.whole
            if alone.cross is not None:
                from_file_checks[id(alone.defaulted)] = alone.cross
        if progress is not None:
            progress(done, len(objects))
    wholes = _WholeObjects(whole_by_outline, cache, config)
    if base is not None:  # the transition rules read every field of every object
        checked = [wholes(obj) for obj in checked]
    keys = ObjectKeys()
    index = RuntimeIndex(
        document_order(checked),
        elsewhere=((o.kind, effective_namespace(o, config.namespace), o.name) for o in elsewhere),
    )
    trainjob_checks = _CrossChecks(from_file_checks, keys, wholes, cache)
    rest = (
        rest_of_repository(elsewhere, declared, checked, config.namespace)
        if declared is not None
        else None
    )
    diagnostics.extend(
        check_cross_object(checked, index, trainjob_checks=trainjob_checks, elsewhere=rest)
    )
    for checked_obj in checked:
        if checked_obj.kind != TRAINJOB.kind:
            diagnostics.extend(check_policies(policies, checked_obj))
    hidden = context_files - _used_runtime_files(checked, index)
    visible = judge(d for d in diagnostics if d.file not in hidden)
    clean = clean and not exit_code(visible)
    erroneous = {_origin_key(d) for d in visible if stops_later_checks(d)}
    transitions = judge(base.check_transitions(checked)) if base is not None else []
    visible += _check_trainjobs(
        checked,
        index,
        config,
        policies,
        run=_Run(clean and not exit_code(transitions), erroneous, base, judge),
        progress=job_progress,
        hooks=_Hooks(on_resolved, check_built, emitter),
        jobs=jobs,
        wholes=wholes,
        verdicts=_verdicts(cache, keys, policies, base, _Hooks(on_resolved, check_built, emitter)),
    )
    visible += transitions
    if base is not None:
        visible += judge(base.update_findings())
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
    objects with errors (as :func:`_origin_key` names them), the base revision that
    deployed JobSets are compared with (``--base``), and what the repository's rule
    levels and suppressions make of each finding."""

    clean: bool
    erroneous: set[tuple[str | None, str | None, str | None, str | None]]
    base: BaseRevision | None = None
    judgement: Judgement = field(default_factory=Judgement)

    def blocks(self, *objects: DefaultedObject) -> bool:
        """Whether one of ``objects`` already has an error that stops the resolved checks
        (:func:`~trainc.engine.blocking.stops_later_checks`)."""
        return any(key in self.erroneous for obj in objects for key in _object_keys(obj))

    def stopped_by_runtime(self, trainjob: DefaultedObject, runtime: DefaultedObject) -> bool:
        """Whether only ``runtime`` keeps ``trainjob``, sound itself, from being judged."""
        if not trainjob.schema_valid or self.blocks(trainjob):
            return False
        return not runtime.schema_valid or self.blocks(runtime)


def _origin_key(
    diagnostic: Diagnostic,
) -> tuple[str | None, str | None, str | None, str | None]:
    return (diagnostic.file, diagnostic.kind, diagnostic.namespace, diagnostic.name)


def _object_keys(
    obj: DefaultedObject,
) -> tuple[tuple[str | None, str | None, str | None, str | None], ...]:
    """The :func:`_origin_key` of findings about ``obj``: those made on the loaded object
    name the namespace it was written with (None when it names none), the others its
    effective namespace."""
    path, kind, name = obj.loaded.path, obj.kind, obj.name
    return ((path, kind, obj.namespace, name), (path, kind, obj.loaded.namespace, name))


@dataclass(frozen=True, slots=True)
class _Hooks:
    """The caller's part in judging each TrainJob (see :data:`OnResolved`, :data:`CheckBuilt`,
    :class:`Emitter`)."""

    on_resolved: OnResolved | None = None
    check_built: CheckBuilt | None = None
    emitter: Emitter[Any] | None = None


@dataclass(frozen=True, slots=True)
class _Verdict:
    """One TrainJob judged: what the run's process needs of it, and nothing that cannot
    cross from a worker process (a resolved job holds its trace by object identity).

    ``lifecycle`` is its file when its JobSet carries lifecycle settings
    (:class:`~trainc.config.sweeper.Enforcement`); ``updates`` what the base
    revision's JobSet refuses of it (``--base``); ``product`` what the caller's emitter
    made of it, when the run may still be clean.
    """

    findings: tuple[Diagnostic, ...]
    resolved: bool = False
    lifecycle: str | None = None
    updates: tuple[Diagnostic, ...] = ()
    product: object = None

    def clean(self, judgement: Judgement) -> bool:
        """Whether the job has no error once judged, a refused update included."""
        return not judgement.fails((*self.findings, *self.updates))


@dataclass(frozen=True, slots=True)
class _Judge:
    """Resolves and judges one TrainJob from what the run prepared: in the run's process,
    or in a worker forked after the preparation (:mod:`trainc.engine.workers`)."""

    trainjobs: Sequence[DefaultedObject]
    index: RuntimeIndex
    config: RepoConfig
    policies: PolicySet
    run: _Run
    hooks: _Hooks
    target: Target
    specs: RuntimeSpecs
    wholes: _WholeObjects
    verdicts: _Verdicts | None = None

    def __call__(self, number: int) -> tuple[_Verdict, ResolvedJob | None]:
        """The verdict on TrainJob ``number``, and the job it resolved to.

        The emitter makes the job's output when the job is clean and the run was clean
        when this process last knew: in a worker, the run's state at the fork, so a job
        may be made and then dropped by the run's process after an earlier job's error.
        """
        trainjob = self.wholes(self.trainjobs[number])
        found = self.index.lookup(trainjob)
        runtime = found if isinstance(found, DefaultedObject) else None
        resolved = None
        if runtime is not None and trainjob.schema_valid and runtime.schema_valid:
            resolved = resolve_job(
                trainjob,
                runtime,
                self.config.compile,
                plugins=registry.PLUGINS,
                specs=self.specs,
            )
        findings: list[Diagnostic] = []
        lifecycle = None
        updates: list[Diagnostic] = []
        blocked = resolved is None or self.run.blocks(trainjob, resolved.runtime)
        if resolved is not None and not blocked:
            findings = check_resolved(resolved, self.target)
            if self.hooks.check_built is not None and not self.run.judgement.fails(findings):
                findings += self.hooks.check_built(resolved)
            lifecycle = lifecycle_file(resolved)
            if self.run.base is not None:
                updates = self.run.base.update_refusals(resolved)
        elif runtime is not None and self.run.stopped_by_runtime(trainjob, runtime):
            findings.append(stopped_by_runtime(trainjob, runtime))
        findings += check_policies(self.policies, trainjob, runtime=runtime, resolved=resolved)
        verdict = _Verdict(tuple(findings), resolved is not None, lifecycle, tuple(updates))
        emitter = self.hooks.emitter
        clean = self.run.clean and verdict.clean(self.run.judgement)
        if resolved is not None and emitter is not None and clean:
            verdict = replace(verdict, product=emitter.make(resolved))
        return verdict, resolved

    def every_verdict(self, jobs: int) -> Iterator[_Verdict]:
        """The verdict on each job, in order: the cache's when it has one, the others
        judged by up to ``jobs`` processes (:func:`~trainc.engine.workers.ordered`)."""
        count = len(self.trainjobs)
        if self.verdicts is None:
            yield from ordered(self.verdict, count, jobs=jobs)
            return
        keys = [self._key(self.verdicts, number) for number in range(count)]
        kept = [self.verdicts.cache.store.has(TRAINJOBS, key) for key in keys]
        missing = [number for number in range(count) if not kept[number]]
        judged = ordered(
            lambda item: self.verdict(missing[item], keys[missing[item]]), len(missing), jobs=jobs
        )
        for number, key in enumerate(keys):
            found = self.verdicts.cache.load(TRAINJOBS, key, _Verdict) if kept[number] else None
            if found is None and kept[number]:  # an entry that would not read back
                found = self.verdict(number, key)
            yield found if found is not None else next(judged)
        judged.close()

    def verdict(self, number: int, key: str | None = None) -> _Verdict:
        """The verdict alone, what a worker sends back; kept in the cache under ``key``."""
        verdict = self(number)[0]
        if self.verdicts is not None and key is not None:
            self.verdicts.cache.save(TRAINJOBS, key, verdict)
        return verdict

    def _key(self, verdicts: _Verdicts, number: int) -> str:
        """The cache key of the verdict on job ``number`` (see :meth:`_Verdicts.key`)."""
        trainjob = self.trainjobs[number]
        found = self.index.lookup(trainjob)
        runtime = found if isinstance(found, DefaultedObject) else None
        return verdicts.key(
            trainjob,
            runtime,
            blocked=_blocked_by(self.run, trainjob, runtime),
            make=self.hooks.emitter is not None and self.run.clean,
        )


@dataclass(frozen=True, slots=True)
class _WholeObjects:
    """The whole objects behind a run's outlines (:mod:`trainc.engine.outlines`), by the
    outline's identity; any other object is its own whole."""

    whole_by_outline: dict[int, Whole]
    cache: Cache | None
    config: RepoConfig

    def __call__(self, obj: DefaultedObject) -> DefaultedObject:
        whole = self.whole_by_outline.get(id(obj))
        return obj if whole is None else whole_object(whole, self.cache, self.config)


@dataclass(frozen=True, slots=True)
class _CrossChecks:
    """The webhook checks of a TrainJob on its runtime
    (:func:`~trainc.checks.webhooks.cross_object.check_trainjob`): those made with its file's
    check when they were made on this runtime (``from_file_checks``), else the cache's,
    else made here on the whole TrainJob (and kept in the cache)."""

    from_file_checks: dict[int, CrossChecked]
    keys: ObjectKeys
    wholes: _WholeObjects
    cache: Cache | None

    def __call__(self, trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
        runtime_key = self.keys[runtime.loaded]
        from_file = self.from_file_checks.get(id(trainjob))
        if from_file is not None and from_file.runtime == runtime_key:
            return list(from_file.findings)
        if self.cache is None:
            return check_trainjob(self.wholes(trainjob), runtime)
        key = self.cache.key((self.keys[trainjob.loaded], runtime_key))
        found = self.cache.load(CROSS_CHECKS, key, list)
        if found is None:
            found = check_trainjob(self.wholes(trainjob), runtime)
            self.cache.save(CROSS_CHECKS, key, found)
        return found


@dataclass(frozen=True, slots=True)
class _Verdicts:
    """The cache of a run's TrainJob verdicts (see :mod:`trainc.engine.cache`):
    ``cache`` is narrowed by the policies and what the caller asks of each job."""

    cache: Cache
    keys: ObjectKeys

    def key(
        self,
        trainjob: DefaultedObject,
        runtime: DefaultedObject | None,
        *,
        blocked: str,
        make: bool,
    ) -> str:
        """The key of the verdict on ``trainjob`` with the ``runtime`` it found:
        ``blocked`` names which of them an earlier layer refused (see
        :func:`_blocked_by`), ``make`` is set when the caller's
        emitter makes its output."""
        return self.cache.key(
            (
                self.keys[trainjob.loaded],
                self.keys[runtime.loaded] if runtime is not None else "",
                blocked,
                "make" if make else "",
            )
        )


def _blocked_by(run: _Run, trainjob: DefaultedObject, runtime: DefaultedObject | None) -> str:
    """What stops the resolved checks of ``trainjob`` on ``runtime``, for its verdict's
    cache key: the job itself, the runtime alone (the verdict then says so), or nothing."""
    if runtime is None:
        return ""
    if run.stopped_by_runtime(trainjob, runtime):
        return "runtime"
    return "blocked" if run.blocks(trainjob, runtime) else ""


def _verdicts(
    cache: Cache | None,
    keys: ObjectKeys,
    policies: PolicySet,
    base: BaseRevision | None,
    hooks: _Hooks,
) -> _Verdicts | None:
    """The cache of the run's TrainJob verdicts, or None when a verdict would not be the
    cache's to give: with ``--base`` (the base revision is part of it), for a caller that
    needs every resolved job (``on_resolved``), or an emitter that names no product."""
    if cache is None or base is not None or hooks.on_resolved is not None:
        return None
    emitter = hooks.emitter
    product = "" if emitter is None else emitter.cache_key
    if product is None:
        return None
    built = "built" if hooks.check_built is not None else ""
    return _Verdicts(cache.narrowed((policies_digest(policies.sources), built, product)), keys)


def _check_trainjobs(
    objects: Sequence[DefaultedObject],
    index: RuntimeIndex,
    config: RepoConfig,
    policies: PolicySet,
    *,
    run: _Run,
    progress: Progress | None,
    hooks: _Hooks,
    jobs: int,
    wholes: _WholeObjects,
    verdicts: _Verdicts | None = None,
) -> list[Diagnostic]:
    """Resolve and check each TrainJob, with its policies, in (namespace, name) order.

    A job the resolved checks pass has its built objects judged (``hooks.check_built``).
    With a base revision, each JobSet is also compared with the one its TrainJob
    deployed (the findings come from :meth:`BaseRevision.update_findings` once every job
    is checked). A TrainJob is still resolved when it or its runtime has errors
    (policies read what it resolves to), but not judged further when the cluster would
    refuse either (:mod:`trainc.engine.blocking`): no JobSet or Job would exist, and
    the findings about those would only repeat the first mistake. A job stopped by its
    runtime alone says so; an organisation policy's violation stops nothing.

    Without an ``on_resolved`` hook (which needs the resolved job in this process), up
    to ``jobs`` worker processes judge the jobs (:func:`~trainc.engine.workers.ordered`);
    their verdicts are taken here in the same order, so the findings, the clean state
    and what the emitter is given are those of one process. With ``verdicts`` (a cache),
    a job's verdict is taken from there when it holds one for the job's key, and only
    the other jobs are judged (``wholes`` gives the whole of an outlined TrainJob).
    A finding a runtime's value causes in several TrainJobs is reported once, counting
    them (:func:`~trainc.checks.shared.whose.merge_shared`).
    """
    trainjobs = sorted(
        (obj for obj in objects if obj.kind == TRAINJOB.kind),
        key=lambda obj: (obj.namespace or "", obj.name),
    )
    target = Target(
        parse_version(config.kubernetes_version),
        run.judgement,
        config.sweeper.schedule if config.sweeper is not None else None,
    )
    judge = _Judge(
        trainjobs, index, config, policies, run, hooks, target, RuntimeSpecs(), wholes, verdicts
    )
    judged: Iterator[tuple[_Verdict, ResolvedJob | None]]
    if hooks.on_resolved is None:
        judged = ((verdict, None) for verdict in judge.every_verdict(jobs))
    else:
        judged = (judge(number) for number in range(len(trainjobs)))
    enforcement = Enforcement(config)
    diagnostics: list[Diagnostic] = []
    for done, (verdict, resolved) in enumerate(judged, 1):
        diagnostics.extend(run.judgement(verdict.findings))
        enforcement.add(verdict.lifecycle)
        if run.base is not None and verdict.resolved:
            run.base.record_update(trainjobs[done - 1], verdict.updates)
        run.clean = run.clean and verdict.clean(run.judgement)
        if resolved is not None and hooks.on_resolved is not None:
            hooks.on_resolved(resolved, run.clean)
        if verdict.resolved and run.clean and hooks.emitter is not None:
            hooks.emitter.take(verdict.product)
        if progress is not None:
            progress(done, len(trainjobs))
    diagnostics.extend(run.judgement(enforcement.findings()))
    return merge_shared(diagnostics)
