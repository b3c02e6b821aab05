"""Where among the cluster's objects Kueue's reason for never admitting a job is written.

A ``kueue.inadmissible`` finding stays on the TrainJob's line the user owns (the request,
the pod count, or the queue label); the flavor assigner's reasons name what in the
cluster decides it, and this module finds that line, so the hint can point at it: the
ClusterQueue's ``nominalQuota`` of the resource in the flavor (``insufficient quota for R
in flavor F``), its ``resourceGroups`` (``resource R unavailable in ClusterQueue``), the
ResourceFlavor's ``nodeTaints`` (``untolerated taint … in flavor F``) or ``nodeLabels``
(``flavor F doesn't match node affinity``), a LimitRange's default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from trainc.checks.admission.cluster import ClusterObjects
from trainc.checks.workload.jsonfields import objects, text
from trainc.model.json import FieldPath, as_object

CLUSTER_QUEUE: Final = "ClusterQueue"
RESOURCE_FLAVOR: Final = "ResourceFlavor"
LIMIT_RANGE: Final = "LimitRange"

_QUOTA: Final = re.compile(r"insufficient quota for (?P<resource>\S+) in flavor (?P<flavor>[^,]+),")
_UNAVAILABLE: Final = re.compile(r"resource (?P<resource>\S+) unavailable in ClusterQueue")
_TAINT: Final = re.compile(r"untolerated taint .* in flavor (?P<flavor>\S+)$")
_AFFINITY: Final = re.compile(r"flavor (?P<flavor>\S+) doesn't match node affinity")


def cause_lines(cluster: ClusterObjects, queue: str, reasons: Iterable[str]) -> list[str]:
    """``FILE:LINE (what)`` of each cluster line Kueue's ``reasons`` name, in order, once."""
    found: dict[str, None] = {}
    for reason in reasons:
        for kind, name, path, what in _causes(cluster, queue, reason):
            line = cluster.line_of(kind, name, path)
            if line:
                found.setdefault(f"{line} ({kind} {name!r} {what})")
    return list(found)


def _causes(
    cluster: ClusterObjects, queue: str, reason: str
) -> Iterator[tuple[str, str, FieldPath, str]]:
    if (match := _QUOTA.match(reason)) is not None:
        resource, flavor = match["resource"], match["flavor"]
        path = _quota_path(cluster, queue, flavor, resource)
        yield CLUSTER_QUEUE, queue, path, f"nominalQuota of {resource} in flavor {flavor}"
    elif (match := _UNAVAILABLE.match(reason)) is not None:
        yield CLUSTER_QUEUE, queue, ("spec", "resourceGroups"), "resourceGroups"
    elif (match := _TAINT.match(reason)) is not None:
        yield RESOURCE_FLAVOR, match["flavor"], ("spec", "nodeTaints"), "nodeTaints"
    elif (match := _AFFINITY.match(reason)) is not None:
        yield RESOURCE_FLAVOR, match["flavor"], ("spec", "nodeLabels"), "nodeLabels"


def _quota_path(cluster: ClusterObjects, queue: str, flavor: str, resource: str) -> FieldPath:
    """The path of ``resource``'s ``nominalQuota`` in ``flavor`` of a ClusterQueue."""
    written = cluster.written(CLUSTER_QUEUE, queue) or {}
    groups = as_object(written.get("spec")).get("resourceGroups")
    for i, group in objects(groups):
        for j, quotas in objects(group.get("flavors")):
            if text(quotas.get("name")) != flavor:
                continue
            for k, item in objects(quotas.get("resources")):
                if text(item.get("name")) == resource:
                    return (
                        "spec",
                        "resourceGroups",
                        i,
                        "flavors",
                        j,
                        "resources",
                        k,
                        "nominalQuota",
                    )
            return ("spec", "resourceGroups", i, "flavors", j)
    return ("spec", "resourceGroups")


def default_line(cluster: ClusterObjects, namespace: str, resource: str) -> str:
    """``FILE:LINE`` of the first LimitRange default of ``resource`` in ``namespace``."""
    for limit_range in cluster.limit_ranges.get(namespace, ()):
        written = cluster.written(LIMIT_RANGE, limit_range.name, namespace) or {}
        for index, item in objects(as_object(written.get("spec")).get("limits")):
            for key in ("defaultRequest", "default"):
                if resource in as_object(item.get(key)):
                    path = ("spec", "limits", index, key, resource)
                    return cluster.line_of(LIMIT_RANGE, limit_range.name, path, namespace)
    return ""
