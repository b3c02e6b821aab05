"""Kueue's verdict on a queued JobSet: the queue lookup, then the flavor assignment.

This is the one call a check needs: give it the cluster's objects (:class:`Cluster`, read
from manifests of any of the kinds Kueue and the assignment depend on) and the JobSet as
it will be created, and it says whether Kueue can ever admit the JobSet and, if not, the
message the Workload's ``QuotaReserved`` condition will carry. A JobSet without the
``kueue.x-k8s.io/queue-name`` label is not Kueue's (None).

With ``queueingStrategy: StrictFIFO`` a workload that can never be admitted also holds up
every later workload of its ClusterQueue, since Kueue keeps retrying the oldest first
(``queueingStrategy`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/clusterqueue_types.go);
:attr:`Verdict.blocks_queue` says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trainc.checks.admission.kueue.api import (
    GROUP,
    ClusterQueue,
    Cohort,
    LocalQueue,
    ResourceFlavor,
    WorkloadPriorityClass,
    cluster_queue_from_json,
    cohort_from_json,
    local_queue_from_json,
    resource_flavor_from_json,
    workload_priority_class_from_json,
)
from trainc.checks.admission.kueue.assign import Assignment, assign
from trainc.checks.admission.kueue.cohorts import tree
from trainc.checks.admission.kueue.podsets import Adjustments, jobset_pod_sets
from trainc.checks.admission.kueue.queues import Blocker, lookup
from trainc.checks.admission.limit_ranges import LimitRange, limit_range_from_json, ordered
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import KUEUE_QUEUE_NAME

STRICT_FIFO = "StrictFIFO"


@dataclass(slots=True)
class Cluster:
    """The cluster objects Kueue's verdict depends on."""

    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    cluster_queues: list[ClusterQueue] = field(default_factory=list)
    local_queues: list[LocalQueue] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)
    priority_classes: dict[str, WorkloadPriorityClass] = field(default_factory=dict)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    limit_ranges: dict[str, list[LimitRange]] = field(default_factory=dict)
    overheads: dict[str, JsonObject] = field(default_factory=dict)

    def add(self, obj: JsonObject) -> None:
        """Take in one manifest; kinds that do not matter here are ignored."""
        api_version = text(obj.get("apiVersion")) or ""
        kind = text(obj.get("kind")) or ""
        metadata = as_object(obj.get("metadata"))
        if api_version.startswith(GROUP + "/"):
            self._add_kueue(kind, obj)
        elif (api_version, kind) == ("v1", "Namespace"):
            labels = as_object(metadata.get("labels"))
            name = text(metadata.get("name")) or ""
            self.namespaces[name] = {k: v for k, v in labels.items() if isinstance(v, str)}
        elif (api_version, kind) == ("v1", "LimitRange"):
            namespace = text(metadata.get("namespace")) or ""
            self.limit_ranges.setdefault(namespace, []).append(limit_range_from_json(obj))
        elif (api_version, kind) == ("node.k8s.io/v1", "RuntimeClass"):
            fixed = as_object(as_object(obj.get("overhead")).get("podFixed"))
            if fixed:
                self.overheads[text(metadata.get("name")) or ""] = fixed

    def _add_kueue(self, kind: str, obj: JsonObject) -> None:
        if kind == "ResourceFlavor":
            flavor = resource_flavor_from_json(obj)
            self.flavors[flavor.name] = flavor
        elif kind == "ClusterQueue":
            self.cluster_queues.append(cluster_queue_from_json(obj))
        elif kind == "LocalQueue":
            self.local_queues.append(local_queue_from_json(obj))
        elif kind == "Cohort":
            self.cohorts.append(cohort_from_json(obj))
        elif kind == "WorkloadPriorityClass":
            priority = workload_priority_class_from_json(obj)
            self.priority_classes[priority.name] = priority


def cluster_from_objects(objects: Iterable[JsonObject]) -> Cluster:
    """A :class:`Cluster` from manifests of any kinds."""
    cluster = Cluster()
    for obj in objects:
        cluster.add(obj)
    return cluster


@dataclass(frozen=True, slots=True)
class Verdict:
    """Kueue's verdict: the queue, and what blocks the job or the flavor assignment."""

    queue_name: str
    cluster_queue: ClusterQueue | None = None
    blocker: Blocker | None = None
    assignment: Assignment | None = None

    @property
    def admissible(self) -> bool:
        """Whether Kueue can admit the job once nothing else uses the quota."""
        return self.blocker is None and (self.assignment is None or self.assignment.admissible)

    @property
    def message(self) -> str:
        """Kueue's message for the Workload, ``""`` when it can be admitted."""
        if self.blocker is not None:
            return self.blocker.message
        return "" if self.assignment is None else self.assignment.message

    @property
    def blocks_queue(self) -> bool:
        """Whether the job, never admitted, also holds up its ClusterQueue (StrictFIFO)."""
        queue = self.cluster_queue
        return not self.admissible and queue is not None and queue.queueing_strategy == STRICT_FIFO


def admit(jobset: JsonObject, cluster: Cluster, *, binary: Iterable[str] = ()) -> Verdict | None:
    """Kueue's verdict on a JobSet manifest, or None when it names no queue."""
    metadata = as_object(jobset.get("metadata"))
    queue_name = text(as_object(metadata.get("labels")).get(KUEUE_QUEUE_NAME)) or ""
    if not queue_name:
        return None
    namespace = text(metadata.get("namespace")) or ""
    found = lookup(
        queue_name,
        namespace,
        local_queues=cluster.local_queues,
        cluster_queues=cluster.cluster_queues,
        flavors=cluster.flavors,
        namespace_labels=cluster.namespaces.get(namespace),
    )
    if found.queue is None:
        return Verdict(queue_name, blocker=found.blocker)
    adjust = Adjustments(ordered(cluster.limit_ranges.get(namespace, [])), cluster.overheads)
    cohort_tree, node = tree(found.queue, cluster.cluster_queues, cluster.cohorts)
    assignment = assign(
        jobset_pod_sets(jobset, adjust),
        found.queue,
        cohort_tree,
        node,
        cluster.flavors,
        binary=frozenset(binary),
    )
    return Verdict(queue_name, found.queue, assignment=assignment)
