"""``procMount`` (baseline) and ``procMount_restricted``: keep the default /proc masks.

A container may not set ``securityContext.procMount`` to anything but ``Default``. From
1.35 baseline lets a pod in a user namespace (``hostUsers: false``) unmask /proc, and the
restricted level keeps the unconditional rule as a check of its own that overrides the
baseline one. (Before 1.35 the relaxation sat behind the ``UserNamespacesPodSecurityStandards``
feature gate, off by default, which trainc assumes.) Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_procMount_baseline.go
and
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_procMount_restricted.go
"""

from __future__ import annotations

from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import (
    Pod,
    containers_phrase,
    context,
    join_quote,
    name,
    user_namespace,
)
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule, unless

BASELINE_ID: Final = "procMount"


def _unmasked(pod: Pod) -> Finding | None:
    containers: list[str] = []
    types: set[str] = set()
    for container in pod.containers():
        value = (context(container) or {}).get("procMount")
        if isinstance(value, str) and value != "Default":
            containers.append(name(container))
            types.add(value)
    if not containers:
        return None
    return Finding(
        "procMount",
        f"{containers_phrase(containers)} must not set securityContext.procMount to "
        f"{join_quote(sorted(types))}",
    )


BASELINE = Check(
    BASELINE_ID,
    Level.BASELINE,
    (
        VersionedRule((1, 0), _unmasked),
        VersionedRule((1, 35), unless(user_namespace, _unmasked)),
    ),
)
RESTRICTED = Check(
    "procMount_restricted",
    Level.RESTRICTED,
    (VersionedRule((1, 35), _unmasked, (BASELINE_ID,)),),
)
