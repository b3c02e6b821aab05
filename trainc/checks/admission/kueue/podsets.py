"""A JobSet's PodSets as Kueue's JobSet integration computes them, and what each requests.

Kueue queues a JobSet as one Workload with a PodSet per replicatedJob
(``PodSets`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobs/jobset/jobset_controller.go):
named after the replicatedJob, with its pod template, and ``replicas`` times the pods one
Job runs at once, ``parallelism`` (1 when unset) capped by ``completions`` (``parallelism``
when unset).

What a pod requests is worked out in three steps. The Workload controller first fills in
what the pod template leaves out (``AdjustResources`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/workload/resources.go): the
RuntimeClass's overhead, LimitRange defaults, then the limits as requests for every
resource that has a limit but no request (containers, init containers and pod-level
resources). Then it sums the pod as Kubernetes does (``PodRequests`` of
``k8s.io/component-helpers/resource``, the sum :func:`~..resource_lists.pod_total` models:
init containers and sidecars, pod-level resources, overhead), and multiplies by the count
(``totalRequestsFromPodSets`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/workload/workload.go).
The first two need cluster state, given here as :class:`Adjustments`: the overhead
(``podFixed``) of each RuntimeClass, used when the template names one and sets no
overhead itself, and the namespace's LimitRanges. Kueue merges those into one summary
(``Summarize`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/util/limitrange/limitrange.go)
where the first ``Container`` item to name a default wins, even within one LimitRange
(LimitRanger itself lets a later item of the same LimitRange win), and fills in only what a
container leaves unset. Kueue's own check of requests against the LimitRanges' bounds
(``ValidateLimitRange``) is not modelled: LimitRanger refuses those pods anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trainc.checks.admission.kueue.amounts import Values, values
from trainc.checks.admission.limit_ranges import LimitRange, apply_defaults
from trainc.checks.admission.limit_ranges.limit_range import CONTAINER, Item
from trainc.checks.admission.resource_lists import ResourceList, pod_level_resource, pod_total
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.model.json import JsonObject, as_object, copy_json

DEFAULT_PODSET = "main"


@dataclass(frozen=True, slots=True)
class PodSet:
    """A PodSet: its name, how many pods, their pod spec and the total they request."""

    name: str
    count: int
    spec: JsonObject
    requests: Values


def _optional(obj: JsonObject, key: str, default: int) -> int:
    """An optional integer field, ``default`` when absent (a pointer Kueue dereferences)."""
    found = integer(obj.get(key)) if obj.get(key) is not None else None
    return default if found is None else found


@dataclass(frozen=True, slots=True)
class Adjustments:
    """What Kueue adds to a pod template from the cluster before it counts requests.

    ``limit_ranges`` are the LimitRanges of the job's namespace, in the order Kueue lists
    them (trainc's is by name, see :func:`~..limit_ranges.ordered`); ``overheads`` the
    ``overhead.podFixed`` of each RuntimeClass, by name.
    """

    limit_ranges: Sequence[LimitRange] = ()
    overheads: Mapping[str, JsonObject] = field(default_factory=dict)


def limit_range_summary(limit_ranges: Sequence[LimitRange]) -> LimitRange | None:
    """Kueue's ``Summarize`` of the container defaults, as one LimitRange; None if none."""
    requests: ResourceList = {}
    limits: ResourceList = {}
    for limit_range in limit_ranges:
        for item in limit_range.items:
            if item.type == CONTAINER:
                requests = {**item.default_request, **requests}
                limits = {**item.default, **limits}
    if not requests and not limits:
        return None
    item = Item(CONTAINER, {}, {}, limits, requests, {})
    return LimitRange("", (item,))


def adjusted(spec: JsonObject, adjust: Adjustments) -> JsonObject:
    """``AdjustResources``: overhead, LimitRange defaults, then limits as requests."""
    result = spec
    runtime_class = text(spec.get("runtimeClassName"))
    if runtime_class and not spec.get("overhead") and runtime_class in adjust.overheads:
        result = {**result, "overhead": adjust.overheads[runtime_class]}
    summary = limit_range_summary(adjust.limit_ranges)
    if summary is not None:
        result, _ = apply_defaults(result, [summary])
    return limits_as_requests(result)


def pods_per_replica(job_spec: JsonObject) -> int:
    """``PodsCountPerReplica``: ``parallelism`` (default 1), at most ``completions``."""
    pods = _optional(job_spec, "parallelism", 1)
    return min(pods, _optional(job_spec, "completions", pods))


def _with_limits_as_requests(resources: JsonObject) -> JsonObject:
    requests = as_object(resources.get("requests"))
    limits = as_object(resources.get("limits"))
    if not limits:
        return resources
    return {**resources, "requests": {**limits, **requests}}


def limits_as_requests(spec: JsonObject) -> JsonObject:
    """``UseLimitsAsMissingRequestsInPod``: a limit stands in for a missing request."""
    result = copy_json(spec)
    for key in ("initContainers", "containers"):
        for _, container in objects(result.get(key)):
            if "resources" in container:
                container["resources"] = _with_limits_as_requests(
                    as_object(container.get("resources"))
                )
    if isinstance(result.get("resources"), dict):
        result["resources"] = _with_limits_as_requests(as_object(result.get("resources")))
    return result


def pod_requests(spec: JsonObject, adjust: Adjustments | None = None) -> Values:
    """What one pod of the template requests, in Kueue's units."""
    pod = adjusted(spec, adjust or Adjustments())
    summed = pod_total(pod, "requests", pod_level=pod_level_resource, overhead=True)
    return {name: max(0, number) for name, number in values(summed).items()}


def pod_set(name: str, count: int, spec: JsonObject, adjust: Adjustments | None = None) -> PodSet:
    """A PodSet of ``count`` pods of ``spec``, with their total requests."""
    one = pod_requests(spec, adjust)
    return PodSet(name, count, spec, {res: number * count for res, number in one.items()})


def jobset_pod_sets(jobset: JsonObject, adjust: Adjustments | None = None) -> list[PodSet]:
    """The PodSets of a JobSet manifest, one per replicatedJob, in order."""
    found: list[PodSet] = []
    for _, replicated in objects(as_object(jobset.get("spec")).get("replicatedJobs")):
        job_spec = as_object(as_object(replicated.get("template")).get("spec"))
        # JobSet defaults ``replicas`` to 1.
        count = _optional(replicated, "replicas", 1) * pods_per_replica(job_spec)
        spec = as_object(as_object(job_spec.get("template")).get("spec"))
        found.append(pod_set(text(replicated.get("name")) or "", count, spec, adjust))
    return found
