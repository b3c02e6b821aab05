"""``sysctls`` (baseline): only sysctls that stay inside the pod's own namespaces.

The allowed list grew: ``net.ipv4.ip_local_reserved_ports`` in 1.27, the TCP keepalive
and ``tcp_fin_timeout`` sysctls in 1.29, ``tcp_rmem`` and ``tcp_wmem`` in 1.32 (the ones
NCCL tuning guides set). Forbidden names are listed in the pod's order, repeats kept,
without quotes. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_sysctls.go
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import objects, text

ALLOWED_1_0: Final = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
ALLOWED_1_27: Final = ALLOWED_1_0 | {"net.ipv4.ip_local_reserved_ports"}
ALLOWED_1_29: Final = ALLOWED_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
ALLOWED_1_32: Final = ALLOWED_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _rule(allowed: frozenset[str]) -> Callable[[Pod], Finding | None]:
    def check(pod: Pod) -> Finding | None:
        sysctls = (pod.security_context or {}).get("sysctls")
        names = [text(sysctl.get("name")) or "" for _, sysctl in objects(sysctls)]
        forbidden = [sysctl for sysctl in names if sysctl not in allowed]
        return Finding("forbidden sysctls", ", ".join(forbidden)) if forbidden else None

    return check


CHECK = Check(
    "sysctls",
    Level.BASELINE,
    (
        VersionedRule((1, 0), _rule(ALLOWED_1_0)),
        VersionedRule((1, 27), _rule(ALLOWED_1_27)),
        VersionedRule((1, 29), _rule(ALLOWED_1_29)),
        VersionedRule((1, 32), _rule(ALLOWED_1_32)),
    ),
)
