"""The cluster's admission of the sweeper: its objects, its Jobs and its pods, once per run.

With a ``sweeper`` section, the output carries the sweeper's CronJob, ServiceAccount and
RBAC objects, which the GitOps tool applies; every run of the schedule, the CronJob
controller (``cluster.identities.cronjobController``) creates a Job from the CronJob's
``jobTemplate``, and the Job controller creates its pod
(https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/). Each passes the
admission a TrainJob's objects pass, by the same families: the policies on every object
(:func:`~trainc.checks.admission.policies.judge.check_run_objects`), Pod Security
(:func:`~trainc.checks.admission.pod_security.judge.pod_outcomes`), LimitRanger's
defaults and bounds (:func:`~trainc.checks.admission.limit_ranges.judge.pod_causes`),
and the ResourceQuotas (:func:`~trainc.checks.admission.resource_quotas.judge.pod_quota_causes`
for the pod; the object counts, such as ``count/jobs.batch`` and
``count/cronjobs.batch``, for the rest). A refused sweeper pod is a deadline nobody
enforces: the Job records ``FailedCreate`` every schedule, and nothing else says so.

The sweeper is no TrainJob's: it is judged once per run, and each finding names it and
goes where ``place`` puts a path of the CronJob (its Jobs' and pods' values are paths
under its ``jobTemplate``): the engine puts it on the trainc.yaml setting behind it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from trainc.checks.admission.cluster import ClusterObjects
from trainc.checks.admission.created import GITOPS_TOOL, JOB_CONTROLLER
from trainc.checks.admission.limit_ranges.judge import pod_causes
from trainc.checks.admission.mutated import mutated_pod_spec
from trainc.checks.admission.pod_security.judge import (
    PSA_FORBIDDEN,
    field_at_fault,
    fixes_hint,
    outcome_of,
    pod_outcomes,
)
from trainc.checks.admission.policies import resource_for
from trainc.checks.admission.policies.judge import (
    Place,
    RunObject,
    check_run_objects,
    policy_verdict,
)
from trainc.checks.admission.resource_quotas.evaluators import Target
from trainc.checks.admission.resource_quotas.judge import (
    QUOTA_MUST_SPECIFY,
    pod_quota_causes,
    quota_refusal,
    refusal_rule,
)
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Diagnostic
from trainc.model.json import FieldPath, JsonObject, as_object, get_path

#: Where a CronJob holds its Jobs' template, and a Job its pods'.
JOB_TEMPLATE: Final = ("spec", "jobTemplate")
POD_TEMPLATE: Final = (*JOB_TEMPLATE, "spec", "template")
CRONJOB_CONTROLLER: Final = "the CronJob controller"

#: Places one finding at a path of one of the sweeper's objects: (object, path, rule
#: code, message, hint) → the finding.
SweeperPlace = Callable[[JsonObject, FieldPath, str, str, str | None], Diagnostic]


@dataclass(frozen=True, slots=True)
class SweeperInput:
    """The sweeper's objects as trainc builds them, the cluster, the Kubernetes release
    whose admission applies, where findings go, and the namespace objects without one
    land in (the run's default)."""

    objects: tuple[JsonObject, ...]
    cluster: ClusterObjects
    release: KubeVersion
    place: SweeperPlace
    default_namespace: str


def check_sweeper(found: SweeperInput) -> list[Diagnostic]:
    """Every admission finding about the sweeper's objects, Jobs and pods; none without a
    cluster or a sweeper."""
    if not found.cluster.configured:
        return []
    findings: list[Diagnostic] = []
    counted: list[Diagnostic] = []
    sent = [RunObject(obj, _applied(obj), _placer(found, obj)) for obj in found.objects]
    for cron_job in (obj for obj in found.objects if obj.get("kind") == "CronJob"):
        judged, runs, counts = _check_runs(found, cron_job)
        findings += judged
        sent += runs
        counted += counts
    findings += check_run_objects(found.cluster, sent)
    return [*findings, *counted, *_object_counts(found, ((o, _applied(o)) for o in found.objects))]


def _applied(obj: JsonObject) -> str:
    kind = text(obj.get("kind")) or "object"
    name = text(get_path(obj, ("metadata", "name"))) or ""
    return f"the sweeper's {kind} {name!r}, {GITOPS_TOOL}"


def _placer(found: SweeperInput, obj: JsonObject, under: FieldPath = ()) -> Place:
    """Findings about a value at ``path`` of an object that sits at ``under`` of ``obj``."""
    return lambda path, code, message, hint: found.place(obj, (*under, *path), code, message, hint)


def _check_runs(
    found: SweeperInput, cron_job: JsonObject
) -> tuple[list[Diagnostic], list[RunObject], list[Diagnostic]]:
    """The Jobs the CronJob controller creates from ``cron_job`` and their pods: what
    LimitRanger, Pod Security and the quotas say of the pods, the Job and pod as the
    policies will be sent them, and the Jobs' object-count quotas. As for a TrainJob's
    (:mod:`trainc.checks.admission.judge`), a refused Job creates no pod, and the first
    plugin that refuses a pod ends its request: the later ones never see it."""
    cluster, release = found.cluster, found.release
    name = text(get_path(cron_job, ("metadata", "name"))) or ""
    namespace = text(get_path(cron_job, ("metadata", "namespace"))) or found.default_namespace
    template = as_object(get_path(cron_job, JOB_TEMPLATE))
    job: JsonObject = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {**as_object(template.get("metadata")), "namespace": namespace},
        "spec": as_object(template.get("spec")),
    }
    pod_template = as_object(get_path(cron_job, POD_TEMPLATE))
    metadata = {**as_object(pod_template.get("metadata")), "namespace": namespace}
    written = as_object(pod_template.get("spec"))
    spec = mutated_pod_spec(cluster, namespace, written, release)
    jobs = f"the Jobs of the sweeper's CronJob {name!r}, created by {CRONJOB_CONTROLLER}"
    pods = f"the pods of the sweeper's CronJob {name!r}, created by {JOB_CONTROLLER}"

    def at_pod(path: FieldPath, code: str, message: str, hint: str | None) -> Diagnostic:
        return found.place(cron_job, (*POD_TEMPLATE, *path), code, message, hint)

    job_verdict = policy_verdict(cluster, job, cluster.creators.cronjob_controller)
    job_sent = RunObject(
        job,
        jobs,
        _placer(found, cron_job, JOB_TEMPLATE),
        plural=True,
        user=cluster.creators.cronjob_controller,
        verdict=job_verdict,
    )
    counts = _object_counts(found, [(job, jobs)], cron_job)
    if job_verdict.denials or counts:  # the Job is never created, nor its pods
        return [], [job_sent], counts
    limit_ranges = list(cluster.limit_ranges.get(namespace, ()))
    refused = list(pod_causes(limit_ranges, written, release))
    findings = [
        at_pod(
            cause.path, cause.code, f"the API server would refuse {pods}: {cause.text}", cause.hint
        )
        for cause in refused
    ]
    if refused:  # LimitRanger ends the pod's request: no later plugin sees it
        return findings, [job_sent], counts
    for rule, said, violations in pod_outcomes(cluster, release, namespace, metadata, written):
        findings.append(
            at_pod(
                field_at_fault(written, violations[0]),
                rule.code,
                f"{pods} in namespace {namespace!r}, {outcome_of(rule.code)}: {said}",
                fixes_hint(violations),
            )
        )
    pod: JsonObject = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    if any(finding.code == PSA_FORBIDDEN.code for finding in findings):
        return findings, [job_sent], counts
    pod_verdict = policy_verdict(cluster, pod, cluster.creators.job_controller)
    pod_sent = RunObject(
        pod, pods, at_pod, plural=True, user=cluster.creators.job_controller, verdict=pod_verdict
    )
    if not pod_verdict.denials:  # a refusal by the policies ends the pod's request
        target = Target("", "pods", {"metadata": metadata, "spec": spec})
        quotas = list(cluster.quotas.get(namespace, ()))
        findings.extend(
            at_pod(
                _resources(cause.code, cause.path),
                cause.code,
                f"the API server would refuse {pods}: {cause.text}",
                cause.hint,
            )
            for cause in pod_quota_causes(quotas, target, written, release, cluster.limited)
        )
    return findings, [pod_sent, job_sent], counts


