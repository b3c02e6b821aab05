"""The values JobSet's mutating webhook stores on create, written into the compiled JobSet.

Upstream Trainer leaves them to the webhook (``upstream-semantics.md`` §2.7). trainc emits
them explicitly (§4.3) so that the manifest in Git is the object the API server stores:
reviewers see that pods are ``Indexed`` (the rank variables read the completion index),
trainc's own checks of the output see the stored shape (the §4.4 name budgets assume
Indexed), and nothing depends on whether the webhook ran. Every value is only filled in
when the runtime left it unset, exactly as the webhook does, so runtimes that choose
otherwise keep their choice.

Failure-rule names are not defaulted: the CRD requires them, so the input validation
already rejects a nameless rule.
"""

from __future__ import annotations

from trainc.build.k8s import child_object
from trainc.model.json import JsonObject, as_list


def apply_webhook_defaults(spec: JsonObject) -> None:
    """Fill the webhook's defaults into a JobSet ``spec``, in place."""
    spec.setdefault("successPolicy", {"operator": "All"})
    spec.setdefault("startupPolicy", {"startupPolicyOrder": "AnyOrder"})
    for job in as_list(spec.get("replicatedJobs")):
        if isinstance(job, dict):
            _default_job(job)
    network = child_object(spec, "network")
    network.setdefault("enableDNSHostnames", True)
    network.setdefault("publishNotReadyAddresses", True)
    for policy in as_list(spec.get("volumeClaimPolicies")):
        if isinstance(policy, dict):
            policy.setdefault("retentionPolicy", {"whenDeleted": "Delete"})


def _default_job(job: JsonObject) -> None:
    """Indexed completion for the Job, ``OnFailure`` restarts for its pods."""
    job_spec = child_object(child_object(job, "template"), "spec")
    job_spec.setdefault("completionMode", "Indexed")
    pod = child_object(child_object(job_spec, "template"), "spec")
    if not pod.get("restartPolicy"):
        pod["restartPolicy"] = "OnFailure"
