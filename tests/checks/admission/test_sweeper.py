"""The sweeper's admission: its CronJob and RBAC objects (the GitOps tool's), its Jobs (the
CronJob controller's) and pods (the Job controller's), judged by the families' own code,
each finding placed at a path of the CronJob for the engine to map onto trainc.yaml."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from trainc.build.sweeper import sweeper_objects, sweeper_setting
from trainc.checks.admission import sweeper
from trainc.checks.admission.cluster import cluster_objects
from trainc.checks.admission.policies import judge as policies_judge
from trainc.checks.admission.policies.admission import admit as policy_admit
from trainc.checks.admission.resource_quotas import judge as quotas_judge
from trainc.checks.admission.resource_quotas.admission import admit as quota_admit
from trainc.checks.admission.sweeper import POD_TEMPLATE, SweeperInput, check_sweeper
from trainc.config.limits import InputLimits
from trainc.config.settings import ClusterSettings, SweeperSettings
from trainc.diagnostics import Diagnostic, finding
from trainc.load.cluster_files import ClusterDocuments
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import FieldPath, JsonObject, as_object, copy_json, get_path

NAMESPACE = "trainc-system"
RESTRICTED = f"""\
apiVersion: v1
kind: Namespace
metadata:
  name: {NAMESPACE}
  labels:
    pod-security.kubernetes.io/enforce: restricted
"""
CRONJOB_CONTROLLER_JOBS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: jobs-by-hand
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [batch]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [jobs]
  validations:
    - expression: >-
        request.userInfo.username !=
        'system:serviceaccount:kube-system:cronjob-controller'
      message: no scheduled Jobs here
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: jobs-by-hand
spec:
  policyName: jobs-by-hand
  validationActions: [Deny]
"""

#: A LimitRange that refuses the sweeper's container (its memory limit is 256Mi).
SMALL_CONTAINERS = f"""\
apiVersion: v1
kind: LimitRange
metadata:
  name: small
  namespace: {NAMESPACE}
spec:
  limits:
    - type: Container
      max: {{memory: 128Mi}}
"""


def _objects() -> tuple[JsonObject, ...]:
    written = SweeperSettings(image="registry.internal/trainc:1.0.0", namespace=NAMESPACE)
    return sweeper_objects(written, ["ml"], source="trainc.yaml")


def _judge(platform: str, objects: tuple[JsonObject, ...]) -> list[tuple[FieldPath, Diagnostic]]:
    parsed = parse_documents(SourceFile(path="platform.yaml", text=platform), InputLimits())
    cluster = cluster_objects(
        ClusterSettings(manifests=("platform.yaml",)),
        ClusterDocuments(manifests=tuple(parsed.documents)),
        default_namespace="ml",
    )
    placed: list[tuple[FieldPath, Diagnostic]] = []

    def place(
        obj: JsonObject, path: FieldPath, code: str, message: str, hint: str | None
    ) -> Diagnostic:
        made = finding(code, message, file="trainc.yaml", hint=hint)
        placed.append((sweeper_setting(obj, path), made))
        return made

    check_sweeper(SweeperInput(objects, cluster, (1, 33), place, "ml"))
    return placed


def test_the_hardened_sweeper_passes_a_restricted_namespace() -> None:
    assert _judge(RESTRICTED, _objects()) == []


def test_a_sweeper_pod_the_namespace_refuses_is_psa_forbidden() -> None:
    """The pods are judged by Pod Security: without the seccomp profile trainc sets,
    restricted refuses them."""
    objects = [copy_json(obj) for obj in _objects()]
    [cron_job] = [obj for obj in objects if obj["kind"] == "CronJob"]
    security = as_object(get_path(cron_job, (*POD_TEMPLATE, "spec", "securityContext")))
    del security["seccompProfile"]
    [(setting, refused)] = _judge(RESTRICTED, tuple(objects))
    assert refused.code == "psa.forbidden"
    assert setting == ("sweeper",)
    assert refused.message.startswith(
        "the pods of the sweeper's CronJob 'trainc-sweeper', created by the Job controller in "
        "namespace 'trainc-system', are refused: pods \"…\" is forbidden: violates "
        'PodSecurity "restricted:latest": seccompProfile'
    ), refused.message


def test_the_sweeper_jobs_are_sent_by_the_cronjob_controller() -> None:
    [(setting, denied)] = _judge(CRONJOB_CONTROLLER_JOBS, _objects())
    assert denied.code == "vap.denied"
    assert setting == ("sweeper",)
    assert denied.message.startswith(
        "the Jobs of the sweeper's CronJob 'trainc-sweeper', created by the CronJob "
        "controller, are refused: jobs.batch is forbidden: ValidatingAdmissionPolicy "
        "'jobs-by-hand' with binding 'jobs-by-hand' denied request: no scheduled Jobs here"
    ), denied.message


