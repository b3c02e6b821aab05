"""A TrainJob joined with its runtime and resolved: the entry point of the resolve stage.

Joining is Trainer's ``newRuntimeInfo``
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/trainingruntime.go): runtime
patches first, then ``resourcesPerNode`` merged into the trainer's ``node`` container,
then one PodSet per replicatedJob with its pod count and one pod's requests. The plugins
then run over the joined job (:mod:`.framework`). Every step records where the values it
writes come from, so the resolved JobSet can answer for each of its lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from trainc.config.settings import CompileSettings
from trainc.errors import CompilerBug
from trainc.load.defaulted import DefaultedObject
from trainc.model.decode import decode
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, copy_json, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_CONTAINER, NODE_JOB
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.model.schematree import load_kind_schema
from trainc.model.trainjob import TrainJobSpec
from trainc.resolve.context import CountedPodSet, Joined, Resolution, ancestor_of
from trainc.resolve.framework import run_phases
from trainc.resolve.patches import PatchOrigins, apply_runtime_patches
from trainc.resolve.phases import Plugin
from trainc.resolve.provenance import Origin, Trace, Written
from trainc.resolve.resolved import PodSet, ResolvedJob
from trainc.resolve.resources import merge_resources, pod_requests

_TEMPLATE = ("spec", "template")
_JOBSET_SPEC = ("spec", "template", "spec")
_POD_SPEC = ("template", "spec", "template", "spec")


class RuntimeSpecs:
    """The typed spec of each runtime, decoded once however many TrainJobs use it.

    One instance serves one run: it maps a runtime object's identity to the runtime
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
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    settings: CompileSettings,
    *,
    plugins: Sequence[Plugin],
    specs: RuntimeSpecs | None = None,
) -> ResolvedJob:
    """``trainjob`` on ``runtime`` (both schema-valid and defaulted), resolved.

    ``plugins`` are the run's (the registry's, :mod:`trainc.plugins.registry`; the core
    knows none of them); ``specs`` lets the jobs of one run share each runtime's decoded
    spec. Raises CompilerBug when an input
    was not validated first: nothing resolves an invalid object.
    """
    return run_phases(start(trainjob, runtime, settings, specs=specs), plugins)


def start(
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    settings: CompileSettings,
    *,
    specs: RuntimeSpecs | None = None,
) -> Resolution:
    """The resolution of ``trainjob`` on ``runtime`` before any plugin ran."""
    if not (trainjob.schema_valid and runtime.schema_valid):
        raise CompilerBug(f"resolve_job({trainjob.name}) called with unvalidated input")
    trace = Trace()
    spec = decode(TrainJobSpec, trainjob.data.get("spec"))
    runtime_spec = (specs or RuntimeSpecs()).of(runtime)
    entries = _patches(trainjob)
    patched = apply_runtime_patches(
        as_object(get_path(runtime.data, _TEMPLATE)),
        [as_object(entry.get("trainingRuntimeSpec")) for entry in entries],
        load_kind_schema(runtime.kind),
        trace=trace,
        origins=PatchOrigins(
            template=Written(runtime, _TEMPLATE),
            patches=[
                Written(
                    trainjob,
                    ("spec", "runtimePatches", index, "trainingRuntimeSpec"),
                    manager=str(entry.get("manager")),
                )
                for index, entry in enumerate(entries)
            ],
        ),
    )
    jobset_spec = patched.spec
    # Upstream tests `mlPolicy != nil`: an empty mlPolicy counts as present.
    raw_policy = get_path(runtime.data, ("spec", "mlPolicy"))
    ml_policy = raw_policy if isinstance(raw_policy, dict) else None
    trainer = as_object(get_path(trainjob.data, ("spec", "trainer")))
    if ml_policy is not None and "resourcesPerNode" in trainer:
        override = Written(trainjob, ("spec", "trainer", "resourcesPerNode"))
        for container, origin in _resource_targets(trace, jobset_spec, ml_policy, runtime):
            _merge_node_resources(trace, container, origin, trainer["resourcesPerNode"], override)
    template = copy_json(jobset_spec)
    pod_sets = tuple(
        _pod_set(trace, jobset_spec, index, ml_policy, runtime)
        for index in range(len(_jobs(jobset_spec)))
    )
    joined = Joined(trainjob, runtime, spec, runtime_spec, template, pod_sets)
    return Resolution(
        job=joined,
        settings=settings,
        jobset_spec=jobset_spec,
        jobset_metadata=patched.metadata,
        trace=trace,
        pod_sets=[CountedPodSet.of(pod_set) for pod_set in pod_sets],
    )


