"""Validation layers in the API server's order, over every object of a run.

Per object: migration hints, the structural schema check (with ObjectMeta rules), CRD
defaults, then CEL rules. Across objects: the webhook-equivalent checks. Then the job
pass (:mod:`trainc.engine.job_pass`): each TrainJob resolved, checked as the cluster
will judge its JobSet and Jobs, with the organisation policies, built and rendered as
the command asks; with ``--base``, transition rules against the same objects at that
revision, and each JobSet against the one its TrainJob deployed
(:mod:`trainc.checks.transitions.base`). Every layer adds to one diagnostics list; none
stops the others.

Objects come checked on their own (:mod:`trainc.engine.file_pass`), TrainJobs as outlines
(:mod:`trainc.engine.outlines`) whose whole objects are read back only to judge them;
with a cache (:mod:`trainc.engine.cache`), a TrainJob whose inputs did not change is
not judged again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from trainc.checks.webhooks.cross_object import check_cross_object, check_trainjob, document_order
from trainc.checks.webhooks.elsewhere import rest_of_repository
from trainc.config.judgement import Judgement
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic, exit_code
from trainc.engine.admission import RunCluster
from trainc.engine.blocking import stops_later_checks
from trainc.engine.cache import CROSS_CHECKS, Cache, ObjectKeys
from trainc.engine.file_pass import CheckedObject, CrossChecked, Whole, check_object
from trainc.engine.job_pass import (
    JobPassInput,
    JobRun,
    JobStages,
    KeptJob,
    check_trainjobs,
    origin_key,
    verdict_cache,
)
from trainc.engine.progress import Progress
from trainc.engine.wholes import WholeObjects
from trainc.load.declared import Declared
from trainc.load.defaulted import DefaultedObject, effective_namespace
from trainc.load.documents import LoadedObject
from trainc.model.kinds import TRAINJOB
from trainc.policy.apply import PolicySet, check_policies
from trainc.records import dataclass
from trainc.resolve.index import RuntimeIndex

if TYPE_CHECKING:
    from trainc.checks.transitions.base import BaseRevision  # loaded by --base runs only
    from trainc.engine.spill import SpillFile  # the run makes one without a cache only


@dataclass(frozen=True, slots=True)
class Surroundings:
    """What a run on named paths knows of the rest of the repository.

    ``context_files`` are files read only to find the targets' runtimes (every TrainJob
    is a target): findings in those that no target uses are left out. ``elsewhere`` are
    runtimes of the repository that are not checked, named to a TrainJob whose runtime is
    not found (a suggestion of the right name); ``declared`` are the TrainJobs of the
    files a run on named files does not check, given when the checked objects must not
    clash with the rest of the repository: a checked object whose name clashes with one
    of those or of ``elsewhere`` is the one reported
    (:mod:`trainc.checks.webhooks.elsewhere`).
    """

    context_files: frozenset[str] = frozenset()
    elsewhere: Sequence[LoadedObject] = ()
    declared: Sequence[Declared] | None = None


@dataclass(frozen=True, slots=True)
class PassChoices:
    """How a run validates its objects.

    ``base`` (``--base``) enables the transition rules. ``clean`` says whether the caller
    found no error before (loading, policies). ``progress(done, total)`` is called after
    each object's own checks and ``job_progress`` after each TrainJob is judged.
    ``stages`` says what becomes of each TrainJob beyond its checks
    (:class:`~trainc.engine.job_pass.JobStages`). ``jobs`` is how many processes may
    judge the TrainJobs; the outcome is the same whatever it is. ``cache`` keeps each
    TrainJob's verdict and cross-object checks (:mod:`trainc.engine.cache`): a run takes
    them from there when nothing they depend on changed. ``judgement`` (default: none)
    sets every finding's level and drops the suppressed ones before anything is decided
    on them (:mod:`trainc.config.judgement`); the cache keeps findings as found.
    ``cluster`` is the cluster whose admission judges each TrainJob's objects (None
    without a ``cluster`` section: no admission is judged). ``spill`` holds the whole
    objects behind the outlines when no cache does (:mod:`trainc.engine.spill`).
    """

    base: BaseRevision | None = None
    clean: bool = True
    progress: Progress | None = None
    job_progress: Progress | None = None
    stages: JobStages = field(default_factory=JobStages)
    jobs: int = 1
    cache: Cache | None = None
    judgement: Judgement | None = None
    cluster: RunCluster | None = None
    spill: SpillFile | None = None


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    """Objects with defaults applied, the run's runtime index, and everything found.

    ``hidden`` are the context files no target uses: their findings are left out.
    ``kept`` holds each resolved TrainJob when :attr:`JobStages.keep` asked for them.
    """

    objects: tuple[DefaultedObject, ...]
    diagnostics: tuple[Diagnostic, ...]
    index: RuntimeIndex
    hidden: frozenset[str] = frozenset()
    kept: tuple[KeptJob, ...] = ()


_ALONE = Surroundings()
_DEFAULT_CHOICES = PassChoices()


def validate_objects(
    objects: Sequence[LoadedObject | CheckedObject],
    config: RepoConfig,
    policies: PolicySet,
    *,
    surroundings: Surroundings = _ALONE,
    choices: PassChoices = _DEFAULT_CHOICES,
) -> ValidationOutcome:
    """Run every validation layer over ``objects``, in ``surroundings`` (by default, the
    objects are the whole repository), as ``choices`` say.

    ``objects`` already checked on their own (:mod:`trainc.engine.file_pass`) are not
    checked again.
    """
    judge = choices.judgement if choices.judgement is not None else Judgement()
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
        if choices.progress is not None:
            choices.progress(done, len(objects))
    cache, base = choices.cache, choices.base
    wholes = WholeObjects(whole_by_outline, cache, config, choices.spill)
    if base is not None:  # the transition rules read every field of every object
        checked = [wholes(obj) for obj in checked]
    keys = ObjectKeys()
    elsewhere = surroundings.elsewhere
    index = RuntimeIndex(
        document_order(checked),
        elsewhere=((o.kind, effective_namespace(o, config.namespace), o.name) for o in elsewhere),
    )
    trainjob_checks = _CrossChecks(from_file_checks, keys, wholes, cache)
    declared = surroundings.declared
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
    hidden = surroundings.context_files - _used_runtime_files(checked, index)
    visible = judge(d for d in diagnostics if d.file not in hidden)
    clean = choices.clean and not exit_code(visible)
    erroneous = {origin_key(d) for d in visible if stops_later_checks(d)}
    transitions = judge(base.check_transitions(checked)) if base is not None else []
    run = JobRun(clean and not exit_code(transitions), erroneous, base, judge)
    jobs = check_trainjobs(
        JobPassInput(checked, index, config, policies, wholes, choices.cluster),
        run,
        choices.stages,
        progress=choices.job_progress,
        jobs=choices.jobs,
        verdicts=verdict_cache(cache, keys, policies, run, choices.stages, choices.cluster),
    )
    visible += jobs.diagnostics
    visible += transitions
    if base is not None:
        visible += judge(base.update_findings())
    found = tuple(d for d in visible if d.file not in hidden)
    return ValidationOutcome(tuple(checked), found, index, hidden, jobs.kept)


def _used_runtime_files(objects: Sequence[DefaultedObject], index: RuntimeIndex) -> set[str]:
    """Files of the runtimes some TrainJob uses: findings in them concern the targets."""
    used = set()
    for obj in objects:
        if obj.kind == TRAINJOB.kind:
            runtime = index.lookup(obj)
            if isinstance(runtime, DefaultedObject):
                used.add(runtime.loaded.path)
    return used


@dataclass(frozen=True, slots=True)
class _CrossChecks:
    """The webhook checks of a TrainJob on its runtime
    (:func:`~trainc.checks.webhooks.cross_object.check_trainjob`): those made with its file's
    check when they were made on this runtime (``from_file_checks``), else the cache's,
    else made here on the whole TrainJob (and kept in the cache)."""

    from_file_checks: dict[int, CrossChecked]
    keys: ObjectKeys
    wholes: WholeObjects
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
