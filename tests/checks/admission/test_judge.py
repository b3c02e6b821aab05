"""The families in the API server's order: a pod one plugin refuses is never seen by the
plugins after it (LimitRanger, PodSecurity, ValidatingAdmissionPolicy, ResourceQuota)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from tests.checks.admission.limit_ranges.test_judge import CPU_MAX
from tests.checks.admission.policies.test_judge import policy
from tests.checks.admission.resource_quotas.test_judge import GPUS
from tests.checks.admission.wiring import admission_input
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.limit_ranges import judge as limit_ranges_judge
from trainc.checks.admission.pod_security import judge as pod_security_judge
from trainc.checks.admission.policies import judge as policies_judge
from trainc.checks.admission.resource_quotas import judge as resource_quotas_judge
from trainc.model.json import JsonObject

NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: research
  labels:
    pod-security.kubernetes.io/{mode}: restricted
"""

#: A quota every pod of the TrainJob fails: no container sets a memory limit.
MEMORY = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: memory, namespace: research}
spec:
  hard: {limits.memory: 64Gi}
"""

#: A Deny policy refusing every pod.
NO_PODS = policy("no-pods", "pods", "false", message="no pods here")


def _platform(*parts: str) -> str:
    return "---\n".join(parts)


def _codes(platform: str, limits: JsonObject | None = None) -> list[str]:
    found = (
        admission_input(platform, resourcesPerNode={"limits": limits})
        if limits
        else admission_input(platform)
    )
    return sorted(finding.code for finding in check_admission(found))


def test_a_pod_limitranger_refuses_reaches_no_later_plugin() -> None:
    platform = _platform(NAMESPACE.format(mode="warn"), CPU_MAX, MEMORY, NO_PODS)
    assert _codes(platform, {"cpu": "16"}) == ["limitrange.max"]


def test_each_plugin_judges_the_pods_limitranger_admits() -> None:
    platform = _platform(NAMESPACE.format(mode="warn"), CPU_MAX, MEMORY)
    assert _codes(platform, {"cpu": "4"}) == [
        "psa.would-violate",
        "quota.must-specify",
    ]


def test_a_pod_pod_security_refuses_reaches_neither_policies_nor_quotas() -> None:
    platform = _platform(NAMESPACE.format(mode="enforce"), MEMORY, NO_PODS)
    assert _codes(platform) == ["psa.forbidden"]


def test_a_pod_a_policy_refuses_reaches_no_quota() -> None:
    codes = _codes(_platform(MEMORY, NO_PODS))
    assert codes == ["vap.denied"]


def test_a_warning_stops_nothing() -> None:
    warned = policy("no-pods", "pods", "false", message="no pods here", actions="Warn")
    assert _codes(_platform(MEMORY, warned)) == ["quota.must-specify", "vap.warned"]


def test_without_the_limitrange_every_later_plugin_speaks() -> None:
    platform = _platform(NAMESPACE.format(mode="warn"), MEMORY, NO_PODS)
    assert _codes(platform, {"cpu": "16"}) == [
        "psa.would-violate",
        "vap.denied",
    ]


NO_JOBS = policy("no-jobs", "jobs", "false", message="no Jobs here", group="batch")

#: A quota that admits no JobSet at all.
NO_JOBSETS = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-jobsets, namespace: research}
spec:
  hard: {count/jobsets.jobset.x-k8s.io: "0"}
"""


def test_the_pods_of_a_refused_job_are_never_created_nor_judged() -> None:
    platform = _platform(NAMESPACE.format(mode="warn"), CPU_MAX, MEMORY, NO_JOBS)
    # The Job is refused: no LimitRanger, Pod Security or quota finding on its pods.
    assert _codes(platform, {"cpu": "16"}) == ["vap.denied"]


def test_a_refused_jobset_has_no_jobs_and_no_pods() -> None:
    platform = _platform(NAMESPACE.format(mode="warn"), MEMORY, NO_JOBSETS, NO_JOBS)
    assert _codes(platform) == ["quota.exceeded"]


def test_each_plugin_evaluates_each_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One evaluation per plugin and object gives both its findings and its refusals: the
    JobSet and the Jobs, asked whether what follows them is created, are not asked again
    for the findings, nor the pods for their refusal."""
    evaluated: Counter[tuple[str, str]] = Counter()

    def spy(name: str, module: ModuleType, function: str, kind: Callable[..., str]) -> None:
        real = getattr(module, function)

        def counted(*args: Any, **kwargs: Any) -> Any:
            evaluated[name, kind(*args)] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, function, counted)

    spy("LimitRanger", limit_ranges_judge, "pod_causes", lambda *_: "pods")
    spy("PodSecurity", pod_security_judge, "judge", lambda *_: "pods")
    spy("policies", policies_judge, "admit", lambda _, request: request.resource.resource)
    spy("quotas", resource_quotas_judge, "admit", lambda _, target, *__: target.resource)
    warned = policy("no-pods", "pods", "false", message="no pods here", actions="Warn")
    # GPUS: a quota every pod passes, tracking only GPUs, which none requests.
    platform = _platform(NAMESPACE.format(mode="warn"), CPU_MAX, GPUS, warned)
    found = admission_input(platform, trainers=("node", "worker"))
    codes = sorted({finding.code for finding in check_admission(found)})
    assert codes == ["psa.would-violate", "vap.warned"]
    assert evaluated == {
        ("LimitRanger", "pods"): 2,
        ("PodSecurity", "pods"): 2,
        ("policies", "jobsets"): 1,
        ("policies", "jobs"): 2,
        ("policies", "pods"): 2,
        ("quotas", "jobsets"): 1,
        ("quotas", "jobs"): 2,
        ("quotas", "pods"): 2,
    }


#: A quota that admits neither a TrainJob nor a JobSet.
NO_TRAINJOBS = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-trainjobs, namespace: research}
spec:
  hard: {count/trainjobs.trainer.kubeflow.org: "0", count/jobsets.jobset.x-k8s.io: "0"}
"""


def test_with_deploy_trainjob_a_refused_trainjob_creates_nothing() -> None:
    """The quota refuses the TrainJob the GitOps tool applies: the Trainer controller never
    creates the JobSet (which the quota would refuse too), its Jobs or pods."""
    platform = _platform(NAMESPACE.format(mode="enforce"), NO_TRAINJOBS, NO_PODS)
    found = replace(admission_input(platform), through_trainer=True)
    [refused] = check_admission(found)
    assert refused.code == "quota.exceeded"
    assert refused.message.startswith(
        "the API server would refuse the TrainJob 'llama', applied by the GitOps tool: "
        "exceeded quota: no-trainjobs, requested: count/trainjobs.trainer.kubeflow.org=1"
    )
