"""The Kueue plugin: what Kueue reads from a JobSet, carried over from the TrainJob.

With trainc no TrainJob reaches the cluster, so Kueue's TrainJob integration never sees
one: Kueue queues the JobSet, through its JobSet integration, and reads everything from
the JobSet's own labels (``QueueNameForObject`` and the label lookups in
https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/utils.go).
Upstream Trainer copies none of a TrainJob's labels to its JobSet (Kueue reads them off the
TrainJob there). trainc carries them all (:mod:`.metadata`); this plugin settles the two
things where Kueue's keys differ from any other:

- the labels ``kueue.x-k8s.io/queue-name``, ``priority-class`` and
  ``max-exec-time-seconds`` of the TrainJob become the JobSet's labels, over any value the
  runtime template gives (a runtime may name a default queue; the job chooses), where
  any other key keeps the runtime's value;
- ``spec.managedBy: kueue.x-k8s.io/multikueue`` on the TrainJob becomes the JobSet's
  ``spec.managedBy``, so the management cluster's JobSet controller leaves the JobSet
  alone and MultiKueue dispatches it to a worker cluster (the adapter in
  https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobs/jobset/jobset_multikueue_adapter.go);
- a ``spec.managedBy`` equal to the JobSet controller's own value is dropped: it means
  the same as no value, and Kueue's webhook rewrites exactly that value (or none) to
  MultiKueue's on create when the queue dispatches to workers
  (https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobs/jobset/jobset_webhook.go),
  after which git would hold a value the cluster refuses to take back (the field is
  immutable).

Validate, on the resolved JobSet: the labels Kueue's webhook refuses, and fields it owns.
Kueue's JobSet webhook refuses, on create, a queue name that is not a DNS-1123 subdomain
and a ``max-exec-time-seconds`` label that is not a whole number above zero
(``ValidateJobOnCreate`` in
https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/validation.go),
and reads the limit as an int32 (``MaximumExecutionTimeSecondsForObject`` in
https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/utils.go),
ignoring a larger one. It reads the queue name from the label only: one written as the
annotation of the same key, which older Kueue releases read, queues nothing. Two
settings are accepted by every API server yet never work from git (docs/kueue.md):

- ``suspend: true`` on a queued JobSet. Kueue owns that field: its webhook suspends a
  queued JobSet on create, admission resumes it, and an unsuspend it did not grant is
  suspended again. A ``true`` in git never holds the job; under self-heal or drift
  correction the GitOps tool and Kueue flip the field back and forth for as long as the
  job lives, starting and stopping its pods.
- ``managedBy: kueue.x-k8s.io/multikueue`` without a queue name. The JobSet controller
  of the management cluster leaves such a JobSet to MultiKueue, and MultiKueue only
  dispatches what is queued: nothing ever runs it.

Each finding points at the line that set the value (the TrainJob's label, or the runtime
template's that it did not override).
"""

from __future__ import annotations

import re
from typing import Final

from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import JsonObject, as_object, get_path
from trainc.model.labels import (
    JOBSET_CONTROLLER_MANAGED_BY,
    KUEUE_LABELS,
    KUEUE_MAX_EXEC_TIME,
    KUEUE_QUEUE_NAME,
    MULTIKUEUE_MANAGED_BY,
)
from trainc.resolve.context import Resolution
from trainc.resolve.edits import set_labels
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.metadata import dns1123_subdomain_errors

KUEUE_QUEUE_NAME_RULE = Rule(
    "kueue.queue-name",
    Severity.ERROR,
    "the queue name is not a DNS-1123 subdomain, Kueue refuses it",
    doc=RuleDoc(
        what="a `kueue.x-k8s.io/queue-name` label that is not a DNS-1123 subdomain, empty included",
        source="`ValidateQueueName` in Kueue's `pkg/controller/jobframework/validation.go`",
    ),
)

KUEUE_MAX_EXEC_TIME_RULE = Rule(
    "kueue.max-exec-time",
    Severity.ERROR,
    "max-exec-time-seconds is not a whole number from 1 to 2147483647 (refused or ignored)",
    doc=RuleDoc(
        what=(
            "a `kueue.x-k8s.io/max-exec-time-seconds` label that is not a whole number above "
            "zero (refused), or above 2147483647 (ignored: no limit)"
        ),
        source=(
            "`validateCreateForMaxExecTime`, same file; "
            "`MaximumExecutionTimeSecondsForObject` in `utils.go`"
        ),
    ),
)

