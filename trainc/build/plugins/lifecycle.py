"""trainc's ownership labels on every object, and the sweeper's lifecycle settings on the JobSet.

Every built object is labelled ``app.kubernetes.io/managed-by: trainc`` and
``trainer.kubeflow.org/trainjob-name: <tj>``, so the sweeper touches nothing trainc did not
create and finds everything one TrainJob produced. So is every replicatedJob's Job
template: the JobSet controller copies those labels onto the child Jobs it creates, which
is how the sweeper finds the Jobs it fails or deletes (beside JobSet's own
``jobset.sigs.k8s.io/jobset-name`` label). The JobSet carries, as annotations, what
no upstream JobSet field can hold (``upstream-semantics.md`` §5.6): the source file, the
TrainJob's ``activeDeadlineSeconds`` (KEP-2899; Trainer does not copy it into the JobSet,
§5.1), the runtime's ``ttlSecondsAfterFinished`` (KEP-2899, §5.2) and a progress deadline
(seed ``003``: fail work that never starts), taken from the TrainJob's annotation of that
key or else from the runtime's.

Deadline enforcement. JobSet has no deadline of its own (§4.9), and the git-declared
JobSet must not be edited or deleted in the cluster: GitOps self-heal would put it back
and start the job again. So when a deadline expires the sweeper fails the JobSet's child
Jobs, which git does not own, by lowering their ``activeDeadlineSeconds``; the Job
controller marks them Failed with reason ``DeadlineExceeded`` (§5.4) and the JobSet turns
terminal. A JobSet without a ``failurePolicy`` already fails on any failed Job, but one
with a policy would fall through to the default ``RestartJobSet`` and run again (§4.9).
When a deadline is set and the JobSet has a ``failurePolicy``, this plugin therefore puts
``{name: TraincDeadlineExceeded, action: FailJobSet, onJobFailureReasons:
[DeadlineExceeded]}`` first, ahead of the runtime's own rules (first match wins). Runtimes
cannot give Jobs a deadline of their own (KEP-2899 rule ``runtime.no-job-deadline``), so
the rule only ever matches the sweeper's doing. The progress deadline is enforced the same
way and counts as a deadline here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainc.build.context import BuildContext
from trainc.build.k8s import child_object, set_labels
from trainc.load.pathnames import text_name
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    JOBSET_KIND,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TRAINJOB_NAME_LABEL,
    TTL_ANNOTATION,
)
from trainc.resolve.objects import DefaultedObject

#: Name of the failure-policy rule that lets a sweeper-failed Job fail the whole JobSet
#: (a valid rule name: ``^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$``, §4.4).
DEADLINE_RULE_NAME = "TraincDeadlineExceeded"

_POSITIVE_INTEGER = re.compile(r"[1-9][0-9]*")
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class LifecyclePlugin:
    """Labels every object; gives the JobSet its source and lifecycle annotations."""

    @property
    def name(self) -> str:
        """trainc's own concern: there is no upstream plugin for it."""
        return "lifecycle"

    def finalize(self, context: BuildContext, objects: list[JsonObject]) -> None:
        """Label every object and annotate the JobSet; runs after every other plugin."""
        labels = {MANAGED_BY_LABEL: MANAGED_BY_TRAINC, TRAINJOB_NAME_LABEL: context.job.name}
        annotations = _jobset_annotations(context)
        for obj in objects:
            metadata = obj.get("metadata")
            if not isinstance(metadata, dict):
                metadata = obj["metadata"] = {}
            set_labels(metadata, labels)
            if obj.get("kind") == JOBSET_KIND:
                set_labels(metadata, annotations, key="annotations")
                spec = as_object(obj.get("spec"))
                _label_job_templates(spec, labels)
                if _has_deadline(annotations):
                    _fail_on_deadline(spec)


def _jobset_annotations(context: BuildContext) -> dict[str, str]:
    """Source path and the lifecycle settings that are set, as annotation values."""
    job = context.job
    annotations = {SOURCE_ANNOTATION: text_name(job.trainjob.loaded.path)}
    if job.spec.active_deadline_seconds is not None:
        annotations[ACTIVE_DEADLINE_ANNOTATION] = str(job.spec.active_deadline_seconds)
    if job.runtime_spec.ttl_seconds_after_finished is not None:
        annotations[TTL_ANNOTATION] = str(job.runtime_spec.ttl_seconds_after_finished)
    progress = _progress_deadline(context)
    if progress is not None:
        annotations[PROGRESS_DEADLINE_ANNOTATION] = progress
    return annotations


def _progress_deadline(context: BuildContext) -> str | None:
    """The TrainJob's progress deadline annotation, else the runtime's; None when invalid.

    A value that is not a positive whole number of seconds is the user's to fix, reported
    on the object that set it; the JobSet then gets no progress deadline.
    """
    for source in (context.job.trainjob, context.job.runtime):
        value = _annotation(source, PROGRESS_DEADLINE_ANNOTATION)
        if value is None:
            continue
        if isinstance(value, str) and _valid_seconds(value):
            return value
        context.diagnostics.append(
            source.finding(
                ("metadata", "annotations", PROGRESS_DEADLINE_ANNOTATION),
                "compile.progress-deadline",
                f"{PROGRESS_DEADLINE_ANNOTATION} is {value!r}: it must be a positive whole "
                "number of seconds",
                hint='write whole seconds as a quoted string, e.g. "600"',
            )
        )
        return None
    return None


def _annotation(source: DefaultedObject, key: str) -> JsonValue:
    return get_path(source.data, ("metadata", "annotations", key))


def _valid_seconds(value: str) -> bool:
    return _POSITIVE_INTEGER.fullmatch(value) is not None and int(value) <= _INT64_MAX


def _label_job_templates(spec: JsonObject, labels: dict[str, str]) -> None:
    """Give every replicatedJob's Job template trainc's labels, for its child Jobs."""
    for replicated in as_list(spec.get("replicatedJobs")):
        if isinstance(replicated, dict):
            template = child_object(replicated, "template")
            set_labels(child_object(template, "metadata"), labels)


def _has_deadline(annotations: dict[str, str]) -> bool:
    return ACTIVE_DEADLINE_ANNOTATION in annotations or PROGRESS_DEADLINE_ANNOTATION in annotations


def _fail_on_deadline(spec: JsonObject) -> None:
    """Put the deadline rule first in an existing failurePolicy, exactly once."""
    policy = spec.get("failurePolicy")
    if not isinstance(policy, dict):
        return
    others = [
        existing
        for existing in as_list(policy.get("rules"))
        if get_path(existing, ("name",)) != DEADLINE_RULE_NAME
    ]
    rule: JsonObject = {
        "name": DEADLINE_RULE_NAME,
        "action": "FailJobSet",
        "onJobFailureReasons": ["DeadlineExceeded"],
    }
    policy["rules"] = [rule, *others]
