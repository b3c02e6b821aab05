"""A LimitRange as the API server stores it: its items, after defaulting.

The API server fills in a ``Container`` item's defaults when the LimitRange is created
(``SetDefaults_LimitRangeItem`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/core/v1/defaults.go), and
LimitRanger only ever sees the stored object. So an item that names a ``max`` but no
``default`` gives containers that ``max`` as their limit, and an item with a ``default``
(or a ``min``) but no ``defaultRequest`` gives them that as their request. A manifest in
the repository is read the same way here, so that a LimitRange written with only
``max: {cpu: 8}`` still puts ``limits.cpu: 8`` on every container that sets none.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.checks.admission.resource_lists import ResourceList
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.quantities import resource_amounts
from trainc.model.json import JsonObject, as_object

CONTAINER = "Container"
POD = "Pod"
CLAIM = "PersistentVolumeClaim"


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of ``spec.limits``, defaulted as stored."""

    type: str
    min: ResourceList
    max: ResourceList
    default: ResourceList
    default_request: ResourceList
    max_limit_request_ratio: ResourceList


@dataclass(frozen=True, slots=True)
class LimitRange:
    """A LimitRange's name and its items, in the order written."""

    name: str
    items: tuple[Item, ...]


def item_from_json(raw: JsonObject) -> Item:
    """One ``spec.limits`` entry, with a ``Container`` item's defaults filled in."""
    kind = text(raw.get("type")) or ""
    minimum = resource_amounts(raw.get("min"))
    maximum = resource_amounts(raw.get("max"))
    default = resource_amounts(raw.get("default"))
    default_request = resource_amounts(raw.get("defaultRequest"))
    if kind == CONTAINER:
        # Upstream's order: max fills default, then default and min fill defaultRequest.
        default = {**maximum, **default}
        default_request = {**default, **default_request}
        default_request = {**minimum, **default_request}
    return Item(
        type=kind,
        min=minimum,
        max=maximum,
        default=default,
        default_request=default_request,
        max_limit_request_ratio=resource_amounts(raw.get("maxLimitRequestRatio")),
    )


def limit_range_from_json(obj: JsonObject) -> LimitRange:
    """A LimitRange manifest (``metadata`` and ``spec``) as the API server stores it."""
    name = text(as_object(obj.get("metadata")).get("name")) or ""
    spec = as_object(obj.get("spec"))
    return LimitRange(name, tuple(item_from_json(raw) for _, raw in objects(spec.get("limits"))))


def ordered(limit_ranges: list[LimitRange]) -> list[LimitRange]:
    """The LimitRanges of a namespace in the order trainc applies them: by name.

    LimitRanger takes them from its informer's cache, whose order Go leaves unspecified;
    only which one refuses first (and so which message the API server prints) depends on
    it. trainc fixes the order by name so that its verdicts do not move between runs.
    """
    return sorted(limit_ranges, key=lambda limit_range: limit_range.name)
