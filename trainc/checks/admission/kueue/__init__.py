"""Kueue: whether a queued job can ever be admitted, judged offline.

A job that carries the ``kueue.x-k8s.io/queue-name`` label is suspended until Kueue admits
it, and Kueue never admits it when its queue is missing or misconfigured, or when its pods
do not fit the ClusterQueue's quota in any flavor even with nothing else running. This
package models both halves as pure functions over Kueue's objects (:mod:`.api`) and the
job's JSON, in Kueue's own words: the queue lookup of the Workload controller
(:mod:`.queues`), the PodSets of Kueue's JobSet integration (:mod:`.podsets`) and the flavor
assigner with the cohort's lendable quota (:mod:`.assign`, :mod:`.cohorts`,
:mod:`.nodes`), joined up by :func:`.admission.admit`. It follows Kueue v0.19.2
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2), reads ``v1beta1`` and ``v1beta2``
objects, and notes where earlier releases word things differently. Current quota usage is
unknown offline and taken as zero, so what is reported is what can never fit, not what
waits for others to finish.
"""

from __future__ import annotations

from trainc.checks.admission.kueue.admission import Cluster, Verdict, admit, cluster_from_objects
from trainc.checks.admission.kueue.api import (
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
from trainc.checks.admission.kueue.assign import Assignment, PodSetResult, assign, capacity_reason
from trainc.checks.admission.kueue.cohorts import Tree, tree
from trainc.checks.admission.kueue.podsets import Adjustments, PodSet, jobset_pod_sets, pod_set
from trainc.checks.admission.kueue.queues import Blocker, Lookup, lookup

__all__ = [
    "Adjustments",
    "Assignment",
    "Blocker",
    "Cluster",
    "ClusterQueue",
    "Cohort",
    "LocalQueue",
    "Lookup",
    "PodSet",
    "PodSetResult",
    "ResourceFlavor",
    "Tree",
    "Verdict",
    "WorkloadPriorityClass",
    "admit",
    "assign",
    "capacity_reason",
    "cluster_from_objects",
    "cluster_queue_from_json",
    "cohort_from_json",
    "jobset_pod_sets",
    "local_queue_from_json",
    "lookup",
    "pod_set",
    "resource_flavor_from_json",
    "tree",
    "workload_priority_class_from_json",
]
