"""The pod's security context and its use of the host's namespaces.

Training images often run as a fixed user, tune kernel parameters for NCCL (``net.*``
sysctls) and pin a seccomp profile. An out-of-range user or group ID, a malformed sysctl
name, a ``Localhost`` seccomp profile without a path, or a network sysctl on a
``hostNetwork`` pod makes the API server refuse every pod of the Job. The rules follow
``validatePodSpecSecurityContext`` (with ``validateSysctls``, ``ValidateHostSysctl``,
``validateSeccompProfileField`` and ``ValidateAppArmorProfileField``),
``validatePodHostNetworkDeps`` and ``validateHostUsers``.

In the v1 API ``hostNetwork``, ``hostPID``, ``hostIPC``, ``hostUsers`` and
``shareProcessNamespace`` sit on the pod spec; the API server keeps them in its internal
security context and reports some of them there (``spec.securityContext.
shareProcessNamespace``), which the paths here reproduce.
"""

from __future__ import annotations

import re

from trainc.checks.workload.container_context import USER_NAMESPACES
from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
)
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.checks.workload.predicates import id_errors, relative_path_errors, trim_space
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.checks.workload.windows_options import windows_options_errors
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.model.patterns import SYSCTL_NAME

POD_SECURITY_CONTEXT = Rule(
    "pod.security-context",
    Severity.ERROR,
    "a pod or container securityContext is invalid",
    doc=RuleDoc(
        what=(
            "user and group ids, `procMount`, seccomp and AppArmor profiles, Windows "
            "options, sysctls, `allowPrivilegeEscalation: false` with privileged or "
            "`CAP_SYS_ADMIN`, `fsGroupChangePolicy`, `supplementalGroupsPolicy`, "
            "`seLinuxChangePolicy`"
        ),
        source="`ValidateSecurityContext`, `ValidatePodSecurityContext`, `validateSysctls`",
        versions=(
            "AppArmor fields from 1.30; `procMount`, `supplementalGroupsPolicy`, "
            "`seLinuxChangePolicy` from 1.33"
        ),
    ),
)

POD_HOST_NAMESPACES = Rule(
    "pod.host-namespaces",
    Severity.ERROR,
    "host namespaces conflict with ports, sysctls or hostUsers",
    doc=RuleDoc(
        what=(
            "host ports other than container ports with `hostNetwork`, network sysctls with "
            "host namespaces, `hostUsers: false` with a host namespace"
        ),
        source="`validatePodHostNetworkDeps`, `validateHostUsers`",
        versions="`hostUsers` from 1.33",
    ),
)


SECURITY_CONTEXT = POD_SECURITY_CONTEXT.code
HOST_NAMESPACES = POD_HOST_NAMESPACES.code

#: ``appArmorProfile`` fields; before 1.30 the API server drops them.
APPARMOR_FIELDS = Gate("AppArmorFields", (1, 30))
#: ``supplementalGroupsPolicy``; dropped before 1.33.
SUPPLEMENTAL_GROUPS_POLICY = Gate("SupplementalGroupsPolicy", (1, 33))
#: ``seLinuxChangePolicy``; dropped before 1.33. Only ``Recursive`` is accepted while the
#: SELinuxMount gate stays off by default (through 1.36).
SELINUX_CHANGE_POLICY = Gate("SELinuxChangePolicy", (1, 33))

_SYSCTL_MAX = 253
#: Sysctls of the IPC namespace by name, and namespaced sysctls by prefix
#: (``k8s.io/component-helpers/node/util/sysctl``).
_IPC_SYSCTLS = frozenset(
    {
        "kernel.sem",
        "kernel.shmall",
        "kernel.shmmax",
        "kernel.shmmni",
        "kernel.shm_rmid_forced",
        "kernel.shm",
        "kernel.msgmax",
        "kernel.msgmnb",
        "kernel.msgmni",
        "kernel.msg",
    }
)
_SYSCTL_PREFIXES = (("net.", "hostNetwork"), ("fs.mqueue.", "hostIPC"))
_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
#: ``PATH_MAX - 1``, the longest AppArmor profile name the kernel accepts.
_APPARMOR_PROFILE_MAX = 4095


