"""The pod's operating system and the fields that only make sense on another one.

``spec.os.name`` tells the API server which kernel the pod targets; it then refuses the
security settings the other kernel lacks (Windows has no user IDs, sysctls or seccomp;
Linux has no ``windowsOptions``), and checks that Windows ``hostProcess`` containers are
all-or-nothing. The rules follow ``validateOS``, ``validateLinux``, ``validateWindows``,
``validateWindowsHostProcessPod`` and ``validateWindowsSecurityContextOptions``.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.checks.workload.container_context import USER_NAMESPACES
from trainc.checks.workload.container_security import PROC_MOUNT_TYPE
from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import objects, present, text
from trainc.checks.workload.pod_security import (
    APPARMOR_FIELDS,
    SELINUX_CHANGE_POLICY,
    SUPPLEMENTAL_GROUPS_POLICY,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_object

POD_OS = Rule(
    "pod.os",
    Severity.ERROR,
    "os.name is invalid, or fields the OS cannot honour are set",
    doc=RuleDoc(
        what="`os.name`, and fields the other operating system cannot honour",
        source="`validateOS`, `validateLinux`, `validateWindows`",
        versions="follows the gates of the fields concerned",
    ),
)


OS = POD_OS.code

_SYSTEMS = ("linux", "windows")
_NOT_ON_WINDOWS = "cannot be set for a windows pod"
_NOT_ON_LINUX = "windows options cannot be set for a linux pod"
#: Pod-level fields a Windows pod may not set: (gate or None, field, the path's parent).
_WINDOWS_POD_FIELDS: tuple[tuple[Gate | None, str, str | None], ...] = (
    (APPARMOR_FIELDS, "appArmorProfile", "securityContext"),
    (None, "seLinuxOptions", "securityContext"),
    (USER_NAMESPACES, "hostUsers", None),
    (None, "hostPID", None),
    (None, "hostIPC", None),
    (None, "seccompProfile", "securityContext"),
    (None, "fsGroup", "securityContext"),
    (None, "fsGroupChangePolicy", "securityContext"),
    (None, "sysctls", "securityContext"),
    (None, "shareProcessNamespace", None),
    (None, "runAsUser", "securityContext"),
    (None, "runAsGroup", "securityContext"),
    (None, "supplementalGroups", "securityContext"),
    (SUPPLEMENTAL_GROUPS_POLICY, "supplementalGroupsPolicy", "securityContext"),
    (SELINUX_CHANGE_POLICY, "seLinuxChangePolicy", "securityContext"),
)
_WINDOWS_CONTAINER_FIELDS: tuple[tuple[Gate | None, str], ...] = (
    (APPARMOR_FIELDS, "appArmorProfile"),
    (None, "seLinuxOptions"),
    (None, "seccompProfile"),
    (None, "capabilities"),
    (None, "readOnlyRootFilesystem"),
    (None, "privileged"),
    (None, "allowPrivilegeEscalation"),
    (PROC_MOUNT_TYPE, "procMount"),
    (None, "runAsUser"),
    (None, "runAsGroup"),
)


def os_errors(pod_spec: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """``validateOS``, then the fields the named system cannot honour."""
    system = pod_spec.get("os")
    if not isinstance(system, dict):
        return []
    name = text(system.get("name"))
    if name == "":
        return [required((*path, "os", "name"), OS, "cannot be empty")]
    if name == "linux":
        return _linux_errors(pod_spec, path)
    if name == "windows":
        return _windows_errors(pod_spec, path, version)
    return [] if name is None else [not_supported((*path, "os"), OS, name, _SYSTEMS)]


def containers_with_paths(
    pod_spec: JsonObject, path: FieldPath
) -> Iterator[tuple[JsonObject, FieldPath]]:
    """Init containers, then containers, with their paths (``VisitContainersWithPath``)."""
    for field in ("initContainers", "containers"):
        for index, container in objects(pod_spec.get(field)):
            yield container, (*path, field, index)


def _linux_errors(pod_spec: JsonObject, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    if present(as_object(pod_spec.get("securityContext")), "windowsOptions"):
        errors.append(forbidden((*path, "securityContext", "windowsOptions"), OS, _NOT_ON_LINUX))
    for container, at in containers_with_paths(pod_spec, path):
        if present(as_object(container.get("securityContext")), "windowsOptions"):
            errors.append(forbidden((*at, "securityContext", "windowsOptions"), OS, _NOT_ON_LINUX))
    return errors


def _windows_errors(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    context = as_object(pod_spec.get("securityContext"))
    errors: list[FieldError] = []
    for gate, field, parent in _WINDOWS_POD_FIELDS:
        holder = pod_spec if parent is None else context
        if _windows_forbids(holder, field, gate, version):
            at = (*path, field) if parent is None else (*path, parent, field)
            errors.append(forbidden(at, OS, _NOT_ON_WINDOWS))
    for container, at in containers_with_paths(pod_spec, path):
        container_context = as_object(container.get("securityContext"))
        errors += [
            forbidden((*at, "securityContext", field), OS, _NOT_ON_WINDOWS)
            for gate, field in _WINDOWS_CONTAINER_FIELDS
            if _windows_forbids(container_context, field, gate, version)
        ]
    return errors


def _windows_forbids(
    holder: JsonObject, field: str, gate: Gate | None, version: KubeVersion
) -> bool:
    """Whether ``field`` is set in a way the API server sees: a pointer or list present, a
    boolean true (``hostPID``), and the field's gate (if any) on."""
    if gate is not None and not gate.enabled(version):
        return False
    value = holder.get(field)
    if field in ("hostPID", "hostIPC"):
        return value is True
    if field == "sysctls":
        return isinstance(value, list) and bool(value)
    return value is not None


def host_process_errors(pod_spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateWindowsHostProcessPod``: hostProcess containers are all-or-nothing, agree
    with the pod's setting, and need the host's network."""
    pod_setting = as_object(as_object(pod_spec.get("securityContext")).get("windowsOptions")).get(
        "hostProcess"
    )
    errors: list[FieldError] = []
    containers = host_process = 0
    for container, at in containers_with_paths(pod_spec, path):
        containers += 1
        options = as_object(as_object(container.get("securityContext")).get("windowsOptions"))
        setting = options.get("hostProcess")
        if isinstance(pod_setting, bool) and isinstance(setting, bool) and setting != pod_setting:
            errors.append(
                invalid(
                    (*at, "securityContext", "windowsOptions", "hostProcess"),
                    OS,
                    setting,
                    "pod hostProcess value must be identical if both are specified, was "
                    + ("true" if pod_setting else "false"),
                )
            )
        if setting is True or (setting is None and pod_setting is True):
            host_process += 1
    if host_process:
        if host_process != containers:
            detail = (
                "If pod contains any hostProcess containers then all containers must be "
                "HostProcess containers"
            )
            errors.append(invalid(path, OS, "", detail))
        if pod_spec.get("hostNetwork") is not True:
            detail = "hostNetwork must be true if pod contains any hostProcess containers"
            errors.append(invalid((*path, "hostNetwork"), OS, False, detail))  # noqa: FBT003
    return errors
