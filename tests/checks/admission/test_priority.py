"""The Priority plugin: a pod without a class gets the cluster's global default, and the
validating plugins (a quota's PriorityClass scope, a policy) see it."""

from __future__ import annotations

from tests.checks.admission.policies.test_judge import policy
from tests.checks.admission.wiring import admission_input
from trainc.checks.admission.cluster import PriorityClass
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.priority import global_default, prioritized
from trainc.model.json import JsonObject

CLASSES = {
    "best-effort": PriorityClass("best-effort", 100, global_default=True),
    "training": PriorityClass("training", 1000, preemption_policy="Never"),
}

BEST_EFFORT = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: best-effort}
value: 100
globalDefault: true
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: best-effort-gpus, namespace: research}
spec:
  hard: {requests.nvidia.com/gpu: "0"}
  scopeSelector:
    matchExpressions:
      - {scopeName: PriorityClass, operator: In, values: [best-effort]}
"""


def test_a_pod_without_a_class_gets_the_global_default() -> None:
    assert prioritized({"containers": []}, CLASSES) == {
        "containers": [],
        "priorityClassName": "best-effort",
        "priority": 100,
        "preemptionPolicy": "PreemptLowerPriority",
    }


def test_a_pod_naming_a_class_keeps_it_and_gets_its_value() -> None:
    spec: JsonObject = {"priorityClassName": "training"}
    assert prioritized(spec, CLASSES) == {
        "priorityClassName": "training",
        "priority": 1000,
        "preemptionPolicy": "Never",
    }


def test_without_a_default_a_pod_runs_at_zero_without_a_class() -> None:
    assert prioritized({}, {"training": CLASSES["training"]}) == {"priority": 0}


def test_of_several_defaults_the_lowest_wins() -> None:
    low = PriorityClass("low", 10, global_default=True)
    assert global_default({**CLASSES, "low": low}) == low


def test_a_class_the_cluster_does_not_hold_is_left_as_written() -> None:
    assert prioritized({"priorityClassName": "gold"}, CLASSES) == {"priorityClassName": "gold"}


def test_a_quota_scoped_to_the_default_class_counts_pods_that_name_none() -> None:
    found = admission_input(BEST_EFFORT, resourcesPerNode={"requests": {"nvidia.com/gpu": 2}})
    [finding] = check_admission(found)
    assert finding.code == "quota.exceeded"
    assert "exceeded quota: best-effort-gpus" in finding.message
    assert finding.hint is not None
    assert "the Priority plugin gives them 'best-effort', the cluster's global default" in (
        finding.hint
    )


def test_a_policy_reads_the_default_class_name() -> None:
    platform = (
        BEST_EFFORT.split("---\n", maxsplit=1)[0]
        + "---\n"
        + policy(
            "named-class",
            "pods",
            "object.spec.priorityClassName != 'best-effort'",
            message="best-effort pods are not allowed",
        )
    )
    [finding] = check_admission(admission_input(platform))
    assert finding.code == "vap.denied"
    assert "best-effort pods are not allowed" in finding.message