KUEUE_QUEUE_ANNOTATION = Rule(
    "kueue.queue-annotation",
    Severity.WARNING,
    "the queue name is an annotation, which Kueue no longer reads, and no label",
    doc=RuleDoc(
        what=(
            "the queue name written as an annotation and not as a label: Kueue reads the "
            "label only, so the job runs unqueued"
        ),
        source="`QueueNameForObject` in `utils.go`",
    ),
)

KUEUE_SUSPEND_IN_GIT = Rule(
    "kueue.suspend-in-git",
    Severity.ERROR,
    "a queued job sets suspend: true, a field Kueue owns and GitOps would force back",
    compiled=True,
    doc=RuleDoc(
        what=(
            "`suspend: true` on a queued job: Kueue resumes it on admission and GitOps "
            "suspends it again, forever"
        ),
        source=(
            "Kueue's JobSet webhook (`pkg/controller/jobs/jobset`) and job reconciler "
            "(`pkg/controller/jobframework/reconciler.go`)"
        ),
    ),
)

KUEUE_MULTIKUEUE_WITHOUT_QUEUE = Rule(
    "kueue.multikueue-without-queue",
    Severity.ERROR,
    "managedBy: kueue.x-k8s.io/multikueue without a queue name, so nothing ever runs it",
    doc=RuleDoc(
        what=(
            "`managedBy: kueue.x-k8s.io/multikueue` without a queue name: no controller ever "
            "runs the JobSet"
        ),
        source="Kueue's MultiKueue JobSet adapter, same directory",
    ),
)


class KueuePlugin:
    """Carries Kueue's labels and MultiKueue's ``managedBy`` from the TrainJob to the JobSet."""

    @property
    def name(self) -> str:
        """Kueue's concern: there is no upstream Trainer plugin for it."""
        return "kueue"

    def validate_resolved(self, job: ResolvedJob) -> list[Diagnostic]:
        """What Kueue refuses or fights over in the JobSet as stored."""
        return check_kueue(job)

    def settle(self, context: Resolution) -> None:
        """Kueue's labels onto the JobSet's metadata, and the JobSet's ``managedBy``."""
        set_labels(context.trace, context.jobset_metadata, _carried(context))
        _settle_managed_by(context)


def _carried(context: Resolution) -> dict[str, tuple[str, Origin]]:
    """The TrainJob's Kueue labels, each with the line that wrote it."""
    values = as_object(get_path(context.job.trainjob.data, ("metadata", "labels")))
    return {
        name: (value, context.trainjob_at("metadata", "labels", name))
        for name in KUEUE_LABELS
        if isinstance(value := values.get(name), str)
    }


def _settle_managed_by(context: Resolution) -> None:
    """MultiKueue's value from the TrainJob; never the JobSet controller's own value."""
    spec = context.jobset_spec
    if context.job.spec.managed_by == MULTIKUEUE_MANAGED_BY:
        origin = context.trainjob_at("spec", "managedBy")
        context.trace.put(spec, "managedBy", MULTIKUEUE_MANAGED_BY, origin)
    elif spec.get("managedBy") == JOBSET_CONTROLLER_MANAGED_BY:
        del spec["managedBy"]


#: What Go's ``strconv.Atoi`` parses: an optional sign and decimal digits.
_ATOI: Final = re.compile(r"[+-]?[0-9]+")
#: Kueue reads the label as an int32 into the Workload; a larger value is ignored.
_INT32_MAX: Final = 2**31 - 1


def check_kueue(job: ResolvedJob) -> list[Diagnostic]:
    """Kueue's webhook rules on the JobSet's labels, then the settings that never work."""
    found = _queue_name_errors(job) + _max_exec_time_errors(job) + _queue_annotations(job)
    queue = queue_name(job.jobset_metadata)
    if queue and job.jobset_spec.get("suspend") is True:
        found.append(_suspended(job, queue))
    if not queue and job.jobset_spec.get("managedBy") == MULTIKUEUE_MANAGED_BY:
        found.append(_unqueued_multikueue(job))
    return found


def queue_name(metadata: JsonObject) -> str:
    """The queue Kueue reads from a job's metadata: its ``queue-name`` label, or empty.

    Kueue at HEAD reads the label only (``QueueNameForObject``). Without one Kueue leaves
    the job alone, unless its configuration manages jobs without a queue name.
    """
    value = get_path(metadata, ("labels", KUEUE_QUEUE_NAME))
    return value if isinstance(value, str) else ""


def _origin(job: ResolvedJob, key: str, name: str) -> Origin:
    """Where the JobSet's label or annotation ``name`` came from."""
    found = job.trace.origin(job.jobset_metadata, (key, name))
    if found is not None:
        return found
    return Written(job.runtime, ("spec", "template", "metadata", key, name))


