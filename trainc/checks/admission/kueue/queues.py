"""Which ClusterQueue a queued job lands in, and what stops it there before any quota.

The Workload controller checks, in this order (``getQueueBlocker`` and the namespace check
of ``ValidateAdmissibility``, in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/core/workload_controller.go
and https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/workload/resources.go), that
the LocalQueue named by the ``kueue.x-k8s.io/queue-name`` label exists in the job's
namespace and is not stopped, that its ClusterQueue exists and is active (not stopped and
naming no missing ResourceFlavor, ``inactiveReason`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/cache/scheduler/clusterqueue.go),
and that the ClusterQueue's ``namespaceSelector`` selects the namespace (absent: no
namespace; ``{}``: every one). Each failure leaves the Workload pending with its
``QuotaReserved`` condition false and these words as its message. The messages have been
the same since Kueue v0.14; the condition's reason was ``Inadmissible`` before v0.19 and is
``Misconfigured`` (missing queue, selector) or ``Suspended`` (stopped queue) from v0.19.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from trainc.checks.admission.kueue.api import NO_STOP, ClusterQueue, LocalQueue
from trainc.checks.workload.selectors import selector_matches

MISCONFIGURED = "Misconfigured"
SUSPENDED = "Suspended"


@dataclass(frozen=True, slots=True)
class Blocker:
    """Why a workload is never considered for admission: condition reason and message."""

    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Lookup:
    """The queue a job lands in, or what blocks it (exactly one is set)."""

    queue: ClusterQueue | None = None
    blocker: Blocker | None = None


def missing_flavors(queue: ClusterQueue, flavors: Iterable[str]) -> list[str]:
    """The flavors the ClusterQueue names that no ResourceFlavor defines, once each."""
    known = set(flavors)
    named = (flavor.name for group in queue.resource_groups for flavor in group.flavors)
    return list(dict.fromkeys(name for name in named if name not in known))


def inactive_message(queue: ClusterQueue, flavors: Iterable[str]) -> str | None:
    """The ClusterQueue's own ``Active=False`` message, or None when it is active."""
    messages: list[str] = []
    if queue.stop_policy != NO_STOP:
        messages.append("is stopped")
    missing = missing_flavors(queue, flavors)
    if missing:
        messages.append(f"references missing ResourceFlavor(s): {','.join(missing)}")
    if not messages:
        return None
    return f"Can't admit new workloads: {', '.join(messages)}."


def _local_queue(
    queue_name: str, namespace: str, local_queues: Iterable[LocalQueue]
) -> LocalQueue | Blocker:
    """The LocalQueue named in the job's namespace, or why there is none to use."""
    local = next(
        (q for q in local_queues if q.namespace == namespace and q.name == queue_name), None
    )
    if local is None:
        return Blocker(MISCONFIGURED, f"LocalQueue {queue_name} doesn't exist")
    if local.stop_policy != NO_STOP:
        return Blocker(SUSPENDED, f"LocalQueue {queue_name} is inactive")
    return local


def lookup(
    queue_name: str,
    namespace: str,
    *,
    local_queues: Iterable[LocalQueue],
    cluster_queues: Iterable[ClusterQueue],
    flavors: Iterable[str],
    namespace_labels: Mapping[str, str] | None,
) -> Lookup:
    """The ClusterQueue a job with ``queue_name`` in ``namespace`` is queued in.

    ``flavors`` are the names of the cluster's ResourceFlavors; ``namespace_labels`` the
    labels of the job's Namespace object, None when no such object is known (then a
    selector is judged only where labels cannot matter: absent selects nothing, ``{}``
    everything).
    """
    local = _local_queue(queue_name, namespace, local_queues)
    if isinstance(local, Blocker):
        return Lookup(blocker=local)
    queue = next((q for q in cluster_queues if q.name == local.cluster_queue), None)
    if queue is None:
        message = f"ClusterQueue {local.cluster_queue} doesn't exist"
        return Lookup(blocker=Blocker(MISCONFIGURED, message))
    if inactive_message(queue, flavors) is not None:
        return Lookup(blocker=Blocker(SUSPENDED, f"ClusterQueue {queue.name} is inactive"))
    selector = queue.namespace_selector
    unknown = namespace_labels is None and selector not in (None, {})
    if not unknown and selector_matches(selector, namespace_labels or {}) is False:
        message = "workload namespace doesn't match ClusterQueue selector"
        return Lookup(blocker=Blocker(MISCONFIGURED, message))
    return Lookup(queue=queue)
