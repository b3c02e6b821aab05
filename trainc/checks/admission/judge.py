"""The cluster's admission of one TrainJob's objects: every family, in the API server's order.

Mutating admission runs before validating admission, so LimitRanger's defaults are what
ResourceQuota and the policies see of a pod
(https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#which-plugins-are-enabled-by-default).
The validating plugins then run one after another in kube-apiserver's order
(``AllOrderedPlugins`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/kubeapiserver/options/plugins.go:
LimitRanger, PodSecurity, ..., ValidatingAdmissionPolicy, ValidatingAdmissionWebhook,
ResourceQuota), and the first that refuses a request ends it: the later ones never see
the pod, so they neither refuse nor warn about it (their findings would be noise). The
pod validation that follows LimitRanger's defaults (``limitrange.default-below-request``)
refuses before any of them, and the mutating Priority plugin's refusal of a class the
cluster lacks before that. Each plugin is asked once per object: its verdict on the pods
(:class:`~trainc.checks.admission.created.Judged`) carries both its findings and the pods
it refuses, and the policies' and quotas' verdicts on the TrainJob, the JobSet and the
Jobs, asked first to learn what is created after them, are kept for their findings
(:class:`~trainc.checks.admission.created.ObjectVerdict`). Objects come one after another
too: a Job the policies or the quotas refuse is never created, nor its pods; a refused
JobSet has no Jobs, and Kueue never sees it; with ``deploy: TrainJob`` a refused TrainJob
has nothing after it. Kueue judges the workload once the JobSet exists, whatever becomes of its
pods. A family is one module with a
:data:`~trainc.checks.admission.created.AdmissionCheck` and one line here.
"""

from __future__ import annotations

from dataclasses import replace

from trainc.checks.admission.cluster import StoredKey, object_identity
from trainc.checks.admission.created import AdmissionCheck, AdmissionInput, ObjectVerdict
from trainc.checks.admission.kueue.judge import check_kueue
from trainc.checks.admission.limit_ranges.judge import judge_limit_ranges
from trainc.checks.admission.pod_security.judge import judge_pod_security
from trainc.checks.admission.policies import UserInfo, resource_for
from trainc.checks.admission.policies.judge import judge_policies, policy_verdict
from trainc.checks.admission.priority import judge_priority
from trainc.checks.admission.resource_quotas.evaluators import Target
from trainc.checks.admission.resource_quotas.judge import judge_resource_quotas, quota_refusal
from trainc.diagnostics import Diagnostic
from trainc.model.json import JsonObject
from trainc.model.labels import JOBSET_KIND

#: The plugins that judge a TrainJob's pods, in the API server's order: the Priority
#: plugin's refusal comes in the mutating phase, before the pod validation and
#: LimitRanger's (which :func:`judge_limit_ranges` reports), then the validating ones.
POD_PLUGINS: tuple[AdmissionCheck, ...] = (
    judge_priority,
    judge_limit_ranges,
    judge_pod_security,
    judge_policies,
    judge_resource_quotas,
)


def check_admission(found: AdmissionInput) -> list[Diagnostic]:
    """Every family's findings about one TrainJob's objects; none without a cluster.

    Each plugin judges each pod once, and only the pods no earlier plugin refused.
    """
    if not found.cluster.configured:
        return []
    findings: list[Diagnostic] = []
    judged = _prejudged(found)
    for plugin in POD_PLUGINS:
        verdict = plugin(judged)
        findings.extend(verdict.findings)
        if verdict.refused:
            judged = replace(judged, refused=judged.refused | verdict.refused)
    if not judged.jobset_refused:  # Kueue never sees a JobSet the API server refused
        findings.extend(check_kueue(found))
    return findings


def _prejudged(found: AdmissionInput) -> AdmissionInput:
    """``found`` with the policies' and quotas' verdicts on the objects that decide what
    is created after them, each asked once: with ``deploy: TrainJob`` the TrainJob (a
    refused one creates nothing), the JobSet (a refused one creates no Job), then each
    Job (a refused one creates no pod)."""
    verdicts: dict[StoredKey, ObjectVerdict] = {}

    def refused(obj: JsonObject, user: UserInfo, old: JsonObject | None = None) -> bool:
        verdict = _object_verdict(found, obj, user, old)
        if verdict is None:
            return False
        verdicts[object_identity(obj)] = verdict
        return verdict.refused

    creators = found.cluster.creators
    trainjob = found.job.trainjob.data
    if found.through_trainer and refused(trainjob, creators.gitops, found.old(trainjob)):
        return replace(found, trainjob_refused=True, jobset_refused=True, prejudged=verdicts)
    jobset = _jobset(found)
    # An UPDATE of the deployed JobSet when the GitOps tool applies it over one (``--base``).
    if refused(jobset, found.builder, found.updated(jobset)):
        return replace(found, jobset_refused=True, prejudged=verdicts)
    never_created = frozenset(
        child.replicated_job
        for child in found.child_jobs
        if refused(child.job, creators.jobset_controller)
    )
    return replace(found, refused=never_created, prejudged=verdicts)


def _jobset(found: AdmissionInput) -> JsonObject:
    """The JobSet the GitOps tool (or, with ``deploy: TrainJob``, the Trainer controller)
    sends: as trainc builds it, else as resolved."""
    applied = (obj for obj in found.applied if obj.get("kind") == JOBSET_KIND)
    return next(applied, None) or found.job.stored_jobset()


def _object_verdict(
    found: AdmissionInput, obj: JsonObject, user: UserInfo, old: JsonObject | None = None
) -> ObjectVerdict | None:
    """What the policies and the quotas (alone, nothing else running) say of the
    TrainJob, the JobSet or a Job sent by ``user`` (an UPDATE of ``old``, if given, which
    the quotas charge only what it adds); None for a kind the cluster does not serve."""
    api_version = str(obj.get("apiVersion") or "")
    resource = resource_for(api_version, str(obj.get("kind") or ""))
    if resource is None:
        return None
    target = Target(resource.group, resource.resource, obj, old)
    return ObjectVerdict(
        policy_verdict(found.cluster, obj, user, old),
        quota_refusal(found.cluster, found.job.namespace, target, found.release),
    )
