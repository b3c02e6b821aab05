"""A TrainJob joined with its runtime: the build context's immutable input.

This is Trainer's ``newRuntimeInfo`` (``upstream-semantics.md`` §2.1 step 3): runtime
patches first, then ``resourcesPerNode`` merged into the trainer's ``node`` container,
then one PodSet per replicatedJob with its pod count and one pod's requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trainc.errors import CompilerBug
from trainc.model.decode import decode
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.model.labels import ANCESTOR_LABEL, ANCESTOR_TRAINER, NODE_CONTAINER, NODE_JOB
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.model.schematree import load_kind_schema
from trainc.model.trainjob import TrainJobSpec
from trainc.resolve.objects import DefaultedObject
from trainc.resolve.patches import apply_runtime_patches
from trainc.resolve.resources import Amounts, merge_resources, pod_requests


@dataclass(frozen=True, slots=True)
class PodSet:
    """One replicatedJob as the plugins count it: pods and what one pod requests."""

    name: str
    ancestor: str | None
    count: int
    requests: Amounts


@dataclass(frozen=True, slots=True, eq=False)
class ResolvedJob:
    """A schema-valid TrainJob with its runtime, patched and merged, ready to build."""

    trainjob: DefaultedObject
    runtime: DefaultedObject
    spec: TrainJobSpec
    runtime_spec: TrainingRuntimeSpec
    jobset_metadata: JsonObject
    jobset_spec: JsonObject
    pod_sets: tuple[PodSet, ...]

    @property
    def name(self) -> str:
        """TrainJob name, which is also the JobSet's name."""
        return self.trainjob.name

    @property
    def namespace(self) -> str:
        """Namespace of the TrainJob and of everything built for it."""
        if self.trainjob.namespace is None:
            raise CompilerBug(f"TrainJob {self.name} has no effective namespace")
        return self.trainjob.namespace


class RuntimeSpecs:
    """The typed spec of each runtime, decoded once however many TrainJobs use it.

    One instance serves one build: it maps a runtime object's identity to the runtime
    and its spec, so the object stays alive and its id cannot be reused while cached.
    Decoding is pure and the typed spec is only read, so sharing it between jobs
    changes nothing, whatever order the jobs come in.
    """

    def __init__(self) -> None:
        """An empty cache."""
        self._specs: dict[int, tuple[DefaultedObject, TrainingRuntimeSpec]] = {}

    def of(self, runtime: DefaultedObject) -> TrainingRuntimeSpec:
        """``runtime``'s spec, decoded on first use."""
        cached = self._specs.get(id(runtime))
        if cached is None:
            cached = (runtime, decode(TrainingRuntimeSpec, runtime.data.get("spec")))
            self._specs[id(runtime)] = cached
        return cached[1]


def resolve_job(
    trainjob: DefaultedObject, runtime: DefaultedObject, *, specs: RuntimeSpecs | None = None
) -> ResolvedJob:
    """Join ``trainjob`` with ``runtime`` (both schema-valid and defaulted).

    ``specs`` lets the jobs of one build share each runtime's decoded spec. Raises
    CompilerBug when an input was not validated first: compile refuses to build from an
    invalid repository before it gets here.
    """
    if not (trainjob.schema_valid and runtime.schema_valid):
        raise CompilerBug(f"resolve_job({trainjob.name}) called with unvalidated input")
    spec = decode(TrainJobSpec, trainjob.data.get("spec"))
    runtime_spec = (specs or RuntimeSpecs()).of(runtime)
    template = as_object(get_path(runtime.data, ("spec", "template")))
    patches = [as_object(p.get("trainingRuntimeSpec")) for p in _patches(trainjob)]
    patched = apply_runtime_patches(template, patches, load_kind_schema(runtime.kind))
    jobset_spec = patched.spec  # new values only: changing them leaves the runtime as it is
    # Upstream tests `mlPolicy != nil`: an empty mlPolicy counts as present.
    raw_policy = get_path(runtime.data, ("spec", "mlPolicy"))
    ml_policy = raw_policy if isinstance(raw_policy, dict) else None
    trainer = as_object(get_path(trainjob.data, ("spec", "trainer")))
    if ml_policy is not None and "resourcesPerNode" in trainer:
        for container in _resource_targets(jobset_spec, ml_policy):
            container["resources"] = merge_resources(
                container.get("resources"), trainer["resourcesPerNode"]
            )
    return ResolvedJob(
        trainjob=trainjob,
        runtime=runtime,
        spec=spec,
        runtime_spec=runtime_spec,
        jobset_metadata=patched.metadata,
        jobset_spec=jobset_spec,
        pod_sets=tuple(_pod_set(job, ml_policy) for job in _jobs(jobset_spec)),
    )


def _patches(trainjob: DefaultedObject) -> list[JsonObject]:
    return [as_object(p) for p in as_list(get_path(trainjob.data, ("spec", "runtimePatches")))]


def _jobs(jobset_spec: JsonObject) -> list[JsonObject]:
    return [as_object(job) for job in as_list(jobset_spec.get("replicatedJobs"))]


def ancestor_of(job: JsonObject) -> str | None:
    """The ``trainer.kubeflow.org/trainjob-ancestor-step`` label of a replicatedJob."""
    value = get_path(job, ("template", "metadata", "labels", ANCESTOR_LABEL))
    return value if isinstance(value, str) else None


def _resource_targets(jobset_spec: JsonObject, ml_policy: JsonObject) -> Iterator[JsonObject]:
    """The ``node`` containers that receive ``resourcesPerNode`` (§2.6 step 1-2).

    Trainer-labelled jobs, plus, with MPI ``runLauncherAsNode``, the job named ``node``.
    """
    launcher_as_node = get_path(ml_policy, ("mpi", "runLauncherAsNode")) is True
    for job in _jobs(jobset_spec):
        is_node = launcher_as_node and job.get("name") == NODE_JOB
        if ancestor_of(job) == ANCESTOR_TRAINER or is_node:
            pod = as_object(get_path(job, ("template", "spec", "template", "spec")))
            for container in as_list(pod.get("containers")):
                if isinstance(container, dict) and container.get("name") == NODE_CONTAINER:
                    yield container
                    break


def _pod_set(job: JsonObject, ml_policy: JsonObject | None) -> PodSet:
    """Pods and per-pod requests of one replicatedJob, before the plugins adjust counts.

    ``parallelism`` (1 when unset), except the trainer step under an mlPolicy, which
    starts from ``mlPolicy.numNodes`` (1 when unset); both at least 1 here (§2.6).
    """
    ancestor = ancestor_of(job)
    parallelism = get_path(job, ("template", "spec", "parallelism"))
    count = parallelism if isinstance(parallelism, int) else 1
    if ancestor == ANCESTOR_TRAINER and ml_policy is not None:
        nodes = ml_policy.get("numNodes")
        count = nodes if isinstance(nodes, int) else 1
    return PodSet(
        name=str(job.get("name")),
        ancestor=ancestor,
        count=max(count, 1),
        requests=pod_requests(get_path(job, ("template", "spec", "template", "spec"))),
    )
