"""``runAsNonRoot`` and ``runAsUser`` (restricted): containers must not run as root.

Every container must run with ``runAsNonRoot: true``, set on it or inherited from the pod,
and from 1.23 no container or pod may set ``runAsUser: 0``. An explicit ``false`` is named
before a missing value. From 1.35 both checks let a pod in a user namespace
(``hostUsers: false``) pass, where root in the container is not root on the node; before,
that relaxation sat behind a feature gate off by default. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_runAsNonRoot.go
and
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_runAsUser.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import (
    Pod,
    containers_phrase,
    context,
    name,
    setters,
    user_namespace,
)
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule, unless
from trainc.model.json import JsonObject


def _non_root_1_0(pod: Pod) -> Finding | None:
    pod_value = (pod.security_context or {}).get("runAsNonRoot")
    explicit: list[str] = []
    implicit: list[str] = []
    for container in pod.containers():
        value = (context(container) or {}).get("runAsNonRoot")
        if value is False:
            explicit.append(name(container))
        elif value is None and pod_value is not True:
            implicit.append(name(container))
    bad = setters(explicit, pod=pod_value is False)
    if bad:
        return Finding(
            "runAsNonRoot != true", f"{bad} must not set securityContext.runAsNonRoot=false"
        )
    if implicit:
        return Finding(
            "runAsNonRoot != true",
            f"pod or {containers_phrase(implicit)} must set securityContext.runAsNonRoot=true",
        )
    return None


def _root(security_context: JsonObject | None) -> bool:
    """Whether ``runAsUser`` is set to 0 (a set pointer to zero, not an absent field)."""
    value = (security_context or {}).get("runAsUser")
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _user_1_23(pod: Pod) -> Finding | None:
    containers = [name(container) for container in pod.containers() if _root(context(container))]
    bad = setters(containers, pod=_root(pod.security_context))
    return Finding("runAsUser=0", f"{bad} must not set runAsUser=0") if bad else None


RUN_AS_NON_ROOT = Check(
    "runAsNonRoot",
    Level.RESTRICTED,
    (
        VersionedRule((1, 0), _non_root_1_0),
        VersionedRule((1, 35), unless(user_namespace, _non_root_1_0)),
    ),
)
RUN_AS_USER = Check(
    "runAsUser",
    Level.RESTRICTED,
    (
        VersionedRule((1, 23), _user_1_23),
        VersionedRule((1, 35), unless(user_namespace, _user_1_23)),
    ),
)
