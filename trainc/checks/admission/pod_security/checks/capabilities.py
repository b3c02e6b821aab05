"""``capabilities_baseline`` and ``capabilities_restricted``: what containers may add and drop.

Baseline lets a container add only capabilities of the container runtime's default set
(``NET_RAW`` is left out of it on purpose). Restricted, from 1.22, requires every
container to drop ``ALL`` and to add nothing but ``NET_BIND_SERVICE``; it overrides the
baseline check so that an added capability is reported once. From 1.25 a Windows pod is
exempt from the restricted check. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_capabilities_baseline.go
and
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_capabilities_restricted.go
"""

from __future__ import annotations

from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import (
    Pod,
    containers_phrase,
    context,
    field,
    join_quote,
    name,
    windows,
)
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule, unless
from trainc.checks.workload.jsonfields import strings

BASELINE_ID: Final = "capabilities_baseline"

#: The capabilities a container runtime grants by default, minus ``NET_RAW``.
BASELINE_ALLOWED: Final = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def _baseline(pod: Pod) -> Finding | None:
    containers: list[str] = []
    added: set[str] = set()
    for container in pod.containers():
        capabilities = field(context(container), "capabilities")
        if capabilities is None:
            continue
        extra = [cap for cap in strings(capabilities.get("add")) if cap not in BASELINE_ALLOWED]
        if extra:
            containers.append(name(container))
            added.update(extra)
    if not containers:
        return None
    return Finding(
        "non-default capabilities",
        f"{containers_phrase(containers)} must not include {join_quote(sorted(added))} "
        "in securityContext.capabilities.add",
    )


def _restricted_1_22(pod: Pod) -> Finding | None:
    missing_drop: list[str] = []
    adding: list[str] = []
    added: set[str] = set()
    for container in pod.containers():
        capabilities = field(context(container), "capabilities")
        if capabilities is None:
            missing_drop.append(name(container))
            continue
        if "ALL" not in strings(capabilities.get("drop")):
            missing_drop.append(name(container))
        extra = [cap for cap in strings(capabilities.get("add")) if cap != "NET_BIND_SERVICE"]
        if extra:
            adding.append(name(container))
            added.update(extra)
    details: list[str] = []
    if missing_drop:
        details.append(
            f'{containers_phrase(missing_drop)} must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{containers_phrase(adding)} must not include {join_quote(sorted(added))} "
            "in securityContext.capabilities.add"
        )
    return Finding("unrestricted capabilities", "; ".join(details)) if details else None


BASELINE = Check(BASELINE_ID, Level.BASELINE, (VersionedRule((1, 0), _baseline),))
RESTRICTED = Check(
    "capabilities_restricted",
    Level.RESTRICTED,
    (
        VersionedRule((1, 22), _restricted_1_22, (BASELINE_ID,)),
        VersionedRule((1, 25), unless(windows, _restricted_1_22), (BASELINE_ID,)),
    ),
)
