"""The job pass: each TrainJob resolved, judged, built, its output checked and rendered,
in (namespace, name) order.

Per job, the engine calls the stages itself, each a pure function of what the run
prepared: resolve (:mod:`trainc.resolve`), the checks of the created objects
(:mod:`trainc.checks.created`), the organisation policies, the build
(:mod:`trainc.build`) with the apply limits its objects meet
(:mod:`trainc.checks.apply_limits`), and, for a compile while the run is clean, the
output stage (:mod:`trainc.engine.output`). :class:`JobStages` says which of them a
command wants; nothing calls back into the command.

Jobs are judged in worker processes (:mod:`trainc.engine.workers`) and their verdicts
taken in the same order, so the findings and output are those of one process. A run
that keeps each resolved job (``trainc diff``, ``explain``, ``prune``) judges them in
its own process: a resolved job holds its trace by object identity and cannot cross.
With a cache (:mod:`trainc.engine.cache`), a TrainJob whose inputs did not change is
not judged again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING

from trainc.build.job import BuiltJob, build_job
from trainc.checks.apply_limits import check_apply_limits
from trainc.checks.created.childjobs import resolved_child_jobs
from trainc.checks.created.resolved_job import Target, check_resolved
from trainc.checks.shared.whose import merge_shared
from trainc.checks.workload.version import parse_version
from trainc.config.judgement import Judgement
from trainc.config.settings import DEPLOY_TRAINJOB, RepoConfig
from trainc.config.sweeper import Enforcement, lifecycle_file
from trainc.diagnostics import Diagnostic
from trainc.engine.admission import RunCluster, judge_admission
from trainc.engine.blocking import stopped_by_runtime
from trainc.engine.cache import TRAINJOBS, Cache, ObjectKeys, policies_digest
from trainc.engine.progress import Progress
from trainc.engine.wholes import WholeHandle, WholeObjects
from trainc.engine.workers import ordered
from trainc.load.defaulted import DefaultedObject
from trainc.model.kinds import TRAINJOB
from trainc.plugins import registry
from trainc.policy.apply import PolicySet, check_policies
from trainc.records import dataclass
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.resolved import ResolvedJob

if TYPE_CHECKING:
    # Types only: the base revision is loaded by --base runs, the output stage by
    # compile; a single-file validate (the pre-commit hook) imports neither.
    from trainc.checks.transitions.base import BaseRevision
    from trainc.engine.output import CompileOutput, Product

#: A finding's origin, to match it with the objects it is about: file, kind, namespace, name.
OriginKey = tuple[str | None, str | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class JobStages:
    """What a command asks of each TrainJob beyond its checks.

    ``build``: the objects of each job that passed its checks are built and judged on
    their way into the cluster (validate and compile alike, so both give one verdict).
    ``keep``: every resolved job is kept in the outcome, with what was built of it
    (``trainc diff`` compares whole outputs, ``explain`` traces them, ``prune`` edits
    their files). ``output``: a compile's output, made of each job while the run is clean.
    """

    build: bool = False
    keep: bool = False
    output: CompileOutput | None = None


@dataclass(frozen=True, slots=True)
class KeptJob:
    """A resolved TrainJob, what was built of it (None when its checks failed or nothing
    is built), and whether the run was clean once it was judged."""

    resolved: ResolvedJob
    built: BuiltJob | None
    clean: bool


@dataclass(frozen=True, slots=True)
class JobPassResult:
    """The findings of the job pass, and the jobs :attr:`JobStages.keep` asked for."""

    diagnostics: list[Diagnostic]
    kept: tuple[KeptJob, ...] = ()


@dataclass(slots=True)
class JobRun:
    """What the run found before TrainJobs are resolved: whether it is clean, the
    objects with errors (as :func:`origin_key` names them), the base revision that
    deployed JobSets are compared with (``--base``), and what the repository's rule
    levels and suppressions make of each finding."""

    clean: bool
    erroneous: set[OriginKey]
    base: BaseRevision | None = None
    judgement: Judgement = field(default_factory=Judgement)

    def blocks(self, *objects: DefaultedObject) -> bool:
        """Whether one of ``objects`` already has an error that stops the resolved checks
        (:func:`~trainc.engine.blocking.stops_later_checks`)."""
        if not self.erroneous:  # a clean repository: asked of every TrainJob, twice
            return False
        return any(key in self.erroneous for obj in objects for key in _object_keys(obj))

    def stopped_by_runtime(self, trainjob: DefaultedObject, runtime: DefaultedObject) -> bool:
        """Whether only ``runtime`` keeps ``trainjob``, sound itself, from being judged."""
        if not trainjob.schema_valid or self.blocks(trainjob):
            return False
        return not runtime.schema_valid or self.blocks(runtime)


def origin_key(diagnostic: Diagnostic) -> OriginKey:
    """What a finding is about, as :meth:`JobRun.blocks` matches it with objects."""
    return (diagnostic.file, diagnostic.kind, diagnostic.namespace, diagnostic.name)


def _object_keys(obj: DefaultedObject) -> tuple[OriginKey, ...]:
    """The :func:`origin_key` of findings about ``obj``: those made on the loaded object
    name the namespace it was written with (None when it names none), the others its
    effective namespace."""
    path, kind, name = obj.loaded.path, obj.kind, obj.name
    return ((path, kind, obj.namespace, name), (path, kind, obj.loaded.namespace, name))


@dataclass(frozen=True, slots=True)
class JobPassInput:
    """What the job pass works on: the run's objects with their runtime index, the
    settings and policies, the whole objects behind the outlined TrainJobs, and the
    cluster whose admission judges each job's objects (None without ``cluster:``)."""

    objects: Sequence[DefaultedObject]
    index: RuntimeIndex
    config: RepoConfig
    policies: PolicySet
    wholes: WholeObjects
    cluster: RunCluster | None = None


