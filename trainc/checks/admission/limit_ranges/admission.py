"""LimitRanger's decision on a pod or a PersistentVolumeClaim the cluster is asked to create.

``PodValidateLimitFunc`` and ``PersistentVolumeClaimValidateLimitFunc`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/limitranger/admission.go:
each item of a LimitRange in the order written; a ``Container`` item judges every
container, then every init container, by its ``min``, then ``max``, then
``maxLimitRequestRatio`` (upstream walks each of those maps in Go's random order; trainc
walks them by resource name); a ``Pod`` item judges the pod's sums; a
``PersistentVolumeClaim`` item judges ``spec.resources.requests`` by ``min`` and ``max``
(limits are not read). One LimitRange's errors form one aggregate message. The plugin
asks each LimitRange of the namespace in turn, after all of them have set their defaults,
and refuses with the first one that fails: ``pods "x" is forbidden: maximum cpu usage per
Container is 8, but limit is 16``. Updates of pods are not judged (containers cannot
change), and nothing here depends on what else runs in the namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from trainc.checks.admission.limit_ranges import constraints
from trainc.checks.admission.limit_ranges.defaults import (
    apply_defaults,
    default_pod_requests,
    default_requests_to_limits,
)
from trainc.checks.admission.limit_ranges.limit_range import CLAIM, CONTAINER, POD, Item, LimitRange
from trainc.checks.admission.resource_lists import (
    POD_LEVEL_RESOURCES,
    ResourceList,
    aggregate,
    container_list,
    cpu_or_memory,
    pod_total,
)
from trainc.checks.workload.jsonfields import objects
from trainc.checks.workload.quantities import Amount, resource_amounts
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, as_object

_Check = Callable[[str, str, Amount, ResourceList, ResourceList], str | None]


@dataclass(frozen=True, slots=True)
class Decision:
    """What LimitRanger does with a pod: its spec after defaults, and any refusal.

    ``refusal`` is the message after ``is forbidden:`` (None: admitted), ``refused_by``
    the LimitRange that refused, ``annotation`` the ``kubernetes.io/limit-ranger`` note
    the pod gets (``""``: no default was applied).
    """

    spec: JsonObject
    annotation: str
    refusal: str | None = None
    refused_by: str | None = None


def _judge(item: Item, kind: str, requests: ResourceList, limits: ResourceList) -> Iterator[str]:
    checks: list[tuple[ResourceList, _Check]] = [
        (item.min, constraints.minimum),
        (item.max, constraints.maximum),
        (item.max_limit_request_ratio, constraints.ratio),
    ]
    for enforced, check in checks:
        for name in sorted(enforced):
            error = check(kind, name, enforced[name], requests, limits)
            if error is not None:
                yield error


def pod_errors(limit_range: LimitRange, spec: JsonObject, release: KubeVersion) -> list[str]:
    """Every refusal one LimitRange makes of a pod whose defaults are already applied.

    A ``Pod`` item reads the pod's sums; from the release where pod-level resources are
    on, the pod's own cpu and memory in ``spec.resources`` replace them.
    """
    pod_level = cpu_or_memory if release >= POD_LEVEL_RESOURCES else None
    errors: list[str] = []
    for item in limit_range.items:
        if item.type == CONTAINER:
            for key in ("containers", "initContainers"):
                for _, container in objects(spec.get(key)):
                    requests = container_list(container, "requests")
                    limits = container_list(container, "limits")
                    errors.extend(_judge(item, CONTAINER, requests, limits))
        elif item.type == POD:
            requests = pod_total(spec, "requests", pod_level=pod_level, overhead=False)
            limits = pod_total(spec, "limits", pod_level=pod_level, overhead=False)
            errors.extend(_judge(item, POD, requests, limits))
    return errors


def claim_errors(limit_range: LimitRange, claim: JsonObject) -> list[str]:
    """Every refusal one LimitRange makes of a PersistentVolumeClaim (``metadata``/``spec``)."""
    requests = resource_amounts(
        as_object(as_object(claim.get("spec")).get("resources")).get("requests")
    )
    errors: list[str] = []
    for item in limit_range.items:
        if item.type != CLAIM:
            continue
        for name in sorted(item.min):
            error = constraints.minimum(CLAIM, name, item.min[name], requests, {})
            if error is not None:
                errors.append(error)
        for name in sorted(item.max):
            error = constraints.maximum_request(CLAIM, name, item.max[name], requests)
            if error is not None:
                errors.append(error)
    return errors


def admit_pod(limit_ranges: list[LimitRange], spec: JsonObject, release: KubeVersion) -> Decision:
    """LimitRanger on a pod being created: every LimitRange's defaults, then its checks.

    ``spec`` is the pod's spec as its creator sends it; ``limit_ranges`` the namespace's,
    in the order to apply them (see
    :func:`~trainc.checks.admission.limit_ranges.limit_range.ordered`); ``release`` the
    cluster's.
    """
    decoded = default_pod_requests(default_requests_to_limits(spec), release)
    defaulted, annotation = apply_defaults(decoded, limit_ranges)
    for limit_range in limit_ranges:
        errors = pod_errors(limit_range, defaulted, release)
        if errors:
            return Decision(defaulted, annotation, aggregate(errors), limit_range.name)
    return Decision(defaulted, annotation)


def admit_claim(limit_ranges: list[LimitRange], claim: JsonObject) -> tuple[str, str] | None:
    """LimitRanger on a claim being created: (LimitRange, refusal) of the first that refuses."""
    for limit_range in limit_ranges:
        errors = claim_errors(limit_range, claim)
        if errors:
            return limit_range.name, aggregate(errors)
    return None
