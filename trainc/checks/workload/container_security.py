"""A container's ``securityContext`` (``ValidateSecurityContext`` and the seccomp and
AppArmor profile checks it calls).

The rules catch contradictions the kubelet could not honour: ``allowPrivilegeEscalation:
false`` on a privileged container (or one adding ``CAP_SYS_ADMIN``), user and group IDs
outside 0..2^31-1, profiles whose ``localhostProfile`` does not match their type. Two
fields depend on the release: ``procMount`` is judged from 1.33, when ``ProcMountType``
turned on (before, the API server resets it to ``Default``), and ``Unmasked`` then needs
a pod in its own user namespace (``hostUsers: false``); ``appArmorProfile`` exists from
1.30. Whether privileged containers are allowed at all is the cluster's
``--allow-privileged`` setting, which trainc cannot see.

The ID, profile and Windows-options checks, and the AppArmor gate, are the pod security
context's (:mod:`.pod_security`; the same rules upstream), so container findings share
its rule code, ``pod.security-context``. ``Unmasked`` reads the pod's ``hostUsers``,
which the v1 API keeps on the pod spec (``spec.hostUsers``), not in a security context:
see :func:`~.container_context.context_of`.
"""

from __future__ import annotations

from trainc.checks.workload.container_context import ContainerContext
from trainc.checks.workload.fielderrors import FieldError, invalid, not_supported
from trainc.checks.workload.pod_security import (
    APPARMOR_FIELDS,
    SECURITY_CONTEXT,
    apparmor_profile_errors,
    id_field_errors,
    seccomp_profile_errors,
)
from trainc.checks.workload.version import Gate
from trainc.checks.workload.windows_options import windows_options_errors
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object

#: ``procMount``; before 1.33 the API server resets it to ``Default``.
PROC_MOUNT_TYPE = Gate("ProcMountType", (1, 33))

_PROC_MOUNTS = ("Default", "Unmasked")


def check_security_context(
    context: JsonValue, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    """A container's ``securityContext``; ``path`` is the security context's."""
    if not isinstance(context, dict):
        return []
    errors: list[FieldError] = []
    for field in ("runAsUser", "runAsGroup"):
        errors += id_field_errors(context.get(field), (*path, field))
    errors += _proc_mount_errors(context.get("procMount"), (*path, "procMount"), ctx)
    errors += seccomp_profile_errors(context.get("seccompProfile"), (*path, "seccompProfile"))
    errors += _escalation_errors(context, path)
    errors += windows_options_errors(
        context.get("windowsOptions"), (*path, "windowsOptions"), SECURITY_CONTEXT
    )
    if APPARMOR_FIELDS.enabled(ctx.version):
        errors += apparmor_profile_errors(
            context.get("appArmorProfile"), (*path, "appArmorProfile")
        )
    return errors


def _proc_mount_errors(
    value: JsonValue, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    if not isinstance(value, str) or not PROC_MOUNT_TYPE.enabled(ctx.version):
        return []
    errors: list[FieldError] = []
    if value not in _PROC_MOUNTS:
        errors.append(not_supported(path, SECURITY_CONTEXT, value, _PROC_MOUNTS))
    if ctx.host_users and value == "Unmasked":
        detail = "`hostUsers` must be false to use `Unmasked`"
        errors.append(invalid(path, SECURITY_CONTEXT, value, detail))
    return errors


def _escalation_errors(context: JsonObject, path: FieldPath) -> list[FieldError]:
    """``allowPrivilegeEscalation: false`` contradicted by privilege the container holds."""
    if context.get("allowPrivilegeEscalation") is not False:
        return []
    errors: list[FieldError] = []
    if context.get("privileged") is True:
        detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
        errors.append(invalid(path, SECURITY_CONTEXT, context, detail))
    sys_admin = (
        "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
    )
    added = as_list(as_object(context.get("capabilities")).get("add"))
    errors += [
        invalid(path, SECURITY_CONTEXT, context, sys_admin)
        for capability in added
        if capability == "CAP_SYS_ADMIN"
    ]
    return errors
