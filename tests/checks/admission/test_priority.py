"""The Priority plugin: a pod without a class gets the cluster's global default, and the
validating plugins (a quota's PriorityClass scope, a policy) see it."""

from __future__ import annotations

from tests.checks.admission.policies.test_judge import policy
from tests.checks.admission.wiring import admission_input
from trainc.checks.admission.cluster import PriorityClass
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.priority import global_default, prioritized
from trainc.diagnostics import Diagnostic, Severity
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


#: The PriorityClasses a ``trainc cluster pull`` snapshot holds: the API server creates
#: the two system classes at start-up, so the snapshot lists every class.
PULLED = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-cluster-critical}
value: 2000000000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: training}
value: 1000
"""

#: A Deny policy refusing every pod: a later plugin than Priority.
NO_PODS = policy("no-pods", "pods", "false", message="no pods here")


def _urgent(platform: str) -> list[Diagnostic]:
    return check_admission(admission_input(platform, pod={"priorityClassName": "urgent"}))


def test_a_class_missing_from_a_pulled_snapshot_is_refused_before_any_other_plugin() -> None:
    [finding] = _urgent(PULLED + "---\n" + NO_PODS)
    assert finding.code == "priority.class-not-found"
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        "the API server would refuse the pods of replicatedJob 'node', created by the Job "
        'controller: pods "…" is forbidden: no PriorityClass with name urgent was found'
    )
    assert finding.field_path == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.priorityClassName"
    )
    assert finding.hint == (
        "name a PriorityClass the cluster holds (its objects define 'system-cluster-critical', "
        "'system-node-critical', 'training'), or create PriorityClass 'urgent' in the cluster"
    )


def test_without_the_system_classes_a_missing_class_is_a_warning_that_stops_nothing() -> None:
    training = PULLED.split("---\n")[2]
    found = _urgent(training + "---\n" + NO_PODS)
    assert sorted((finding.code, finding.severity) for finding in found) == [
        ("priority.class-unknown", Severity.WARNING),
        ("vap.denied", Severity.ERROR),
    ]
    [unknown] = (finding for finding in found if finding.code == "priority.class-unknown")
    assert unknown.message.endswith(
        'pods "…" is forbidden: no PriorityClass with name urgent was found, unless the '
        "cluster holds a PriorityClass 'urgent' its objects here do not define"
    )


def test_the_system_classes_need_no_manifest() -> None:
    found = admission_input(NO_PODS, pod={"priorityClassName": "system-node-critical"})
    assert [finding.code for finding in check_admission(found)] == ["vap.denied"]


def test_a_system_class_the_objects_lack_still_gives_its_built_in_value() -> None:
    assert prioritized({"priorityClassName": "system-cluster-critical"}, CLASSES) == {
        "priorityClassName": "system-cluster-critical",
        "priority": 2000000000,
        "preemptionPolicy": "PreemptLowerPriority",
    }
    platform = policy(
        "no-critical-pods",
        "pods",
        "object.spec.priority < 2000001000",
        message="node-critical pods are not allowed",
    )
    found = admission_input(platform, pod={"priorityClassName": "system-node-critical"})
    [finding] = check_admission(found)
    assert finding.code == "vap.denied"
    assert "node-critical pods are not allowed" in finding.message
    cluster_critical: JsonObject = {"priorityClassName": "system-cluster-critical"}
    assert check_admission(admission_input(platform, pod=cluster_critical)) == []


def test_a_class_the_snapshot_defines_is_admitted() -> None:
    found = admission_input(PULLED, pod={"priorityClassName": "training"})
    assert check_admission(found) == []
