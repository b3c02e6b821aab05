"""``hostNamespaces`` (baseline): no sharing of the node's network, PID or IPC namespace.

``hostNetwork: true`` is what RDMA and some NCCL set-ups ask for, and it is refused from
baseline on. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_hostNamespaces.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule

_FIELDS = ("hostNetwork", "hostPID", "hostIPC")


def _since_1_0(pod: Pod) -> Finding | None:
    shared = [f"{key}=true" for key in _FIELDS if pod.spec.get(key) is True]
    return Finding("host namespaces", ", ".join(shared)) if shared else None


CHECK = Check("hostNamespaces", Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