def _resources(code: str, path: FieldPath) -> FieldPath:
    """Where a quota's "must specify" of a container is answered: its ``resources``, which
    the sweeper's settings write (the family names the container, which they do not)."""
    return (*path, "resources") if code == QUOTA_MUST_SPECIFY.code else path


def _object_counts(
    found: SweeperInput,
    objects: Iterable[tuple[JsonObject, str]],
    cron_job: JsonObject | None = None,
) -> list[Diagnostic]:
    """Object-count quotas (``count/cronjobs.batch``, ``count/jobs.batch``, ...) on each
    namespaced object (``objects``: each with how a finding names it), at its namespace
    setting (a Job's: its ``cron_job``'s)."""
    findings: list[Diagnostic] = []
    for obj, named in objects:
        resource = resource_for(text(obj.get("apiVersion")) or "", text(obj.get("kind")) or "")
        if resource is None or not resource.namespaced:
            continue
        namespace = text(get_path(obj, ("metadata", "namespace"))) or found.default_namespace
        target = Target(resource.group, resource.resource, obj)
        refusal = quota_refusal(found.cluster, namespace, target, found.release)
        if refusal is not None:
            code, hint = refusal_rule(refusal)
            message = f"the API server would refuse {named}: {refusal.message}"
            findings.append(
                found.place(cron_job or obj, ("metadata", "namespace"), code, message, hint)
            )
    return findings