def security_context_errors(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodSpecSecurityContext``; ``path`` is the pod spec's."""
    context = as_object(pod_spec.get("securityContext"))
    at = (*path, "securityContext")
    errors: list[FieldError] = []
    for field in ("fsGroup", "runAsUser", "runAsGroup"):
        errors += id_field_errors(context.get(field), (*at, field))
    for index, group in enumerate(as_list(context.get("supplementalGroups"))):
        errors += id_field_errors(group, (*at, "supplementalGroups", index))
    if pod_spec.get("shareProcessNamespace") is True and pod_spec.get("hostPID") is True:
        errors.append(
            invalid(
                (*at, "shareProcessNamespace"),
                SECURITY_CONTEXT,
                True,  # noqa: FBT003 - the offending value
                "ShareProcessNamespace and HostPID cannot both be enabled",
            )
        )
    errors += _sysctls_errors(pod_spec, context.get("sysctls"), (*at, "sysctls"))
    errors += _enum_errors(
        context.get("fsGroupChangePolicy"),
        (*at, "fsGroupChangePolicy"),
        ("Always", "OnRootMismatch"),
    )
    errors += seccomp_profile_errors(context.get("seccompProfile"), (*at, "seccompProfile"))
    errors += windows_options_errors(
        context.get("windowsOptions"), (*at, "windowsOptions"), SECURITY_CONTEXT
    )
    if APPARMOR_FIELDS.enabled(version):
        errors += apparmor_profile_errors(context.get("appArmorProfile"), (*at, "appArmorProfile"))
    errors += _policy_errors(context, at, version)
    return errors


def id_field_errors(value: JsonValue, path: FieldPath) -> list[FieldError]:
    """``IsValidUserID``/``IsValidGroupID`` on a pod's or a container's ID field, when set:
    IDs are non-negative 32-bit integers."""
    number = integer(value) if value is not None else None
    if number is None:
        return []
    return [invalid(path, SECURITY_CONTEXT, number, message) for message in id_errors(number)]


def _sysctls_errors(pod_spec: JsonObject, sysctls: JsonValue, path: FieldPath) -> list[FieldError]:
    """``validateSysctls``: well-formed unique names, none namespaced with the host."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, sysctl in objects(sysctls):
        name = text(sysctl.get("name"))
        if name is None:
            continue
        at = (*path, index, "name")
        if not name:
            errors.append(required(at, SECURITY_CONTEXT))
        elif len(name) > _SYSCTL_MAX or not SYSCTL_NAME.matches(name):
            detail = f"must have at most {_SYSCTL_MAX} characters: {SYSCTL_NAME.explained}"
            errors.append(invalid(at, SECURITY_CONTEXT, name, detail))
        elif name in seen:
            errors.append(duplicate(at, SECURITY_CONTEXT, name))
        if (host_field := _host_namespace_of(name)) and pod_spec.get(host_field) is True:
            detail = f"may not be specified when '{host_field}' is true"
            errors.append(invalid(at, HOST_NAMESPACES, name, detail))
        seen.add(name)
    return errors


def _host_namespace_of(sysctl: str) -> str | None:
    """The pod field that shares the namespace ``sysctl`` belongs to (``hostNetwork`` for
    ``net.*``, ``hostIPC`` for IPC ones); None for a sysctl of no known namespace.

    ``GetNamespace`` reads ``net/ipv4/ip_forward`` as ``net.ipv4.ip_forward`` and a
    wildcard (``net.ipv6.neigh.*``) up to its ``*``.
    """
    separator = re.search(r"[./]", sysctl)
    if separator is not None and separator.group() == "/":
        sysctl = sysctl.translate(str.maketrans("./", "/."))
    sysctl = sysctl.partition("*")[0]
    if sysctl in _IPC_SYSCTLS:
        return "hostIPC"
    return next((field for prefix, field in _SYSCTL_PREFIXES if sysctl.startswith(prefix)), None)


def seccomp_profile_errors(profile: JsonValue, path: FieldPath) -> list[FieldError]:
    """``validateSeccompProfileField``: a known type; a path exactly for ``Localhost``."""
    if not isinstance(profile, dict):
        return []
    errors: list[FieldError] = []
    kind = text(profile.get("type"))
    if kind == "":
        errors.append(
            required(
                (*path, "type"), SECURITY_CONTEXT, "type is required when seccompProfile is set"
            )
        )
    elif kind is not None and kind not in _PROFILE_TYPES:
        errors.append(not_supported((*path, "type"), SECURITY_CONTEXT, kind, _PROFILE_TYPES))
    local = profile.get("localhostProfile")
    local_path = (*path, "localhostProfile")
    if kind == "Localhost":
        if local is None:
            detail = "must be set when seccomp type is Localhost"
            errors.append(required(local_path, SECURITY_CONTEXT, detail))
        elif isinstance(local, str):
            errors += [
                invalid(local_path, SECURITY_CONTEXT, local, message)
                for message in relative_path_errors(local)
            ]
    elif local is not None:
        detail = "can only be set when seccomp type is Localhost"
        errors.append(invalid(local_path, SECURITY_CONTEXT, profile, detail))
    return errors


def apparmor_profile_errors(profile: JsonValue, path: FieldPath) -> list[FieldError]:
    """``ValidateAppArmorProfileField``: a known type; a profile name exactly for
    ``Localhost``."""
    if not isinstance(profile, dict):
        return []
    kind = text(profile.get("type"))
    local = profile.get("localhostProfile")
    local_path = (*path, "localhostProfile")
    if kind == "Localhost":
        return _apparmor_localhost_errors(local, local_path)
    if kind in ("RuntimeDefault", "Unconfined"):
        detail = "can only be set when AppArmor type is Localhost"
        return [] if local is None else [invalid(local_path, SECURITY_CONTEXT, local, detail)]
    if kind == "":
        detail = "type is required when appArmorProfile is set"
        return [required((*path, "type"), SECURITY_CONTEXT, detail)]
    return _enum_errors(kind, (*path, "type"), _PROFILE_TYPES)


def _apparmor_localhost_errors(local: JsonValue, path: FieldPath) -> list[FieldError]:
    """A ``Localhost`` profile's name: set, unpadded, at most ``PATH_MAX - 1`` bytes."""
    missing = "must be set when AppArmor type is Localhost"
    if not isinstance(local, str):
        return [required(path, SECURITY_CONTEXT, missing)] if local is None else []
    errors: list[FieldError] = []
    if trim_space(local) != local:
        errors.append(invalid(path, SECURITY_CONTEXT, local, "must not be padded with whitespace"))
    elif not local:
        errors.append(required(path, SECURITY_CONTEXT, missing))
    if len(local.encode()) > _APPARMOR_PROFILE_MAX:
        errors.append(too_long(path, SECURITY_CONTEXT, _APPARMOR_PROFILE_MAX))
    return errors


def _policy_errors(context: JsonObject, at: FieldPath, version: KubeVersion) -> list[FieldError]:
    """``supplementalGroupsPolicy`` and ``seLinuxChangePolicy``, once their gates are on."""
    errors: list[FieldError] = []
    for gate, field, allowed in (
        (SUPPLEMENTAL_GROUPS_POLICY, "supplementalGroupsPolicy", ("Merge", "Strict")),
        (SELINUX_CHANGE_POLICY, "seLinuxChangePolicy", ("Recursive",)),
    ):
        if gate.enabled(version):
            errors += _enum_errors(context.get(field), (*at, field), allowed)
    return errors


def _enum_errors(value: JsonValue, path: FieldPath, allowed: tuple[str, ...]) -> list[FieldError]:
    """A string field that must be one of ``allowed`` (``Unsupported value`` otherwise)."""
    if not isinstance(value, str) or value in allowed:
        return []
    return [not_supported(path, SECURITY_CONTEXT, value, allowed)]


def host_network_port_errors(pod_spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validatePodHostNetworkDeps`` for a template: on the host's network a container
    port is the host port, so a ``hostPort`` that is set must equal ``containerPort``."""
    if pod_spec.get("hostNetwork") is not True:
        return []
    errors: list[FieldError] = []
    for index, container in objects(pod_spec.get("containers")):
        for position, port in objects(container.get("ports")):
            host_port, container_port = (
                integer(port.get("hostPort")),
                integer(port.get("containerPort")),
            )
            if host_port and container_port is not None and host_port != container_port:
                errors.append(
                    invalid(
                        (*path, "containers", index, "ports", position, "hostPort"),
                        HOST_NAMESPACES,
                        host_port,
                        "must match `containerPort` when `hostNetwork` is true",
                    )
                )
    return errors


def host_users_errors(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validateHostUsers``: a pod in its own user namespace shares no other host
    namespace. The API server names two of the fields in Go's spelling (``HostPID``)."""
    if not USER_NAMESPACES.enabled(version) or pod_spec.get("hostUsers") is not False:
        return []
    detail = "when `pod.Spec.HostUsers` is false"
    return [
        forbidden((*path, reported), HOST_NAMESPACES, detail)
        for field, reported in (
            ("hostNetwork", "hostNetwork"),
            ("hostPID", "HostPID"),
            ("hostIPC", "HostIPC"),
        )
        if pod_spec.get(field) is True
    ]
