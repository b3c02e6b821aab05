"""trainc's ownership labels on the JobSet and its Jobs, and the sweeper's lifecycle settings.

The JobSet is labelled ``app.kubernetes.io/managed-by: trainc`` and
``trainer.kubeflow.org/trainjob-name: <tj>`` (the build labels every other object it
builds alike, :mod:`trainc.build.job`), so the sweeper touches nothing trainc did
not create and finds everything one TrainJob produced. So is every replicatedJob's Job
template: the JobSet controller copies those labels onto the child Jobs it creates, which
is how the sweeper finds the Jobs it fails or deletes (beside JobSet's own
``jobset.sigs.k8s.io/jobset-name`` label). The JobSet carries, as annotations, what
no upstream JobSet field can hold (``docs/upstream.md``, "Lifecycle: deadlines, TTL,
deletion"): the source file, the TrainJob's ``activeDeadlineSeconds`` (KEP-2899; Trainer
does not copy it into the JobSet), the runtime's ``ttlSecondsAfterFinished`` (KEP-2899) and
a progress deadline (``docs/design.md``, "Lifecycle": fail work that never starts), taken
from the TrainJob's annotation of that
key or else from the runtime's, each value written with the codec the sweeper reads
(:mod:`trainc.model.lifecycle`).

Deadline enforcement. JobSet has no deadline of its own (``docs/upstream.md``, "JobSet"),
and the git-declared
JobSet must not be edited or deleted in the cluster: GitOps self-heal would put it back
and start the job again. So when a deadline expires the sweeper fails the JobSet's child
Jobs, which git does not own, by lowering their ``activeDeadlineSeconds``; the Job
controller marks them Failed with reason ``DeadlineExceeded`` and the JobSet turns
terminal. A JobSet without a ``failurePolicy`` already fails on any failed Job, but one
with a policy would fall through to the default ``RestartJobSet`` and run again
(https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/failure_policy.go).
Every JobSet with a ``failurePolicy`` therefore gets ``{name: TraincDeadlineExceeded,
action: FailJobSet, onJobFailureReasons: [DeadlineExceeded]}`` first, ahead of the
runtime's own rules (first match wins), whether or not a deadline is set today: the JobSet
API makes ``spec.failurePolicy`` immutable, so a rule that came and went with the deadline
would make adding a deadline to a running job (or a progress deadline to its runtime) an
update the API server refuses. Without a deadline the rule is inert: runtimes cannot give
Jobs a deadline of their own (KEP-2899 rule ``runtime.no-job-deadline``), so only the
sweeper's doing ever fails a Job with ``DeadlineExceeded``.
"""

from __future__ import annotations

from typing import Final

from trainc.diagnostics import Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.load.pathnames import text_name
from trainc.model.json import JsonObject, JsonValue, as_list, get_path
from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    TRAINJOB_NAME_LABEL,
    TTL_ANNOTATION,
)
from trainc.model.lifecycle import describe_bounds, format_seconds, parse_seconds
from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.edits import child_object, set_labels
from trainc.resolve.provenance import Origin, Written

COMPILE_PROGRESS_DEADLINE = Rule(
    "compile.progress-deadline",
    Severity.ERROR,
    "the progress-deadline annotation is not a positive integer",
    compiled=True,
)


#: Name of the failure-policy rule that lets a sweeper-failed Job fail the whole JobSet
#: (a valid rule name for the JobSet webhook: ``^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$``).
DEADLINE_RULE_NAME: Final = "TraincDeadlineExceeded"
_PLUGIN: Final = "lifecycle"


@dataclass(frozen=True, slots=True)
class LifecyclePlugin:
    """Labels the JobSet and its Job templates; gives the JobSet its lifecycle annotations."""

    @property
    def name(self) -> str:
        """trainc's own concern: there is no upstream plugin for it."""
        return "lifecycle"

    def settle(self, context: Resolution) -> None:
        """Label and annotate the JobSet; runs after every plugin that shapes the JobSet (only
        the TrainJob's own metadata comes later, to see trainc's keys and report a clash)."""
        labels = ownership_labels(context.job.name, context.trainjob_at("metadata", "name"))
        annotations = _jobset_annotations(context)
        set_labels(context.trace, context.jobset_metadata, labels)
        set_labels(context.trace, context.jobset_metadata, annotations, key="annotations")
        for job in context.replicated_jobs():
            template = child_object(job, "template")
            set_labels(context.trace, child_object(template, "metadata"), labels)
        _fail_on_deadline(context)


