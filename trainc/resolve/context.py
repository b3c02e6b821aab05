"""The shared, mutable state of one TrainJob's resolution, as upstream's ``runtime.Info``.

A fresh context per job. Enforce phases amend the working JobSet spec and the pod
counts, recording in the trace where each value they write comes from; the last phase
settles the JobSet as the API server stores it. Accessors here are the one place that
knows the JobSet template's shape, so plugins stay short.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field

from trainc.config.settings import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.errors import CompilerBug
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject, as_list, get_path
from trainc.model.labels import ANCESTOR_LABEL, ANCESTOR_TRAINER
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.model.trainjob import TrainJobSpec
from trainc.records import dataclass
from trainc.resolve.provenance import Derived, Origin, Trace, Written
from trainc.resolve.resolved import Claim, PodSet
from trainc.resolve.resources import Amounts


@dataclass(frozen=True, slots=True, eq=False)
class Joined:
    """A schema-valid TrainJob joined with its runtime, before any plugin ran.

    ``template`` is the runtime's JobSet spec with the TrainJob's runtime patches and
    ``resourcesPerNode`` applied, as plugins read "the runtime's" values: it is never
    changed. ``pod_sets`` are the counts before the plugins adjust them.
    """

    trainjob: DefaultedObject
    runtime: DefaultedObject
    spec: TrainJobSpec
    runtime_spec: TrainingRuntimeSpec
    template: JsonObject
    pod_sets: tuple[PodSet, ...]

    @property
    def name(self) -> str:
        """TrainJob name, which is also the JobSet's name."""
        return self.trainjob.name

    @property
    def namespace(self) -> str:
        """Namespace of the TrainJob and of everything built for it."""
        return self.trainjob.required_namespace()


@dataclass(slots=True)
class CountedPodSet:
    """A PodSet whose pod count the plugins may still change, with where the count is set."""

    name: str
    ancestor: str | None
    count: int
    requests: Amounts
    count_origin: Written

    @classmethod
    def of(cls, pod_set: PodSet) -> CountedPodSet:
        """A mutable copy of a joined PodSet."""
        return cls(
            pod_set.name,
            pod_set.ancestor,
            pod_set.count,
            dict(pod_set.requests),
            pod_set.count_origin,
        )

    def frozen(self) -> PodSet:
        """The final PodSet."""
        return PodSet(self.name, self.ancestor, self.count, self.requests, self.count_origin)


