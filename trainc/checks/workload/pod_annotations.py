"""Annotations the API server reads on a pod template, and their agreement with fields.

A few annotations still steer a pod: the deprecated seccomp and AppArmor annotations,
the pod deletion cost a ReplicaSet scales down by, the mirror-pod marker. The API server
checks their values (``ValidatePodSpecificAnnotations``) and, where both an annotation and
the field that replaced it are set, that they agree (``validateSeccompAnnotationsAndFields``,
``validateAppArmorAnnotationsAndFieldsMatchOnCreate``); a template that fails is refused
with the Job. The deprecated tolerations annotation is not checked here.
"""

from __future__ import annotations

import json
import re

from trainc.checks.workload.fielderrors import FieldError, Key, forbidden, invalid
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.pod_os import containers_with_paths
from trainc.checks.workload.pod_security import APPARMOR_FIELDS
from trainc.checks.workload.predicates import relative_path_errors
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object

POD_ANNOTATIONS = Rule(
    "pod.annotations",
    Severity.ERROR,
    "a pod annotation the API server interprets is invalid",
    doc=RuleDoc(
        what="pod annotations the API server interprets (seccomp, AppArmor, deletion cost)",
        source="`ValidatePodSpecificAnnotations`",
        versions="AppArmor fields from 1.30",
    ),
)


ANNOTATIONS = POD_ANNOTATIONS.code

_MIRROR = "kubernetes.io/config.mirror"
_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
_APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_LOCALHOST = "localhost/"
_INT32 = range(-(2**31), 2**31)
#: What each profile type's annotation spells (``localhost/`` is a prefix).
_SECCOMP_SPELLINGS = {
    "Unconfined": ("unconfined",),
    "RuntimeDefault": ("runtime/default", "docker/default"),
}
_APPARMOR_SPELLINGS = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default",)}


def annotation_errors(
    annotations: JsonObject, pod_spec: JsonObject, path: FieldPath
) -> list[FieldError]:
    """``ValidatePodSpecificAnnotations``; ``path`` is where the API server reports the
    template's annotations (``spec.template.annotations``)."""
    errors: list[FieldError] = []
    mirror = annotations.get(_MIRROR)
    if isinstance(mirror, str) and not text(pod_spec.get("nodeName")):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        errors.append(invalid((*path, Key(_MIRROR)), ANNOTATIONS, mirror, detail))
    cost = annotations.get(_DELETION_COST)
    if isinstance(cost, str) and not _is_deletion_cost(cost):
        errors.append(
            invalid((*path, Key(_DELETION_COST)), ANNOTATIONS, cost, "must be a 32bit integer")
        )
    for key, profile in annotations.items():
        if isinstance(profile, str) and (key == _SECCOMP_POD or key.startswith(_SECCOMP_CONTAINER)):
            # The API server appends these keys as fields, not as map keys.
            errors += _seccomp_annotation_errors(profile, (*path, key))
    names = {text(container.get("name")) for container, _ in containers_with_paths(pod_spec, ())}
    names.update(text(c.get("name")) for _, c in objects(pod_spec.get("ephemeralContainers")))
    for key, profile in annotations.items():
        if key.startswith(_APPARMOR_CONTAINER) and isinstance(profile, str):
            errors += _apparmor_annotation_errors(key, profile, names, path)
    return errors


def _is_deletion_cost(value: str) -> bool:
    """What ``GetDeletionCostFromPodAnnotations`` parses: a 32-bit decimal integer with no
    ``+`` sign and no leading zero."""
    return bool(re.fullmatch(r"0|[1-9][0-9]*|-[0-9]+", value)) and int(value) in _INT32


def _seccomp_annotation_errors(profile: str, path: FieldPath) -> list[FieldError]:
    """``ValidateSeccompProfile``: a known profile name, or ``localhost/<relative path>``."""
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith(_LOCALHOST):
        local = profile.removeprefix(_LOCALHOST)
        return [invalid(path, ANNOTATIONS, local, e) for e in relative_path_errors(local)]
    return [invalid(path, ANNOTATIONS, profile, "must be a valid seccomp profile")]


def _apparmor_annotation_errors(
    key: str, profile: str, names: set[str | None], path: FieldPath
) -> list[FieldError]:
    """``ValidateAppArmorPodAnnotations`` for one annotation: its container exists and its
    value is a profile name (``runtime/default``, ``unconfined``, ``localhost/<name>``)."""
    errors: list[FieldError] = []
    at = (*path, Key(key))
    container = key.removeprefix(_APPARMOR_CONTAINER)
    if container not in names:
        errors.append(invalid(at, ANNOTATIONS, container, "container not found"))
    if profile not in ("", "runtime/default", "unconfined") and not profile.startswith(_LOCALHOST):
        detail = f"invalid AppArmor profile name: {json.dumps(profile, ensure_ascii=False)}"
        errors.append(invalid(at, ANNOTATIONS, profile, detail))
    return errors


def annotation_field_errors(
    annotations: JsonObject, pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """Annotations and the fields that replaced them must agree, for seccomp (pod and
    containers) and, unless the pod targets Windows, AppArmor; ``path`` is the pod spec's."""
    errors: list[FieldError] = []
    context = as_object(pod_spec.get("securityContext"))
    pod_seccomp = annotations.get(_SECCOMP_POD)
    if isinstance(pod_seccomp, str):
        errors += _profile_match_errors(
            "seccomp",
            pod_seccomp,
            context.get("seccompProfile"),
            (*path, "securityContext", "seccompProfile"),
        )
    for container, at in containers_with_paths(pod_spec, path):
        annotation = annotations.get(_SECCOMP_CONTAINER + (text(container.get("name")) or ""))
        if isinstance(annotation, str):
            profile = as_object(container.get("securityContext")).get("seccompProfile")
            errors += _profile_match_errors(
                "seccomp", annotation, profile, (*at, "securityContext", "seccompProfile")
            )
    if as_object(pod_spec.get("os")).get("name") == "windows" or not APPARMOR_FIELDS.enabled(
        version
    ):
        return errors
    for container, at in containers_with_paths(pod_spec, path):
        annotation = annotations.get(_APPARMOR_CONTAINER + (text(container.get("name")) or ""))
        profile = as_object(container.get("securityContext")).get("appArmorProfile")
        if isinstance(annotation, str):
            errors += _profile_match_errors(
                "apparmor",
                annotation,
                profile if profile is not None else context.get("appArmorProfile"),
                (*at, "securityContext", "appArmorProfile"),
            )
    return errors


def _profile_match_errors(
    kind: str, annotation: str, profile: JsonValue, path: FieldPath
) -> list[FieldError]:
    """``validateSeccompAnnotationsAndFieldsMatch`` and its AppArmor twin: the annotation
    must name the field's profile type and, for ``Localhost``, the same profile."""
    if not isinstance(profile, dict):
        return []
    profile_type = profile.get("type")
    spellings = (_SECCOMP_SPELLINGS if kind == "seccomp" else _APPARMOR_SPELLINGS).get(
        str(profile_type)
    )
    if spellings is not None:
        agrees = annotation in spellings
    elif profile_type == "Localhost":
        agrees = annotation.startswith(_LOCALHOST)
    else:
        return []
    if not agrees:
        detail = f"{kind} type in annotation and field must match"
        return [forbidden((*path, "type"), ANNOTATIONS, detail)]
    if profile_type == "Localhost" and profile.get("localhostProfile") != annotation.removeprefix(
        _LOCALHOST
    ):
        detail = f"{kind} profile in annotation and field must match"
        return [forbidden((*path, "localhostProfile"), ANNOTATIONS, detail)]
    return []
