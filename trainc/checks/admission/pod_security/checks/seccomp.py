"""``seccompProfile_baseline`` and ``seccompProfile_restricted``: the seccomp profile in force.

Baseline forbids turning seccomp off: before 1.19 it read the alpha annotations (which
may name ``runtime/default``, ``docker/default`` or ``localhost/<name>``), from 1.19 the
``seccompProfile`` fields, whose ``type`` may be ``RuntimeDefault`` or ``Localhost`` where
set. Restricted, from 1.19, also requires a profile: on the pod, or on every container
that the pod's does not cover; it overrides the baseline check. From 1.25 a Windows pod
is exempt from the restricted check. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_seccompProfile_baseline.go
and
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_seccompProfile_restricted.go
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.message import go_quote
from trainc.checks.admission.pod_security.pod import (
    Pod,
    containers_phrase,
    context,
    join_quote,
    name,
    pluralize,
    setters,
    windows,
)
from trainc.checks.admission.pod_security.pod import field as nested
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule, unless
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject

BASELINE_ID: Final = "seccompProfile_baseline"
_POD_ANNOTATION: Final = "seccomp.security.alpha.kubernetes.io/pod"
_CONTAINER_ANNOTATION: Final = "container.seccomp.security.alpha.kubernetes.io/"
_VALID_TYPES: Final = frozenset({"RuntimeDefault", "Localhost"})


def _valid_annotation(value: str) -> bool:
    return value in {"runtime/default", "docker/default"} or value.startswith("localhost/")


def _annotations_1_0(pod: Pod) -> Finding | None:
    annotations = pod.annotations
    keys = [_POD_ANNOTATION]
    keys += [_CONTAINER_ANNOTATION + name(container) for container in pod.containers()]
    forbidden = {
        f"{key}={go_quote(annotations[key])}"
        for key in keys
        if key in annotations and not _valid_annotation(annotations[key])
    }
    if not forbidden:
        return None
    return Finding(
        "seccompProfile",
        f"forbidden {pluralize('annotation', 'annotations', len(forbidden))} "
        f"{', '.join(sorted(forbidden))}",
    )


@dataclass(slots=True)
class _Profiles:
    """Who set a bad profile type, who set none, and the bad types."""

    bad_pod: bool = False
    bad: list[str] = field(default_factory=list)
    values: set[str] = field(default_factory=set)
    unset: list[str] = field(default_factory=list)

    @property
    def setters(self) -> str:
        """The pod and containers that set a bad type, ``""`` for none."""
        return setters(self.bad, pod=self.bad_pod)

    def bad_detail(self) -> str:
        """The detail naming the bad settings."""
        return (
            f"{self.setters} must not set securityContext.seccompProfile.type "
            f"to {join_quote(sorted(self.values))}"
        )


def _type(security_context: JsonObject | None) -> str | None:
    """The profile's type (``""`` when unset inside it), None without a profile."""
    profile = nested(security_context, "seccompProfile")
    return None if profile is None else text(profile.get("type")) or ""


def _profiles(pod: Pod) -> tuple[_Profiles, bool]:
    """The pod's profiles, and whether the pod sets a valid one of its own."""
    found = _Profiles()
    pod_type = _type(pod.security_context)
    pod_valid = pod_type in _VALID_TYPES
    if pod_type is not None and not pod_valid:
        found.bad_pod = True
        found.values.add(pod_type)
    for container in pod.containers():
        kind = _type(context(container))
        if kind is None:
            found.unset.append(name(container))
        elif kind not in _VALID_TYPES:
            found.bad.append(name(container))
            found.values.add(kind)
    return found, pod_valid


def _fields_1_19(pod: Pod) -> Finding | None:
    found, _ = _profiles(pod)
    return Finding("seccompProfile", found.bad_detail()) if found.setters else None


def _restricted_1_19(pod: Pod) -> Finding | None:
    found, pod_valid = _profiles(pod)
    if found.setters:
        return Finding("seccompProfile", found.bad_detail())
    if found.unset and not pod_valid:
        return Finding(
            "seccompProfile",
            f"pod or {containers_phrase(found.unset)} must set securityContext.seccompProfile.type "
            'to "RuntimeDefault" or "Localhost"',
        )
    return None


BASELINE = Check(
    BASELINE_ID,
    Level.BASELINE,
    (VersionedRule((1, 0), _annotations_1_0), VersionedRule((1, 19), _fields_1_19)),
)
RESTRICTED = Check(
    "seccompProfile_restricted",
    Level.RESTRICTED,
    (
        VersionedRule((1, 19), _restricted_1_19, (BASELINE_ID,)),
        VersionedRule((1, 25), unless(windows, _restricted_1_19), (BASELINE_ID,)),
    ),
)
