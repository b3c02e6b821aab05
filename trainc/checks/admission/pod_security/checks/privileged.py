"""``privileged`` (baseline): no privileged container.

Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_privileged.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, containers_phrase, context, name
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule


def _since_1_0(pod: Pod) -> Finding | None:
    bad = [
        name(container)
        for container in pod.containers()
        if (context(container) or {}).get("privileged") is True
    ]
    if not bad:
        return None
    return Finding(
        "privileged", f"{containers_phrase(bad)} must not set securityContext.privileged=true"
    )


CHECK = Check("privileged", Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
