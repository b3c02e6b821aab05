"""Kueue's admission of a queued TrainJob: will Kueue ever admit its JobSet?

A JobSet with the ``kueue.x-k8s.io/queue-name`` label is created suspended and waits for
Kueue (:func:`~.admission.admit` gives Kueue's verdict, in its words). Nothing refuses it:
the GitOps tool applies it, Argo CD shows it synced, and the training never starts. So
this family reports, on the JobSet the GitOps tool applies:

- a queue Kueue cannot use (the Workload's ``QuotaReserved`` condition: ``LocalQueue X
  doesn't exist``, ``ClusterQueue X is inactive``, ``workload namespace doesn't match
  ClusterQueue selector``), at the queue label's line;
- pods that fit the ClusterQueue under no flavor even with nothing else running
  (``couldn't assign flavors to pod set node: insufficient quota for ...``), at the
  request of the resource at fault (the TrainJob's ``resourcesPerNode`` or the runtime's
  container), or at the pod count when the ClusterQueue counts ``pods``;
- with ``queueingStrategy: StrictFIFO``, that such a job also holds up every job queued
  after it in its ClusterQueue (a warning, on the queue label).

Only a cluster that holds Kueue's queues is judged: a repository whose cluster snapshot
has no LocalQueue or ClusterQueue may simply not include Kueue's objects, and then every
queue label would look missing. The wording is the Kueue release the library follows
(:data:`~.assign.RELEASE`): its verdicts are those of every release the library reads,
and only the capacity reason's wording differs before v0.15.
"""

from __future__ import annotations

import re
from typing import Final

from trainc.checks.admission.created import AdmissionInput, CreatedPod
from trainc.checks.admission.kueue.admission import Verdict, admit
from trainc.checks.admission.kueue.api import NO_STOP, ClusterQueue
from trainc.checks.admission.kueue.assign import PODS, Assignment, PodSetResult
from trainc.checks.admission.kueue.causes import CLUSTER_QUEUE, cause_lines, default_line
from trainc.checks.admission.kueue.queues import inactive_message, missing_flavors
from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object
from trainc.model.labels import KUEUE_QUEUE_NAME
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob

_SOURCE: Final = (
    "the Workload controller (`pkg/controller/core/workload_controller.go`) and the "
    "ClusterQueue's `inactiveReason` (`pkg/cache/scheduler/clusterqueue.go`)"
)

KUEUE_QUEUE_MISSING = Rule(
    "kueue.queue-missing",
    Severity.ERROR,
    "the queue label names a LocalQueue or ClusterQueue that does not exist",
    doc=RuleDoc(
        what=(
            "the `kueue.x-k8s.io/queue-name` label names no LocalQueue of the job's "
            "namespace, or its LocalQueue names a ClusterQueue that does not exist or "
            "names a ResourceFlavor that does not exist: the JobSet stays suspended"
        ),
        source=_SOURCE,
        fix=(
            "create the LocalQueue in the job's namespace (or name an existing one), "
            "the ClusterQueue it names, or the ResourceFlavors the ClusterQueue names"
        ),
    ),
)

KUEUE_QUEUE_STOPPED = Rule(
    "kueue.queue-stopped",
    Severity.WARNING,
    "the job's LocalQueue or ClusterQueue is stopped, so Kueue admits nothing from it",
    doc=RuleDoc(
        what=(
            "the job's LocalQueue or ClusterQueue has a `stopPolicy` other than `None`: "
            "Kueue admits no new job from it until it is set back"
        ),
        source=_SOURCE,
        fix="set the queue's `stopPolicy: None` when jobs should run again",
    ),
)

KUEUE_NAMESPACE_NOT_SELECTED = Rule(
    "kueue.namespace-not-selected",
    Severity.ERROR,
    "the ClusterQueue's namespaceSelector does not select the job's namespace",
    doc=RuleDoc(
        what=(
            "the ClusterQueue of the job's LocalQueue does not select the job's namespace "
            "(`namespaceSelector` absent, or not matching the Namespace's labels): Kueue "
            "never admits the job"
        ),
        source="the namespace check of `ValidateAdmissibility` (`pkg/workload/resources.go`)",
        fix="label the Namespace as the selector asks, or widen the ClusterQueue's selector",
    ),
)

KUEUE_INADMISSIBLE = Rule(
    "kueue.inadmissible",
    Severity.ERROR,
    "the job's pods fit its ClusterQueue under no flavor, so Kueue never admits it",
    doc=RuleDoc(
        what=(
            "the job's PodSets (per replicatedJob: replicas times parallelism pods, each "
            "pod's requests after LimitRange defaults) fit the ClusterQueue's quota under "
            "no flavor, even with nothing else running and all its cohort can lend: the "
            "JobSet stays suspended for good"
        ),
        source="the flavor assigner (`pkg/scheduler/flavorassigner/flavorassigner.go`)",
        fix=(
            "raise the flavor's `nominalQuota` (or the cohort's quota within "
            "`borrowingLimit`), or request less per node or fewer nodes"
        ),
    ),
)

