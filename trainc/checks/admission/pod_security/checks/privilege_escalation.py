"""``allowPrivilegeEscalation`` (restricted): every container must set it to false.

A set-user-ID binary or file capability can give a process more privileges than its
parent; the restricted level requires ``securityContext.allowPrivilegeEscalation: false``
on every container, explicitly (unset counts as allowed, as the kernel's default is). From
1.25 a Windows pod (``spec.os.name: windows``) is exempt, since the field means nothing
there and pod validation refuses it. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_allowPrivilegeEscalation.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, containers_phrase, context, name, windows
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule, unless


def _since_1_8(pod: Pod) -> Finding | None:
    bad = [
        name(container)
        for container in pod.containers()
        if (context(container) or {}).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return None
    return Finding(
        "allowPrivilegeEscalation != false",
        f"{containers_phrase(bad)} must set securityContext.allowPrivilegeEscalation=false",
    )


CHECK = Check(
    "allowPrivilegeEscalation",
    Level.RESTRICTED,
    (
        VersionedRule((1, 8), _since_1_8),
        VersionedRule((1, 25), unless(windows, _since_1_8)),
    ),
)