@dataclass(frozen=True, slots=True)
class _Verdict:
    """One TrainJob judged: what the run's process needs of it, and nothing that cannot
    cross from a worker process (a resolved job holds its trace by object identity).

    ``lifecycle`` is its file when its JobSet carries lifecycle settings
    (:class:`~trainc.config.sweeper.Enforcement`); ``updates`` what the base
    revision's JobSet refuses of it (``--base``); ``product`` what the output stage
    made of it, when the run may still be clean.
    """

    findings: tuple[Diagnostic, ...]
    resolved: bool = False
    lifecycle: str | None = None
    updates: tuple[Diagnostic, ...] = ()
    product: Product | None = None

    def clean(self, judgement: Judgement) -> bool:
        """Whether the job has no error once judged, a refused update included."""
        return not judgement.fails((*self.findings, *self.updates))


@dataclass(frozen=True, slots=True)
class _Judged:
    """A verdict, with the job it resolved to and what was built of it (in the run's
    process only)."""

    verdict: _Verdict
    resolved: ResolvedJob | None = None
    built: BuiltJob | None = None


@dataclass(frozen=True, slots=True)
class _Verdicts:
    """The cache of a run's TrainJob verdicts (see :mod:`trainc.engine.cache`):
    ``cache`` is narrowed by the policies and what the command asks of each job."""

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
        :func:`_blocked_by`), ``make`` is set when the output stage makes its output."""
        return self.cache.key(
            (
                self.keys[trainjob.loaded],
                self.keys[runtime.loaded] if runtime is not None else "",
                blocked,
                "make" if make else "",
            )
        )


@dataclass(frozen=True, slots=True)
class _Judge:
    """Resolves and judges one TrainJob from what the run prepared: in the run's process,
    or in a worker forked after the preparation (:mod:`trainc.engine.workers`)."""

    trainjobs: Sequence[DefaultedObject]
    work: JobPassInput
    run: JobRun
    stages: JobStages
    target: Target
    specs: RuntimeSpecs
    verdicts: _Verdicts | None = None

    def __call__(self, number: int) -> _Judged:
        """The verdict on TrainJob ``number``, the job it resolved to and its build."""
        return self.judge(self.work.wholes(self.trainjobs[number]))

    def judge(self, trainjob: DefaultedObject) -> _Judged:
        """The verdict on the whole ``trainjob``, the job it resolved to and its build.

        The output stage makes the job's output when the job is clean and the run was
        clean when this process last knew: in a worker, the run's state at the fork, so a
        job may be made and then dropped by the run's process after an earlier job's error.
        """
        config = self.work.config
        found = self.work.index.lookup(trainjob)
        runtime = found if isinstance(found, DefaultedObject) else None
        resolved = None
        if runtime is not None and trainjob.schema_valid and runtime.schema_valid:
            resolved = resolve_job(
                trainjob, runtime, config.compile, plugins=registry.PLUGINS, specs=self.specs
            )
        findings: list[Diagnostic] = []
        lifecycle = None
        updates: list[Diagnostic] = []
        built = None
        blocked = resolved is None or self.run.blocks(trainjob, resolved.runtime)
        if resolved is not None and not blocked:
            children = resolved_child_jobs(resolved)
            findings = check_resolved(resolved, self.target, children)
            if self.stages.build and not self.run.judgement.fails(findings):
                built = build_job(resolved)
                server_side = config.compile.server_side_apply
                findings += check_apply_limits(resolved, built.objects, server_side=server_side)
            base = self.run.base
            # Resolved at the base once, for the admission's UPDATEs and the update checks.
            deployed = base.deployed(resolved.trainjob) if base is not None else None
            cluster = self.work.cluster
            if cluster is not None and not self.run.judgement.fails(findings):
                # A validate builds nothing else: the objects are built for the cluster only.
                applied = (built if built is not None else build_job(resolved)).objects
                findings += judge_admission(
                    resolved,
                    cluster,
                    self.target.version,
                    applied,
                    children,
                    through_trainer=config.deploy == DEPLOY_TRAINJOB,
                    base=base,
                    deployed=deployed,
                )
            lifecycle = lifecycle_file(resolved)
            if base is not None:
                updates = base.update_refusals(resolved, deployed)
        elif runtime is not None and self.run.stopped_by_runtime(trainjob, runtime):
            findings.append(stopped_by_runtime(trainjob, runtime))
        policies = self.work.policies
        findings += check_policies(policies, trainjob, runtime=runtime, resolved=resolved)
        verdict = _Verdict(tuple(findings), resolved is not None, lifecycle, tuple(updates))
        output = self.stages.output
        clean = self.run.clean and verdict.clean(self.run.judgement)
        if resolved is not None and output is not None and clean:
            made = output.make(built if built is not None else build_job(resolved))
            verdict = replace(verdict, product=made)
        return _Judged(verdict, resolved, built)

    def every_verdict(self, jobs: int) -> Iterator[_Verdict]:
        """The verdict on each job, in order: the cache's when it has one, the others
        judged by up to ``jobs`` processes (:func:`~trainc.engine.workers.ordered`)."""
        count = len(self.trainjobs)
        wholes = self.work.wholes
        if self.verdicts is None:
            yield from ordered(
                self._sent, [wholes.handle(job) for job in self.trainjobs], jobs=jobs
            )
            return
        # Asked once: the run's clean state changes as the verdicts are taken.
        make = self.stages.output is not None and self.run.clean
        keys = [self._key(self.verdicts, number, make=make) for number in range(count)]
        kept = [self.verdicts.cache.store.has(TRAINJOBS, key) for key in keys]
        missing = [
            wholes.handle(job) for job, hit in zip(self.trainjobs, kept, strict=True) if not hit
        ]
        judged = ordered(self._sent, missing, jobs=jobs)
        cache = self.verdicts.cache
        for number, key in enumerate(keys):
            found = cache.load(TRAINJOBS, key, _Verdict) if kept[number] else None
            if found is None:  # not kept, or an entry that would not read back
                found = next(judged) if not kept[number] else self.verdict(number)
                if not make or self._made_as_keyed(found):
                    cache.save(TRAINJOBS, key, found)  # here: a pack has one writer
            yield found
        judged.close()

    def verdict(self, number: int) -> _Verdict:
        """The verdict alone on TrainJob ``number``."""
        return self(number).verdict

    def _sent(self, handle: WholeHandle) -> _Verdict:
        """The verdict on the TrainJob ``handle`` stands for, what a worker is sent and
        sends back: the handle, not the job's number, so the worker does not touch the
        run's outlines (:mod:`trainc.engine.workers`)."""
        return self.judge(self.work.wholes.read(handle)).verdict

    def _made_as_keyed(self, verdict: _Verdict) -> bool:
        """Whether ``verdict``, judged under a key that asks for the job's output, is
        what that key names: not when the job is clean and resolved but its output was
        not made, because the run had found an error by the time it was judged (in this
        process, or in a worker when it forked). Kept, it would give a later clean run
        the job without its output."""
        clean = verdict.clean(self.run.judgement)
        return verdict.product is not None or not verdict.resolved or not clean

    def _key(self, verdicts: _Verdicts, number: int, *, make: bool) -> str:
        """The cache key of the verdict on job ``number`` (see :meth:`_Verdicts.key`);
        ``make``: the output stage makes the outputs of clean jobs."""
        trainjob = self.trainjobs[number]
        found = self.work.index.lookup(trainjob)
        runtime = found if isinstance(found, DefaultedObject) else None
        return verdicts.key(
            trainjob,
            runtime,
            blocked=_blocked_by(self.run, trainjob, runtime),
            make=make,
        )