def ownership_labels(name: str, origin: Origin) -> dict[str, tuple[str, Origin]]:
    """trainc's labels on everything built for TrainJob ``name``, each with ``origin``."""
    return {
        MANAGED_BY_LABEL: (MANAGED_BY_TRAINC, origin),
        TRAINJOB_NAME_LABEL: (name, origin),
    }


def _jobset_annotations(context: Resolution) -> dict[str, tuple[str, Origin]]:
    """Source path and the lifecycle settings that are set, as annotation values."""
    job = context.job
    annotations: dict[str, tuple[str, Origin]] = {
        SOURCE_ANNOTATION: (
            text_name(job.trainjob.loaded.path),
            context.derived(_PLUGIN, "the TrainJob's file", context.trainjob_at("metadata")),
        )
    }
    if job.spec.active_deadline_seconds is not None:
        annotations[ACTIVE_DEADLINE_ANNOTATION] = (
            format_seconds(job.spec.active_deadline_seconds),
            context.trainjob_at("spec", "activeDeadlineSeconds"),
        )
    if job.runtime_spec.ttl_seconds_after_finished is not None:
        annotations[TTL_ANNOTATION] = (
            format_seconds(job.runtime_spec.ttl_seconds_after_finished),
            context.runtime_at("spec", "ttlSecondsAfterFinished"),
        )
    progress = _progress_deadline(context)
    if progress is not None:
        annotations[PROGRESS_DEADLINE_ANNOTATION] = progress
    return annotations


def _progress_deadline(context: Resolution) -> tuple[str, Origin] | None:
    """The TrainJob's progress deadline annotation, else the runtime's; None when invalid.

    A value that is not a positive whole number of seconds is the user's to fix, reported
    on the object that set it; the JobSet then gets no progress deadline.
    """
    key = PROGRESS_DEADLINE_ANNOTATION
    for source in (context.job.trainjob, context.job.runtime):
        value = _annotation(source, key)
        if value is None:
            continue
        at = ("metadata", "annotations", key)
        if isinstance(value, str) and parse_seconds(key, value) is not None:
            return value, Written(source, at)
        context.findings.append(
            source.finding(
                at,
                COMPILE_PROGRESS_DEADLINE.code,
                f"{key} is {value!r}: it must be {describe_bounds(key)}",
                hint='write whole seconds as a quoted string, e.g. "600"',
            )
        )
        return None
    return None


def _annotation(source: DefaultedObject, key: str) -> JsonValue:
    return get_path(source.data, ("metadata", "annotations", key))


def _fail_on_deadline(context: Resolution) -> None:
    """Put the deadline rule first in an existing failurePolicy, exactly once."""
    policy = context.jobset_spec.get("failurePolicy")
    if not isinstance(policy, dict):
        return
    rules = policy.get("rules")
    others = [
        existing
        for existing in as_list(rules)
        if get_path(existing, ("name",)) != DEADLINE_RULE_NAME
    ]
    rule: JsonObject = {
        "name": DEADLINE_RULE_NAME,
        "action": "FailJobSet",
        "onJobFailureReasons": ["DeadlineExceeded"],
    }
    cause = context.cause_at(("failurePolicy",))
    context.trace.node(
        rule, context.derived(_PLUGIN, "a deadline must fail the JobSet, not restart it", cause)
    )
    rules_origin = context.origin_in_spec(("failurePolicy", "rules"))
    for index, existing in enumerate(as_list(rules)):
        context.trace.node(existing, context.trace.child_origin(rules, rules_origin, index))
    context.trace.put(policy, "rules", [rule, *others], rules_origin)
