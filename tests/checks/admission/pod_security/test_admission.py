"""The PodSecurity plugin's verdict on a pod: enforce refuses, warn and audit report."""

from __future__ import annotations

from trainc.checks.admission.pod_security import (
    Exemptions,
    Level,
    LevelVersion,
    NamespacePolicy,
    policy_from_labels,
)
from trainc.checks.admission.pod_security.admission import judge
from trainc.model.json import JsonObject

RELEASE = (1, 33)
#: An RDMA training pod: host network, IPC_LOCK, not run as non-root.
RDMA_SPEC: JsonObject = {
    "hostNetwork": True,
    "containers": [
        {"name": "node", "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}},
    ],
}
BASELINE_REFUSAL = (
    'violates PodSecurity "baseline:latest": non-default capabilities (container "node" must '
    'not include "IPC_LOCK" in securityContext.capabilities.add), host namespaces '
    "(hostNetwork=true)"
)


def test_enforce_refuses_and_adds_no_warning() -> None:
    policy = policy_from_labels({"pod-security.kubernetes.io/enforce": "baseline"})
    verdict = judge(policy, {}, RDMA_SPEC, release=RELEASE)
    assert verdict.refusal == BASELINE_REFUSAL
    assert [v.check for v in verdict.refused] == ["capabilities_baseline", "hostNamespaces"]
    assert verdict.warning is None
    assert verdict.warned == ()


def test_warn_and_audit_only_report() -> None:
    policy = policy_from_labels(
        {
            "pod-security.kubernetes.io/warn": "baseline",
            "pod-security.kubernetes.io/audit": "restricted",
            "pod-security.kubernetes.io/audit-version": "v1.29",
        }
    )
    verdict = judge(policy, {}, RDMA_SPEC, release=RELEASE)
    assert verdict.refusal is None
    assert verdict.warning == "would " + BASELINE_REFUSAL.replace("violates", "violate", 1)
    assert verdict.audit is not None
    assert verdict.audit.startswith('would violate PodSecurity "restricted:v1.29": host namespaces')


def test_a_pod_controller_is_only_warned() -> None:
    policy = policy_from_labels({"pod-security.kubernetes.io/enforce": "baseline"})
    verdict = judge(policy, {}, RDMA_SPEC, release=RELEASE, enforce=False)
    assert verdict.refusal is None
    assert verdict.warning is not None
    assert verdict.warning.startswith('would violate PodSecurity "baseline:latest"')


def test_a_passing_pod_gets_nothing() -> None:
    policy = policy_from_labels({"pod-security.kubernetes.io/enforce": "baseline"})
    verdict = judge(policy, {}, {"containers": [{"name": "node"}]}, release=RELEASE)
    assert (verdict.refusal, verdict.warning, verdict.audit) == (None, None, None)


def test_exemptions() -> None:
    policy = NamespacePolicy(enforce=LevelVersion(Level.RESTRICTED))
    exemptions = Exemptions(
        usernames=frozenset({"system:serviceaccount:kube-system:job-controller"}),
        namespaces=frozenset({"kube-system"}),
        runtime_classes=frozenset({"kata"}),
    )
    spec: JsonObject = dict(RDMA_SPEC)

    def exempt(namespace: str = "", username: str = "") -> str | None:
        verdict = judge(
            policy,
            {},
            spec,
            release=RELEASE,
            namespace=namespace,
            username=username,
            exemptions=exemptions,
        )
        return verdict.exempt

    assert exempt(namespace="kube-system") == "namespace"
    assert exempt(username="system:serviceaccount:kube-system:job-controller") == "user"
    assert exempt(namespace="ml") is None
    spec["runtimeClassName"] = "kata"
    assert exempt(namespace="ml") == "runtimeClass"


def test_a_fully_privileged_namespace_is_not_evaluated_unless_its_labels_are_bad() -> None:
    assert judge(NamespacePolicy(), {}, RDMA_SPEC, release=RELEASE).refusal is None
    bad = policy_from_labels({"pod-security.kubernetes.io/enforce": "strict"})
    verdict = judge(bad, {}, RDMA_SPEC, release=RELEASE)
    assert verdict.refusal is not None
    assert verdict.refusal.startswith('violates PodSecurity "restricted:latest"')