def _blocked_by(run: JobRun, trainjob: DefaultedObject, runtime: DefaultedObject | None) -> str:
    """What stops the resolved checks of ``trainjob`` on ``runtime``, for its verdict's
    cache key: the job itself, the runtime alone (the verdict then says so), or nothing."""
    if runtime is None:
        return ""
    if run.stopped_by_runtime(trainjob, runtime):
        return "runtime"
    return "blocked" if run.blocks(trainjob, runtime) else ""


def verdict_cache(
    cache: Cache | None,
    keys: ObjectKeys,
    policies: PolicySet,
    run: JobRun,
    stages: JobStages,
    cluster: RunCluster | None = None,
) -> _Verdicts | None:
    """The cache of the run's TrainJob verdicts, or None when a verdict would not be the
    cache's to give: with ``--base`` (the base revision is part of it), or for a command
    that keeps every resolved job. A verdict depends on the cluster's documents too."""
    if cache is None or run.base is not None or stages.keep:
        return None
    product = "" if stages.output is None else stages.output.cache_key
    built = "built" if stages.build else ""
    admitted = cluster.digest if cluster is not None else ""
    parts = (policies_digest(policies.sources), built, product, admitted)
    return _Verdicts(cache.narrowed(parts), keys)


def check_trainjobs(
    work: JobPassInput,
    run: JobRun,
    stages: JobStages,
    *,
    progress: Progress | None,
    jobs: int,
    verdicts: _Verdicts | None = None,
) -> JobPassResult:
    """Resolve and check each TrainJob, with its policies, in (namespace, name) order.

    A job the resolved checks pass is built and its objects judged when
    :attr:`JobStages.build` asks for it. With a base revision, each JobSet is also
    compared with the one its TrainJob deployed (the findings come from
    :meth:`~trainc.checks.transitions.base.BaseRevision.update_findings` once every job
    is checked). A TrainJob is still resolved when it or its runtime has errors
    (policies read what it resolves to), but not judged further when the cluster would
    refuse either (:mod:`trainc.engine.blocking`): no JobSet or Job would exist, and
    the findings about those would only repeat the first mistake. A job stopped by its
    runtime alone says so; an organisation policy's violation stops nothing.

    Unless every resolved job is kept (which needs it in this process), up to ``jobs``
    worker processes judge the jobs (:func:`~trainc.engine.workers.ordered`); their
    verdicts are taken here in the same order, so the findings, the clean state and
    what the output stage is given are those of one process. With ``verdicts`` (a
    cache), a job's verdict is taken from there when it holds one for the job's key,
    and only the other jobs are judged. A finding a runtime's value causes in several
    TrainJobs is reported once, counting them
    (:func:`~trainc.checks.shared.whose.merge_shared`).
    """
    trainjobs = sorted(
        (obj for obj in work.objects if obj.kind == TRAINJOB.kind),
        key=lambda obj: (obj.namespace or "", obj.name),
    )
    config = work.config
    target = Target(
        parse_version(config.kubernetes_version),
        run.judgement,
        config.sweeper.schedule if config.sweeper is not None else None,
    )
    judge = _Judge(trainjobs, work, run, stages, target, RuntimeSpecs(), verdicts)
    judged: Iterator[_Judged]
    if stages.keep:
        judged = (judge(number) for number in range(len(trainjobs)))
    else:
        judged = (_Judged(verdict) for verdict in judge.every_verdict(jobs))
    enforcement = Enforcement(config)
    diagnostics: list[Diagnostic] = []
    kept: list[KeptJob] = []
    for done, one in enumerate(judged, 1):
        verdict = one.verdict
        diagnostics.extend(run.judgement(verdict.findings))
        enforcement.add(verdict.lifecycle)
        if run.base is not None and verdict.resolved:
            run.base.record_update(trainjobs[done - 1], verdict.updates)
        run.clean = run.clean and verdict.clean(run.judgement)
        if one.resolved is not None:
            kept.append(KeptJob(one.resolved, one.built, run.clean))
        if verdict.product is not None and verdict.resolved and run.clean and stages.output:
            stages.output.take(verdict.product)
        if progress is not None:
            progress(done, len(trainjobs))
    diagnostics.extend(run.judgement(enforcement.findings()))
    return JobPassResult(merge_shared(diagnostics), tuple(kept))