@dataclass(slots=True, kw_only=True)
class Resolution:
    """Everything the plugins read and amend while one TrainJob is resolved.

    ``jobset_spec`` and ``jobset_metadata`` are the working JobSet, owned by this
    resolution (nothing in them is shared with the inputs) and traced in ``trace``.
    ``pod_labels`` and ``pod_annotations`` are the gang scheduler's pod marks, each with
    its origin, put on every pod template when the JobSet is settled. ``extensions``
    is state a plugin keeps for its own checks of the resolved job (see
    :meth:`put_extension`).
    """

    job: Joined
    settings: CompileSettings
    jobset_spec: JsonObject
    jobset_metadata: JsonObject
    trace: Trace
    pod_sets: list[CountedPodSet]
    pod_labels: dict[str, tuple[str, Origin]] = field(default_factory=dict)
    pod_annotations: dict[str, tuple[str, Origin]] = field(default_factory=dict)
    findings: list[Diagnostic] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    extensions: dict[type, object] = field(default_factory=dict)

    def put_extension(self, state: object) -> None:
        """Keep ``state`` in the resolved job, replacing any earlier value of its type.

        A plugin's own state (what Torch chose TorchTune's recipe from) is keyed by its
        type, which the plugin's module defines: the core stores it without knowing any
        plugin, and the plugin's checks read it back typed
        (:meth:`~trainc.resolve.resolved.ResolvedJob.extension`).
        """
        self.extensions[type(state)] = state

    def trainjob_at(self, *path: str | int) -> Written:
        """The origin of a value the TrainJob writes at ``path``."""
        return Written(self.job.trainjob, path)

    def runtime_at(self, *path: str | int) -> Written:
        """The origin of a value the runtime writes at ``path``."""
        return Written(self.job.runtime, path)

    def derived(self, plugin: str, rule: str, cause: Written) -> Derived:
        """The origin of a value trainc's ``plugin`` computes by ``rule`` from ``cause``."""
        return Derived(f"trainc's {plugin} plugin", rule, cause)

    def origin_in_spec(self, path: FieldPath) -> Origin:
        """Where the value at ``path`` of the working JobSet spec came from so far."""
        found = self.trace.origin(self.jobset_spec, path)
        return found if found is not None else self.runtime_at("spec", "template", "spec", *path)

    def cause_at(self, path: FieldPath) -> Written:
        """The input line behind the value at ``path`` of the working spec (a derived
        value's cause), for the origin of what a plugin derives from it."""
        origin = self.origin_in_spec(path)
        return origin.cause if isinstance(origin, Derived) else origin

    def replicated_jobs(self) -> Iterator[JsonObject]:
        """The replicatedJobs of the working JobSet spec, in runtime order."""
        for job in as_list(self.jobset_spec.get("replicatedJobs")):
            if isinstance(job, dict):
                yield job

    def replicated_job(self, name: str) -> JsonObject | None:
        """The replicatedJob called ``name``."""
        return next((job for job in self.replicated_jobs() if job.get("name") == name), None)

    def job_path(self, job: JsonObject) -> FieldPath:
        """The path of a replicatedJob of the working spec."""
        jobs = as_list(self.jobset_spec.get("replicatedJobs"))
        index = next((i for i, candidate in enumerate(jobs) if candidate is job), None)
        if index is None:
            raise CompilerBug("job_path() of a job outside the working spec")
        return ("replicatedJobs", index)

    def job_cause(self, job: JsonObject, *relative: str | int) -> Written:
        """The input line behind a replicatedJob (or a value ``relative`` below it)."""
        return self.cause_at((*self.job_path(job), *relative))

    def pod_set(self, name: str) -> CountedPodSet | None:
        """The PodSet of replicatedJob ``name``."""
        return next((pod_set for pod_set in self.pod_sets if pod_set.name == name), None)

    def trainer_pod_set(self) -> CountedPodSet | None:
        """The first PodSet labelled as the trainer step, as Torch/JAX/XGBoost find it."""
        return next((p for p in self.pod_sets if p.ancestor == ANCESTOR_TRAINER), None)

    def jobs_with_ancestor(self, ancestor: str) -> Iterator[JsonObject]:
        """replicatedJobs labelled with ``ancestor``."""
        return (job for job in self.replicated_jobs() if ancestor_of(job) == ancestor)


def ancestor_of(job: JsonObject) -> str | None:
    """The ``trainer.kubeflow.org/trainjob-ancestor-step`` label of a replicatedJob."""
    value = get_path(job, ("template", "metadata", "labels", ANCESTOR_LABEL))
    return value if isinstance(value, str) else None


def pod_spec(job: JsonObject) -> JsonObject:
    """The pod spec of a replicatedJob, created if missing so callers can amend it."""
    return _child(pod_template(job), "spec")


def pod_template(job: JsonObject) -> JsonObject:
    """The pod template (metadata + spec) of a replicatedJob, created if missing."""
    return _child(_child(_child(job, "template"), "spec"), "template")


def containers(pod: JsonObject, key: str = "containers") -> list[JsonObject]:
    """The containers (or ``initContainers``) of a pod spec that are mappings."""
    return [c for c in as_list(pod.get(key)) if isinstance(c, dict)]


def container(pod: JsonObject, name: str, key: str = "containers") -> JsonObject | None:
    """The container called ``name``, or None."""
    return next((c for c in containers(pod, key) if c.get("name") == name), None)


def _child(parent: JsonObject, key: str) -> JsonObject:
    child = parent.get(key)
    if not isinstance(child, dict):
        child = parent[key] = {}
    return child
