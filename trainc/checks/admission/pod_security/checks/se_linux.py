"""``seLinuxOptions`` (baseline): only the container SELinux types, no user or role.

The pod's and containers' ``seLinuxOptions`` may set ``type`` to one of the container
types and may not set ``user`` or ``role``. Version 1.31 added ``container_engine_t`` (for
containers that run a container engine) to the allowed types. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_seLinuxOptions.go
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import (
    Pod,
    context,
    join_quote,
    name,
    pluralize,
    setters,
)
from trainc.checks.admission.pod_security.pod import field as nested
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject

ALLOWED_1_0: Final = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
ALLOWED_1_31: Final = ALLOWED_1_0 | {"container_engine_t"}


@dataclass(slots=True)
class _Seen:
    """What the bad options set, across the pod and its containers."""

    allowed: frozenset[str]
    types: set[str] = field(default_factory=set)
    user: bool = False
    role: bool = False

    def bad(self, security_context: JsonObject | None) -> bool:
        """Whether these options break the rule; records what they set."""
        options = nested(security_context, "seLinuxOptions")
        if options is None:
            return False
        kind = text(options.get("type")) or ""
        bad_type = kind not in self.allowed
        if bad_type:
            self.types.add(kind)
        user = bool(text(options.get("user")))
        role = bool(text(options.get("role")))
        self.user |= user
        self.role |= role
        return bad_type or user or role

    def data(self) -> str:
        """``type "x"; user may not be set; role may not be set``, as far as set."""
        parts: list[str] = []
        if self.types:
            types = sorted(self.types)
            parts.append(f"{pluralize('type', 'types', len(types))} {join_quote(types)}")
        if self.user:
            parts.append("user may not be set")
        if self.role:
            parts.append("role may not be set")
        return "; ".join(parts)


def _rule(allowed: frozenset[str], pod: Pod) -> Finding | None:
    seen = _Seen(allowed)
    pod_bad = seen.bad(pod.security_context)
    containers = [name(container) for container in pod.containers() if seen.bad(context(container))]
    bad = setters(containers, pod=pod_bad)
    if not bad:
        return None
    return Finding(
        "seLinuxOptions", f"{bad} set forbidden securityContext.seLinuxOptions: {seen.data()}"
    )


def _since_1_0(pod: Pod) -> Finding | None:
    return _rule(ALLOWED_1_0, pod)


def _since_1_31(pod: Pod) -> Finding | None:
    return _rule(ALLOWED_1_31, pod)


CHECK = Check(
    "seLinuxOptions",
    Level.BASELINE,
    (VersionedRule((1, 0), _since_1_0), VersionedRule((1, 31), _since_1_31)),
)