KUEUE_BLOCKS_QUEUE = Rule(
    "kueue.blocks-queue",
    Severity.WARNING,
    "a job Kueue never admits holds up every later job of its StrictFIFO ClusterQueue",
    doc=RuleDoc(
        what=(
            "a job Kueue never admits, queued in a ClusterQueue with `queueingStrategy: "
            "StrictFIFO`: Kueue retries the oldest job first, so every job queued after it "
            "waits too"
        ),
        source="`queueingStrategy` (`apis/kueue/v1beta2/clusterqueue_types.go`)",
        fix="fix the job's own error; or use `queueingStrategy: BestEffortFIFO`",
    ),
)

#: The resource a flavor assigner's reason names, in the words :mod:`.assign` writes.
_RESOURCE_REASONS: Final = (
    re.compile(r"insufficient quota for (?P<resource>\S+) in flavor "),
    re.compile(r"resource (?P<resource>\S+) unavailable in ClusterQueue"),
)
#: Where a pod names what it requests, in the order the finding looks for the value.
_CONTAINER_LISTS: Final = ("containers", "initContainers")
_REQUEST_KEYS: Final = ("requests", "limits")


def check_kueue(found: AdmissionInput) -> list[Diagnostic]:
    """Kueue's verdict on the TrainJob's JobSet, located; none when the cluster holds no
    Kueue queue or the JobSet names no queue."""
    kueue = found.cluster.kueue
    if not (kueue.local_queues or kueue.cluster_queues):
        return []
    verdict = admit(found.job.stored_jobset(), kueue)
    if verdict is None or verdict.admissible:
        return []
    queue, assignment = verdict.cluster_queue, verdict.assignment
    if queue is None or assignment is None:
        return [_blocked(found, verdict)]
    findings = [_inadmissible(found, verdict, queue, assignment)]
    if verdict.blocks_queue:
        findings.append(_blocks_queue(found.job, verdict, queue))
    return findings


def _described(job: ResolvedJob) -> str:
    return f"the JobSet {job.name!r}, applied by the GitOps tool"


def _queue_label(job: ResolvedJob) -> Origin:
    """The line that wrote the JobSet's queue label (the TrainJob's, or its runtime's)."""
    found = job.trace.origin(job.jobset_metadata, ("labels", KUEUE_QUEUE_NAME))
    if found is not None:
        return found
    return Written(job.runtime, ("spec", "template", "metadata", "labels", KUEUE_QUEUE_NAME))


def _blocked(found: AdmissionInput, verdict: Verdict) -> Diagnostic:
    """The queue Kueue cannot use, in the Workload condition's words."""
    job = found.job
    kueue = found.cluster.kueue
    queue = verdict.queue_name
    local = next(
        (q for q in kueue.local_queues if q.namespace == job.namespace and q.name == queue), None
    )
    cluster_queue = (
        None
        if local is None
        else next((q for q in kueue.cluster_queues if q.name == local.cluster_queue), None)
    )
    message = verdict.message
    if local is None:
        code, hint = (
            KUEUE_QUEUE_MISSING.code,
            f"create a LocalQueue {queue!r} in namespace {job.namespace!r} (spec.clusterQueue: "
            f"<ClusterQueue>), or name one that exists there: {_local_names(found)}",
        )
    elif cluster_queue is None:
        code, hint = (
            KUEUE_QUEUE_MISSING.code,
            f"create the ClusterQueue {local.cluster_queue!r}, or set spec.clusterQueue of "
            f"LocalQueue {queue!r} to one that exists",
        )
    elif local.stop_policy != NO_STOP:
        code, hint = (
            KUEUE_QUEUE_STOPPED.code,
            f"LocalQueue {queue!r} has stopPolicy: {local.stop_policy}; set it to None "
            "when jobs should run again",
        )
    elif (inactive := inactive_message(cluster_queue, kueue.flavors)) is not None:
        message = f"{message} ({inactive})"
        stopped_only = not missing_flavors(cluster_queue, kueue.flavors)
        code = KUEUE_QUEUE_STOPPED.code if stopped_only else KUEUE_QUEUE_MISSING.code
        hint = (
            f"set ClusterQueue {cluster_queue.name!r}'s stopPolicy to None when jobs should "
            "run again"
            if stopped_only
            else f"create the ResourceFlavors ClusterQueue {cluster_queue.name!r} names"
        )
    else:
        selector = found.cluster.line_of(
            CLUSTER_QUEUE, cluster_queue.name, ("spec", "namespaceSelector")
        )
        code, hint = (
            KUEUE_NAMESPACE_NOT_SELECTED.code,
            f"label Namespace {job.namespace!r} so that ClusterQueue "
            f"{cluster_queue.name!r}'s namespaceSelector selects it, or widen the selector "
            "({} selects every namespace)" + _written_at([selector] if selector else []),
        )
    return locate(
        _queue_label(job),
        code,
        f"Kueue would never admit {_described(job)} (queue {queue!r}): {message}",
        hint=hint,
    )


def _local_names(found: AdmissionInput) -> str:
    names = sorted(
        q.name for q in found.cluster.kueue.local_queues if q.namespace == found.job.namespace
    )
    return ", ".join(repr(name) for name in names) if names else "none is declared"


