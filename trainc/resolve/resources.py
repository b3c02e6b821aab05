"""Resource arithmetic the Trainer plugins share: merging, GPU counting, pod requests.

Quantities are exact decimals (:mod:`trainc.resolve.quantity`), so PodGroup sums and
derived counts match what the API server and the Trainer controller compute.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal

from trainc.model.json import JsonObject, JsonValue, as_list, as_object
from trainc.resolve.quantity import QuantityError, parse_quantity

Amounts = dict[str, Decimal]


def merge_resources(base: JsonValue, override: JsonValue) -> JsonObject:
    """``override`` merged into ``base`` as a strategic merge patch of ResourceRequirements.

    ``limits`` and ``requests`` merge key by key (the override wins), ``claims`` by name
    (``docs/upstream.md``, "resourcesPerNode and counts"): a runtime's CPU request
    survives a TrainJob that
    only sets a GPU limit.
    """
    merged: JsonObject = dict(as_object(base))
    patch = as_object(override)
    for key in ("limits", "requests"):
        if key in patch:
            merged[key] = {**as_object(merged.get(key)), **as_object(patch[key])}
    if "claims" in patch:
        by_name: dict[JsonValue, JsonValue] = {
            as_object(claim).get("name"): claim for claim in as_list(merged.get("claims"))
        }
        for claim in as_list(patch["claims"]):
            by_name[as_object(claim).get("name")] = claim
        merged["claims"] = list(by_name.values())
    for key in patch:
        if key not in ("limits", "requests", "claims"):
            merged[key] = patch[key]
    return merged


def gpu_count(resources: JsonValue) -> int:
    """GPUs of a ResourceRequirements, as Trainer's torch/MPI/XGBoost plugins count them.

    The first resource whose name contains ``gpu`` (case-insensitive) in ``requests``,
    else in ``limits`` (the Torch plugin's rule). Upstream iterates a Go map, so "first"
    is random there
    when several GPU resources are set; trainc takes them in name order. A malformed or
    negative amount (the schema layer reports it) counts as none.
    """
    for key in ("requests", "limits"):
        amounts = as_object(as_object(resources).get(key))
        names = sorted(name for name in amounts if "gpu" in name.lower())
        if names and (count := max(math.ceil(_amount(amounts[names[0]])), 0)):
            return count
    return 0


def cpu_count(resources: JsonValue) -> int:
    """CPUs of a ResourceRequirements rounded up: ``requests.cpu``, else ``limits.cpu``."""
    for key in ("requests", "limits"):
        value = as_object(as_object(resources).get(key)).get("cpu")
        if value is not None:
            return math.ceil(_amount(value))
    return 0


def requests_of(resources: JsonValue) -> Amounts:
    """The ``requests`` of a ResourceRequirements as exact amounts (limits are ignored)."""
    return {
        name: _amount(value)
        for name, value in as_object(as_object(resources).get("requests")).items()
    }


def pod_requests(pod_spec: JsonValue) -> Amounts:
    """What one pod requests, as Kubernetes' ``resource.PodRequests`` computes it.

    Containers add up; init containers run one at a time, so the pod needs the largest
    of them, except sidecars (``restartPolicy: Always``), which keep running beside
    everything started after them; pod-level ``resources.requests`` replace the container
    sum for the resources they name; ``overhead`` is added last. Only requests count:
    offline there is no defaulting that copies limits into requests.
    """
    spec = as_object(pod_spec)
    total = add_amounts(requests_of(c.get("resources")) for c in _containers(spec, "containers"))
    sidecars: Amounts = {}
    largest_init: Amounts = {}
    for container in _containers(spec, "initContainers"):
        needed = requests_of(container.get("resources"))
        if container.get("restartPolicy") == "Always":
            total = add_amounts((total, needed))
            sidecars = add_amounts((sidecars, needed))
            needed = sidecars
        else:
            needed = add_amounts((needed, sidecars))
        largest_init = _maximum(largest_init, needed)
    total = _maximum(total, largest_init)
    total.update(requests_of(spec.get("resources")))
    return add_amounts((total, {k: _amount(v) for k, v in as_object(spec.get("overhead")).items()}))


def add_amounts(amounts: Iterable[Mapping[str, Decimal]]) -> Amounts:
    """Resource-wise sum."""
    total: Amounts = {}
    for amount in amounts:
        for name, value in amount.items():
            total[name] = total.get(name, Decimal(0)) + value
    return total


def scale_amounts(amounts: Mapping[str, Decimal], factor: int) -> Amounts:
    """Every amount multiplied by ``factor`` (pods per PodSet)."""
    return {name: value * factor for name, value in amounts.items()}


def _maximum(left: Mapping[str, Decimal], right: Mapping[str, Decimal]) -> Amounts:
    names = set(left) | set(right)
    return {n: max(left.get(n, Decimal(0)), right.get(n, Decimal(0))) for n in sorted(names)}


def _containers(spec: JsonObject, key: str) -> list[JsonObject]:
    return [c for c in as_list(spec.get(key)) if isinstance(c, dict)]


def _amount(value: JsonValue) -> Decimal:
    """A quantity; schema validation already rejected malformed ones, so 0 is a safe floor."""
    try:
        return parse_quantity(value)
    except QuantityError:
        return Decimal(0)
