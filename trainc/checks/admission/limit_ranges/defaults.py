"""The requests and limits a container ends up with before LimitRanger judges it.

Two steps run before the checks. First the API server's defaulting of the pod it decoded
(``SetDefaults_Pod`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/core/v1/defaults.go): a
container that sets a limit but no request for a resource requests its limit. Then
LimitRanger's mutating half (``mergeContainerResources`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/limitranger/admission.go)
gives each container and init container the ``default`` limits and ``defaultRequest``
requests of every ``Container`` item it lacks, one LimitRange after another, so the first
LimitRange that names a resource decides it. A default is never checked against the
container's own values here: a default limit below the container's request is what pod
validation then refuses (``must be less than or equal to cpu limit of 2``), a refusal
trainc's pod checks word once they see the defaulted pod.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from trainc.checks.admission.limit_ranges.limit_range import CONTAINER, LimitRange
from trainc.checks.admission.resource_lists import (
    POD_LEVEL_RESOURCES,
    ResourceList,
    cpu_or_memory,
    pod_level_resource,
    pod_total,
)
from trainc.checks.workload.jsonfields import objects
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue, as_object

#: The annotation LimitRanger writes on a pod it changed.
ANNOTATION = "kubernetes.io/limit-ranger"

_CONTAINER_LISTS = (("containers", "container"), ("initContainers", "init container"))


def container_defaults(limit_range: LimitRange) -> tuple[ResourceList, ResourceList]:
    """The (requests, limits) a LimitRange gives containers: later Container items win."""
    requests: ResourceList = {}
    limits: ResourceList = {}
    for item in limit_range.items:
        if item.type == CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def default_pod_requests(spec: JsonObject, release: KubeVersion) -> JsonObject:
    """``defaultPodRequests`` of the same defaulting, from the release whose defaults turn
    the PodLevelResources gate on: a pod that sets pod-level ``limits`` gets the pod-level
    requests it lacks, for cpu and memory the effective requests of its containers where
    they request any, else (and for hugepages) its pod-level limit.

    ``spec`` has its containers' requests defaulted already (:func:`default_requests_to_limits`).
    Newer releases also default pod-level hugepages and cpu/memory limits from the
    containers' (``defaultHugePagePodLimits``, ``defaultPodLimits``); those decide no
    check trainc makes of a pod that sets its limits, and are not modelled.
    """
    own = as_object(spec.get("resources"))
    limits = as_object(own.get("limits"))
    if release < POD_LEVEL_RESOURCES or not limits:
        return spec
    requests = dict(as_object(own.get("requests")))
    aggregated = pod_total(spec, "requests", pod_level=None, overhead=False)
    for name, amount in aggregated.items():
        if name not in requests and cpu_or_memory(name):
            requests[name] = str(amount)
    for name, value in limits.items():
        if name not in requests and pod_level_resource(name):
            requests[name] = value
    return {**spec, "resources": {**own, "requests": requests}}


def default_requests_to_limits(spec: JsonObject) -> JsonObject:
    """A copy of a pod spec where each container requests what it limits but does not request.

    The pod's own defaulting; LimitRanger and quota only ever see its result.
    """
    result = copy.deepcopy(spec)
    for key, _ in _CONTAINER_LISTS:
        for _, container in objects(result.get(key)):
            resources = container.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if not isinstance(resources, dict) or not isinstance(limits, dict):
                continue
            requests = resources.get("requests")
            resources["requests"] = {**limits, **(requests if isinstance(requests, dict) else {})}
    return result


def apply_defaults(spec: JsonObject, limit_ranges: Iterable[LimitRange]) -> tuple[JsonObject, str]:
    """A copy of a pod spec with every LimitRange's defaults, and the annotation it gets.

    ``limit_ranges`` in the order they apply (see
    :func:`~trainc.checks.admission.limit_ranges.limit_range.ordered`). The annotation is
    ``LimitRanger plugin set: cpu, memory request for container node; …`` as the last
    LimitRange that set anything wrote it, ``""`` when none did.
    """
    result = copy.deepcopy(spec)
    annotation = ""
    for limit_range in limit_ranges:
        requests, limits = container_defaults(limit_range)
        notes: list[str] = []
        for key, label in _CONTAINER_LISTS:
            for _, container in objects(result.get(key)):
                notes.extend(_merge(container, requests, limits, label))
        if notes:
            annotation = "LimitRanger plugin set: " + "; ".join(notes)
    return result, annotation


def _merge(
    container: JsonObject, requests: ResourceList, limits: ResourceList, label: str
) -> list[str]:
    """Fill one container's missing requests and limits; the annotation's parts for it."""
    resources = container.get("resources")
    if not isinstance(resources, dict):
        resources = {}
        container["resources"] = resources
    set_limits = _fill(resources, "limits", limits)
    set_requests = _fill(resources, "requests", requests)
    name = container.get("name")
    notes = []
    if set_requests:
        notes.append(f"{', '.join(sorted(set_requests))} request for {label} {name}")
    if set_limits:
        notes.append(f"{', '.join(sorted(set_limits))} limit for {label} {name}")
    return notes


def _fill(resources: JsonObject, key: str, defaults: ResourceList) -> list[str]:
    found = resources.get(key)
    current: dict[str, JsonValue] = found if isinstance(found, dict) else {}
    added = [name for name in defaults if name not in current]
    if added or isinstance(found, dict):
        resources[key] = {**current, **{name: str(defaults[name]) for name in added}}
    return added