def test_a_limit_range_maximum_sits_on_the_resources_setting() -> None:
    [(setting, refused)] = _judge(SMALL_CONTAINERS, _objects())
    assert refused.code == "limitrange.max"
    assert setting == ("sweeper", "resources", "limits", "memory")
    assert "maximum memory usage per Container is 128Mi, but limit is 256Mi" in refused.message


def _counts(allowed: int) -> str:
    """A quota that allows ``allowed`` CronJobs, Jobs and pods in the sweeper's namespace."""
    return f"""\
apiVersion: v1
kind: ResourceQuota
metadata:
  name: counts
  namespace: {NAMESPACE}
spec:
  hard:
    count/cronjobs.batch: "{allowed}"
    count/jobs.batch: "{allowed}"
    pods: "{allowed}"
"""


def test_object_count_quotas_count_the_cronjob_and_its_jobs() -> None:
    found = _judge(_counts(0), _objects())
    assert [(setting, d.code) for setting, d in found] == [
        (("sweeper", "namespace"), "quota.exceeded"),
        (("sweeper", "namespace"), "quota.exceeded"),
    ]
    assert "the Jobs of the sweeper's CronJob 'trainc-sweeper'" in found[0][1].message
    assert "requested: count/jobs.batch=1" in found[0][1].message
    assert "the sweeper's CronJob 'trainc-sweeper', applied by the GitOps tool" in (
        found[1][1].message
    )
    assert "requested: count/cronjobs.batch=1" in found[1][1].message


def test_a_pod_limit_ranger_refuses_is_not_judged_by_the_quotas() -> None:
    """LimitRanger ends the request: the quota that would also refuse the pod (it tracks
    the CPU limit the sweeper does not set) never sees it, as for a TrainJob's pods."""
    platform = (
        SMALL_CONTAINERS
        + f"""\
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: cpu
  namespace: {NAMESPACE}
spec:
  hard:
    limits.cpu: "1"
"""
    )
    assert [d.code for _, d in _judge(platform, _objects())] == ["limitrange.max"]
    without_limit_range = platform.removeprefix(SMALL_CONTAINERS)
    assert [d.code for _, d in _judge(without_limit_range, _objects())] == ["quota.must-specify"]


def test_jobs_the_quota_refuses_create_no_pods() -> None:
    """A refused Job has no pods: the LimitRange that would refuse them says nothing."""
    platform = (
        SMALL_CONTAINERS
        + f"""\
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: no-jobs
  namespace: {NAMESPACE}
spec:
  hard:
    count/jobs.batch: "0"
"""
    )
    found = [(setting, d.code) for setting, d in _judge(platform, _objects())]
    assert found == [(("sweeper", "namespace"), "quota.exceeded")]


#: A policy that admits every object of the sweeper.
EVERY_OBJECT = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: named
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["*"]
        apiVersions: ["*"]
        operations: [CREATE]
        resources: ["*"]
  validations:
    - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: named
spec:
  policyName: named
  validationActions: [Deny]
"""


def test_each_plugin_judges_each_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict that decides whether a Job creates pods is the one its findings come
    from: the policies and the quotas evaluate each object of the sweeper once."""
    policy_requests: Counter[str] = Counter()
    quota_targets: Counter[str] = Counter()

    def counted_policy(cluster: Any, request: Any) -> Any:
        policy_requests[request.resource.resource] += 1
        return policy_admit(cluster, request)

    def counted_quota(quotas: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        quota_targets[target.resource] += 1
        return quota_admit(quotas, target, *args, **kwargs)

    monkeypatch.setattr(policies_judge, "admit", counted_policy)
    for module in (quotas_judge, sweeper):
        if getattr(module, "admit", None) is quota_admit:
            monkeypatch.setattr(module, "admit", counted_quota)
    platform = f"{RESTRICTED}---\n{EVERY_OBJECT}---\n{_counts(5)}"
    assert _judge(platform, _objects()) == []  # both plugins judge every object
    assert {"cronjobs", "jobs", "pods"} <= policy_requests.keys()
    assert set(policy_requests.values()) == {1}, policy_requests
    assert {"cronjobs", "jobs", "pods"} <= quota_targets.keys()
    assert set(quota_targets.values()) == {1}, quota_targets