def _patches(trainjob: DefaultedObject) -> list[JsonObject]:
    return [as_object(p) for p in as_list(get_path(trainjob.data, ("spec", "runtimePatches")))]


def _jobs(jobset_spec: JsonObject) -> list[JsonObject]:
    return [as_object(job) for job in as_list(jobset_spec.get("replicatedJobs"))]


def _resource_targets(
    trace: Trace, jobset_spec: JsonObject, ml_policy: JsonObject, runtime: DefaultedObject
) -> Iterator[tuple[JsonObject, Origin]]:
    """The ``node`` containers that receive ``resourcesPerNode``, traced.

    Trainer-labelled jobs, plus, with MPI ``runLauncherAsNode``, the job named ``node``.
    """
    launcher_as_node = get_path(ml_policy, ("mpi", "runLauncherAsNode")) is True
    for index, job in enumerate(_jobs(jobset_spec)):
        is_node = launcher_as_node and job.get("name") == NODE_JOB
        if ancestor_of(job) != ANCESTOR_TRAINER and not is_node:
            continue
        pod = as_object(get_path(job, _POD_SPEC))
        for position, container in enumerate(as_list(pod.get("containers"))):
            if isinstance(container, dict) and container.get("name") == NODE_CONTAINER:
                path = ("replicatedJobs", index, *_POD_SPEC, "containers", position)
                origin = trace.origin(jobset_spec, path)
                yield container, origin or Written(runtime, (*_JOBSET_SPEC, *path))
                break


def _merge_node_resources(
    trace: Trace,
    container: JsonObject,
    container_origin: Origin,
    override: JsonValue,
    override_origin: Written,
) -> None:
    """``resourcesPerNode`` merged into a ``node`` container, each amount with its origin."""
    patch = as_object(override)
    current = container.get("resources")
    merged = merge_resources(current, patch)
    if isinstance(current, dict):
        current_origin = trace.child_origin(container, container_origin, "resources")
        trace.put(container, "resources", merged, current_origin)
        trace.same(merged, current)
    else:
        current_origin = override_origin
        trace.put(container, "resources", merged, override_origin)
    for key, value in patch.items():
        if key in ("limits", "requests") and isinstance(current, dict) and key in current:
            amounts = merged[key]
            trace.node(amounts, trace.child_origin(current, current_origin, key))
            for name in as_object(value):
                trace.member(amounts, name, override_origin.at((key, name)))
        else:
            trace.member(merged, key, override_origin.at((key,)))
            trace.node(merged[key], override_origin.at((key,)))


def _pod_set(
    trace: Trace,
    jobset_spec: JsonObject,
    index: int,
    ml_policy: JsonObject | None,
    runtime: DefaultedObject,
) -> PodSet:
    """Pods and per-pod requests of one replicatedJob, before the plugins adjust counts.

    ``parallelism`` (1 when unset), except the trainer step under an mlPolicy, which
    starts from ``mlPolicy.numNodes`` (1 when unset); both at least 1 here, and only here
    (``docs/upstream.md``, "resourcesPerNode and counts").
    """
    job = _jobs(jobset_spec)[index]
    ancestor = ancestor_of(job)
    parallelism_path = ("replicatedJobs", index, "template", "spec", "parallelism")
    parallelism = get_path(jobset_spec, parallelism_path)
    count = parallelism if isinstance(parallelism, int) else 1
    where = trace.origin(jobset_spec, parallelism_path)
    origin = where if isinstance(where, Written) else Written(runtime, _JOBSET_SPEC)
    if ancestor == ANCESTOR_TRAINER and ml_policy is not None:
        nodes = ml_policy.get("numNodes")
        count = nodes if isinstance(nodes, int) else 1
        origin = Written(runtime, ("spec", "mlPolicy", "numNodes"))
    return PodSet(
        name=str(job.get("name")),
        ancestor=ancestor,
        count=max(count, 1),
        requests=pod_requests(get_path(job, _POD_SPEC)),
        count_origin=origin,
    )
