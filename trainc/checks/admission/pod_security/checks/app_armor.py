"""``appArmorProfile`` (baseline): no AppArmor profile but the runtime's default or a local one.

Two ways to name a profile are judged. The beta annotations
``container.apparmor.security.beta.kubernetes.io/<container>`` may hold ``runtime/default``,
``localhost/<name>`` or nothing; the ``appArmorProfile`` fields of the pod's and the
containers' security contexts may have ``type`` ``RuntimeDefault`` or ``Localhost``. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_appArmorProfile.go

The check has one version (1.0), but its rule changed with the library: the fields came in
1.30, and with them a new detail. A 1.29 API server reads only the annotations and lists
them bare (``key="value", …``, as
https://github.com/kubernetes/kubernetes/blob/v1.29.0/staging/src/k8s.io/pod-security-admission/policy/check_appArmorProfile.go
words it), whatever version the namespace names.
"""

from __future__ import annotations

from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.message import go_quote
from trainc.checks.admission.pod_security.pod import (
    Pod,
    context,
    field,
    join_quote,
    name,
    pluralize,
    setters,
)
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject

_ANNOTATION_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"
_ALLOWED_TYPES: Final = frozenset({"RuntimeDefault", "Localhost"})
#: The release whose library first read the ``appArmorProfile`` fields.
FIELDS_SINCE: Final[KubeVersion] = (1, 30)


def _allowed_annotation(value: str) -> bool:
    return value in {"", "runtime/default"} or value.startswith("localhost/")


def _forbidden_annotations(pod: Pod) -> list[str]:
    return sorted(
        f"{key}={go_quote(value)}"
        for key, value in pod.annotations.items()
        if key.startswith(_ANNOTATION_PREFIX) and not _allowed_annotation(value)
    )


def _bad_type(owner: JsonObject | None) -> str | None:
    profile = field(owner, "appArmorProfile")
    if profile is None:
        return None
    kind = text(profile.get("type")) or ""
    return None if kind in _ALLOWED_TYPES else kind


def _annotations_only(pod: Pod) -> Finding | None:
    forbidden = _forbidden_annotations(pod)
    if not forbidden:
        return None
    reason = pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(forbidden))
    return Finding(reason, ", ".join(forbidden))


def _since_1_0(pod: Pod) -> Finding | None:
    if pod.release < FIELDS_SINCE:
        return _annotations_only(pod)
    values: set[str] = set()
    pod_type = _bad_type(pod.security_context)
    if pod_type is not None:
        values.add(pod_type)
    containers: list[str] = []
    for container in pod.containers():
        container_type = _bad_type(context(container))
        if container_type is not None:
            containers.append(name(container))
            values.add(container_type)
    forbidden = _forbidden_annotations(pod)
    annotations = [pluralize("annotation", "annotations", len(forbidden))] if forbidden else []
    bad = setters(containers, *annotations, pod=pod_type is not None)
    if not bad:
        return None
    bad_values = sorted(values) + forbidden
    return Finding(
        pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(bad_values)),
        f"{bad} must not set AppArmor profile type to {join_quote(bad_values)}",
    )


CHECK = Check("appArmorProfile", Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