def _queue_name_errors(job: ResolvedJob) -> list[Diagnostic]:
    value = get_path(job.jobset_metadata, ("labels", KUEUE_QUEUE_NAME))
    errors = dns1123_subdomain_errors(value) if isinstance(value, str) else []
    if not errors:
        return []
    return [
        locate(
            _origin(job, "labels", KUEUE_QUEUE_NAME),
            KUEUE_QUEUE_NAME_RULE.code,
            f"Kueue would refuse the JobSet: metadata.labels[{KUEUE_QUEUE_NAME}]: "
            f"Invalid value: {value!r}: {'; '.join(errors)}",
            hint="name the LocalQueue as it is named in the job's namespace, e.g. 'team-a-gpu'",
        )
    ]


def _max_exec_time_errors(job: ResolvedJob) -> list[Diagnostic]:
    value = get_path(job.jobset_metadata, ("labels", KUEUE_MAX_EXEC_TIME))
    if not isinstance(value, str):
        return []
    if not _ATOI.fullmatch(value):
        why = "Kueue would refuse the JobSet: it is not a whole number"
    elif int(value) <= 0:
        why = "Kueue would refuse the JobSet: it must be greater than 0"
    elif int(value) > _INT32_MAX:
        why = f"Kueue ignores a value above {_INT32_MAX}, so the job would run without a limit"
    else:
        return []
    return [
        locate(
            _origin(job, "labels", KUEUE_MAX_EXEC_TIME),
            KUEUE_MAX_EXEC_TIME_RULE.code,
            f"metadata.labels[{KUEUE_MAX_EXEC_TIME}] is {value!r}: {why}",
            hint='write the seconds the job may run once admitted, e.g. "3600"',
        )
    ]


def _queue_annotations(job: ResolvedJob) -> list[Diagnostic]:
    """The queue name written as an annotation (the TrainJob's, or the runtime template's
    that the JobSet keeps), which Kueue no longer reads, on a job with no queue label."""
    if queue_name(job.jobset_metadata):
        return []
    origins: list[Origin] = []
    if _has_queue_annotation(as_object(job.trainjob.data.get("metadata"))):
        origins.append(Written(job.trainjob, ("metadata", "annotations", KUEUE_QUEUE_NAME)))
    carried = _origin(job, "annotations", KUEUE_QUEUE_NAME)
    # The JobSet carries the TrainJob's annotation (one line, said once), unless its
    # runtime template sets the key too.
    if _has_queue_annotation(job.jobset_metadata) and carried not in origins:
        origins.append(carried)
    return [
        locate(
            origin,
            KUEUE_QUEUE_ANNOTATION.code,
            f"Kueue reads the queue name only from the label {KUEUE_QUEUE_NAME}: as an "
            "annotation it queues nothing, and the JobSet would run without Kueue",
            hint=f"make it a label: metadata.labels {KUEUE_QUEUE_NAME}: <LocalQueue>",
        )
        for origin in origins
    ]


def _has_queue_annotation(metadata: JsonObject) -> bool:
    return get_path(metadata, ("annotations", KUEUE_QUEUE_NAME)) is not None


def _suspended(job: ResolvedJob, queue: str) -> Diagnostic:
    return job.trainjob.finding(
        ("spec", "suspend"),
        KUEUE_SUSPEND_IN_GIT.code,
        f"suspend: true on a job queued in Kueue (queue {queue!r}) fights Kueue for the "
        "JobSet's spec.suspend: Kueue resumes the JobSet when it admits it, and a GitOps "
        "tool that corrects drift (Argo CD self-heal, Flux) suspends it again, over and "
        "over, starting and stopping its pods",
        hint="remove spec.suspend: Kueue's webhook suspends a queued JobSet on create and "
        "keeps it so until admission (with its jobset.x-k8s.io/jobset integration "
        "enabled); to hold the job longer, set stopPolicy: Hold on its LocalQueue, or "
        "leave the queue label out until the job should run",
    )


def _unqueued_multikueue(job: ResolvedJob) -> Diagnostic:
    return locate(
        job.origin(("managedBy",)),
        KUEUE_MULTIKUEUE_WITHOUT_QUEUE.code,
        f"managedBy {MULTIKUEUE_MANAGED_BY!r} hands the JobSet to MultiKueue, which only "
        f"dispatches queued jobs, but the job has no {KUEUE_QUEUE_NAME} label: the "
        "management cluster's JobSet controller leaves it alone and no worker cluster "
        "ever receives it",
        hint=f"add the label {KUEUE_QUEUE_NAME}: <LocalQueue> to the TrainJob's metadata, "
        "naming a queue whose ClusterQueue has the MultiKueue admission check",
    )
