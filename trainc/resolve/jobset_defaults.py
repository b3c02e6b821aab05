"""The values JobSet's mutating webhook stores on create, written into the resolved JobSet.

Upstream Trainer leaves them to the webhook (``docs/upstream.md``, "JobSet"; the defaulting
is in https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go).
trainc emits them explicitly so that the manifest in Git is the object the API server stores:
reviewers see that pods are ``Indexed`` (the rank variables read the completion index),
trainc's own checks see the stored shape (the webhook's name budgets assume Indexed, the Job
checks judge ``restartPolicy`` as the Jobs will have it), and nothing depends on whether
the webhook ran. Every value is only filled in when the runtime left it unset, exactly
as the webhook does, so runtimes that choose otherwise keep their choice.

Failure-rule names are not defaulted: the CRD requires them, so the input validation
already rejects a nameless rule.
"""

from __future__ import annotations

from trainc.model.json import JsonObject, JsonValue, as_list
from trainc.resolve.context import Resolution
from trainc.resolve.edits import child_object
from trainc.resolve.provenance import Derived, Written

_WEBHOOK = "the JobSet webhook"


def apply_webhook_defaults(context: Resolution) -> None:
    """Fill the webhook's defaults into the working JobSet spec, in place."""
    spec = context.jobset_spec
    top = context.cause_at(())
    _default(context, spec, "successPolicy", {"operator": "All"}, top)
    _default(context, spec, "startupPolicy", {"startupPolicyOrder": "AnyOrder"}, top)
    for job in context.replicated_jobs():
        _default_job(context, job)
    network = child_object(spec, "network")
    _default(context, network, "enableDNSHostnames", True, top)  # noqa: FBT003 - a value
    _default(context, network, "publishNotReadyAddresses", True, top)  # noqa: FBT003
    for policy in as_list(spec.get("volumeClaimPolicies")):
        if isinstance(policy, dict):
            _default(context, policy, "retentionPolicy", {"whenDeleted": "Delete"}, top)


def _default_job(context: Resolution, job: JsonObject) -> None:
    """Indexed completion for the Job, ``OnFailure`` restarts for its pods."""
    cause = context.job_cause(job)
    job_spec = child_object(child_object(job, "template"), "spec")
    _default(context, job_spec, "completionMode", "Indexed", cause)
    pod = child_object(child_object(job_spec, "template"), "spec")
    if not pod.get("restartPolicy"):
        pod.pop("restartPolicy", None)
        _default(context, pod, "restartPolicy", "OnFailure", cause)


def _default(
    context: Resolution, parent: JsonObject, key: str, value: JsonValue, cause: Written
) -> None:
    if key not in parent:
        origin = Derived(_WEBHOOK, f"{key} defaults to {value!r}", cause)
        context.trace.put(parent, key, value, origin)
