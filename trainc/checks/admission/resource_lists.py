"""Resource lists as LimitRanger and the ResourceQuota plugin add, compare and print them.

Both plugins read a pod's ``requests`` and ``limits`` after the API server's defaulting
(every amount rounded up to a thousandth, see
:func:`~trainc.checks.workload.quantities.defaulted_amount`), add them up with
apimachinery's ``Quantity.Add`` (the sum keeps the format of its first non-zero term, so
``8Gi + 8Gi`` prints ``16Gi``) and print them with ``Quantity.String()``. Refusals reach the
object's creator as Forbidden errors, worded by ``admission.NewForbidden``
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/admission/errors.go),
and several errors of one plugin are joined as ``utilerrors.NewAggregate`` joins them
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal

from trainc.checks.admission.pod_security.message import go_quote
from trainc.checks.workload.jsonfields import objects
from trainc.checks.workload.quantities import Amount, resource_amounts
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, as_object

#: A ``ResourceList``: resource name to amount, in the order first seen.
ResourceList = dict[str, Amount]

ZERO = Amount(Decimal(0), binary=False)

#: The release whose defaults turn the PodLevelResources gate on (beta): from it, a pod's
#: own ``spec.resources`` replace its containers' sums.
POD_LEVEL_RESOURCES: KubeVersion = (1, 34)


def add(total: Mapping[str, Amount], more: Mapping[str, Amount]) -> ResourceList:
    """``total + more`` per resource, as ``Quantity.Add`` keeps formats.

    A sum keeps the format of its left term, unless that term is zero (then it takes the
    right one's): ``0 + 2Gi`` prints ``2Gi``, ``1 + 2Gi`` prints in decimal.
    """
    result = dict(total)
    for name, amount in more.items():
        left = result.get(name)
        if left is None:
            result[name] = amount
        else:
            binary = amount.binary if left.value.is_zero() else left.binary
            result[name] = Amount(left.value + amount.value, binary)
    return result


def maximum(total: Mapping[str, Amount], other: Mapping[str, Amount]) -> ResourceList:
    """The larger amount per resource (``maxResourceList``): ``other`` wins only when larger."""
    result = dict(total)
    for name, amount in other.items():
        left = result.get(name)
        if left is None or amount.value > left.value:
            result[name] = amount
    return result


def scale(amounts: Mapping[str, Amount], factor: int) -> ResourceList:
    """Every amount times ``factor`` (``factor`` identical pods), formats kept."""
    return {name: Amount(a.value * factor, a.binary) for name, a in amounts.items()}


def total(lists: Iterable[Mapping[str, Amount]]) -> ResourceList:
    """The sum of several resource lists, left to right."""
    result: ResourceList = {}
    for more in lists:
        result = add(result, more)
    return result


def container_list(container: JsonObject, key: str) -> ResourceList:
    """A container's ``resources.requests`` or ``resources.limits``, defaulted."""
    return resource_amounts(as_object(container.get("resources")).get(key))


def pod_total(
    spec: JsonObject, key: str, *, pod_level: Callable[[str], bool] | None, overhead: bool
) -> ResourceList:
    """What a pod needs of ``requests`` or ``limits``, as Kubernetes sums its containers.

    Containers add up; init containers run one after another, so the pod needs the
    largest of them, except sidecars (init containers with ``restartPolicy: Always``),
    which keep running beside everything started after them. That is the sum both
    LimitRanger (``podRequests``/``podLimits`` in
    https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/limitranger/admission.go)
    and quota (``PodRequests``/``PodLimits`` in
    https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/api/v1/resource/helpers.go)
    compute. Where the PodLevelResources gate is on, both let the pod's own
    ``spec.resources`` replace the sum for the resources they name that ``pod_level``
    accepts (None: the gate is off); quota's helper also adds ``spec.overhead``
    (``overhead``; to every request, and to the limits the pod sets).
    """
    result: ResourceList = {}
    for _, container in objects(spec.get("containers")):
        result = add(result, container_list(container, key))
    sidecars: ResourceList = {}
    largest_init: ResourceList = {}
    for _, container in objects(spec.get("initContainers")):
        needed = container_list(container, key)
        if container.get("restartPolicy") == "Always":
            result = add(result, needed)
            sidecars = add(sidecars, needed)
            needed = sidecars
        else:
            needed = add(needed, sidecars)
        largest_init = maximum(largest_init, needed)
    result = maximum(result, largest_init)
    if pod_level is not None:
        own = resource_amounts(as_object(spec.get("resources")).get(key))
        result.update({name: a for name, a in own.items() if pod_level(name)})
    if overhead:
        extra = resource_amounts(spec.get("overhead"))
        if key == "limits":  # overhead adds only to the limits the pod sets
            extra = {name: amount for name, amount in extra.items() if name in result}
        result = add(result, extra)
    return result


def cpu_or_memory(name: str) -> bool:
    """LimitRanger's ``isSupportedPodLevelResource``: cpu and memory only."""
    return name in {"cpu", "memory"}


def pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource`` of the shared helpers: cpu, memory and hugepages."""
    return cpu_or_memory(name) or name.startswith("hugepages-")


def pod_level_set(spec: JsonObject) -> bool:
    """``IsPodLevelResourcesSet``: ``spec.resources`` requests or limits a supported resource."""
    own = as_object(spec.get("resources"))
    return any(
        pod_level_resource(name)
        for key in ("requests", "limits")
        for name in as_object(own.get(key))
    )


def pretty(amounts: Mapping[str, Amount]) -> str:
    """``a=1,b=2Gi``: a resource list sorted by name, as the quota plugin's ``prettyPrint``."""
    return ",".join(f"{name}={amounts[name]}" for name in sorted(amounts))


def aggregate(errors: Iterable[str]) -> str:
    """Several errors as ``NewAggregate(errs).Error()``: repeats dropped, ``[a, b]`` for many."""
    seen = list(dict.fromkeys(errors))
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def forbidden(resource: str, name: str | None, message: str) -> str:
    """``pods "NAME" is forbidden: MESSAGE``: the error the object's creator receives.

    ``resource`` is the plural (``pods``, ``persistentvolumeclaims``); the name is the one
    the object has when admission runs (generated names are already filled in).
    """
    subject = f"{resource} {go_quote(name)}" if name else resource
    return f"{subject} is forbidden: {message}"