def _inadmissible(
    found: AdmissionInput, verdict: Verdict, queue: ClusterQueue, assignment: Assignment
) -> Diagnostic:
    """The PodSet that fits under no flavor, at the request (or count) at fault."""
    job = found.job
    failed = next(result for result in assignment.pod_sets if not result.fits)
    resource = _resource_at_fault(failed)
    pod = next((p for p in found.pods if p.replicated_job == failed.name), None)
    origin = _request_origin(job, pod, failed.name, resource)
    pods = pod.described() if pod is not None else f"the pods of replicatedJob {failed.name!r}"
    return locate(
        origin,
        KUEUE_INADMISSIBLE.code,
        f"Kueue would never admit {_described(job)}, queued in ClusterQueue {queue.name!r}: "
        f"{pods}, fit its quota under no flavor, even with nothing else running: "
        f"{verdict.message}",
        hint=_capacity_hint(queue, resource)
        + _defaulted(found, pod, resource)
        + _written_at(cause_lines(found.cluster, queue.name, sorted(failed.reasons))),
    )


def _written_at(lines: list[str]) -> str:
    """The cluster's lines behind a verdict, for the hint (the finding stays on the
    TrainJob's own line)."""
    return f"; the cluster writes it at {', '.join(lines)}" if lines else ""


def _defaulted(found: AdmissionInput, pod: CreatedPod | None, resource: str | None) -> str:
    """A note when no pod asks for ``resource`` itself: a LimitRange default does."""
    if pod is None or resource is None or _request_path(pod.spec, resource) is not None:
        return ""
    namespace = found.job.namespace
    items = (
        item
        for limit_range in found.cluster.limit_ranges.get(namespace, ())
        for item in limit_range.items
    )
    if not any(resource in item.default or resource in item.default_request for item in items):
        return ""
    line = default_line(found.cluster, namespace, resource)
    return (
        f"; the pods ask for no {resource} themselves: a LimitRange of namespace "
        f"{namespace!r} gives them its default" + (f" ({line})" if line else "")
    )


def _resource_at_fault(result: PodSetResult) -> str | None:
    """The first resource Kueue's reasons name (None: a taint or node affinity)."""
    for reason in sorted(result.reasons):
        for pattern in _RESOURCE_REASONS:
            match = pattern.match(reason)
            if match is not None:
                return match["resource"]
    return None


def _request_origin(
    job: ResolvedJob, pod: CreatedPod | None, pod_set: str, resource: str | None
) -> Origin:
    """The line of the value at fault: the pod count for ``pods``, else the first
    container (or pod-level resources) asking for ``resource``; the queue label when
    nothing the job wrote names it (a flavor's taint or node labels)."""
    if resource == PODS:
        counted = next((p for p in job.pod_sets if p.name == pod_set), None)
        if counted is not None:
            return counted.count_origin
    if pod is not None and resource is not None:
        path = _request_path(pod.spec, resource)
        if path is not None:
            return pod.origin(path)
    return _queue_label(job)


def _request_path(spec: JsonObject, resource: str) -> FieldPath | None:
    """Where the pod spec asks for ``resource``: a request, or a limit standing in."""
    for key in _REQUEST_KEYS:
        for containers in _CONTAINER_LISTS:
            for index, item in enumerate(as_list(spec.get(containers))):
                amounts = as_object(as_object(as_object(item).get("resources")).get(key))
                if resource in amounts:
                    return ("spec", containers, index, "resources", key, resource)
        if resource in as_object(as_object(spec.get("resources")).get(key)):
            return ("spec", "resources", key, resource)
    return None


def _capacity_hint(queue: ClusterQueue, resource: str | None) -> str:
    name = queue.name
    if resource is None:
        return (
            f"tolerate the flavors' nodeTaints or match their nodeLabels (ClusterQueue "
            f"{name!r}), or queue the job where a flavor's nodes suit it"
        )
    if not any(resource in group.covered for group in queue.resource_groups):
        return (
            f"add {resource} to a resourceGroup of ClusterQueue {name!r} (coveredResources "
            "and a flavor's quota), or do not request it"
        )
    return (
        f"raise the nominalQuota of {resource} in the flavors of ClusterQueue {name!r} (or "
        "what its cohort lends, within borrowingLimit) to what the pods need together, or "
        "request less per node or fewer nodes"
    )


def _blocks_queue(job: ResolvedJob, verdict: Verdict, queue: ClusterQueue) -> Diagnostic:
    return locate(
        _queue_label(job),
        KUEUE_BLOCKS_QUEUE.code,
        f"Kueue would never admit {_described(job)} (queue {verdict.queue_name!r}), and it "
        f"holds up ClusterQueue {queue.name!r}: its queueingStrategy is StrictFIFO, so Kueue keeps "
        "retrying the oldest job first and every job queued after it waits too",
        hint=f"fix the job so that Kueue can admit it, or set queueingStrategy: "
        f"BestEffortFIFO on ClusterQueue {queue.name!r}",
    )
