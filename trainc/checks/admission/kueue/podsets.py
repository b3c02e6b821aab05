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
The first two of those adjustments need cluster state this module does not read: the
template given here must already carry the overhead and the LimitRange defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.checks.admission.kueue.amounts import Values, values
from trainc.checks.admission.resource_lists import pod_level_resource, pod_total
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


def pod_requests(spec: JsonObject) -> Values:
    """What one pod of the template requests, in Kueue's units."""
    adjusted = limits_as_requests(spec)
    summed = pod_total(adjusted, "requests", pod_level=pod_level_resource, overhead=True)
    return {name: max(0, number) for name, number in values(summed).items()}


def pod_set(name: str, count: int, spec: JsonObject) -> PodSet:
    """A PodSet of ``count`` pods of ``spec``, with their total requests."""
    one = pod_requests(spec)
    return PodSet(name, count, spec, {res: number * count for res, number in one.items()})


def jobset_pod_sets(jobset: JsonObject) -> list[PodSet]:
    """The PodSets of a JobSet manifest, one per replicatedJob, in order."""
    found: list[PodSet] = []
    for _, replicated in objects(as_object(jobset.get("spec")).get("replicatedJobs")):
        job_spec = as_object(as_object(replicated.get("template")).get("spec"))
        # JobSet defaults ``replicas`` to 1.
        count = _optional(replicated, "replicas", 1) * pods_per_replica(job_spec)
        spec = as_object(as_object(job_spec.get("template")).get("spec"))
        found.append(pod_set(text(replicated.get("name")) or "", count, spec))
    return found
