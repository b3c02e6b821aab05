"""A container's ``volumeMounts`` and ``volumeDevices`` (``ValidateVolumeMounts``,
``ValidateVolumeDevices``, ``validateMountPropagation``, ``validateMountRecursiveReadOnly``).

A mount of a volume the pod does not declare (a typo, or a volume defined in another
replicatedJob) is the common mistake; the rest guard paths that would escape the volume
(``..``), a mount point or device path used twice, block devices on a volume that is no
claim, and propagation that only privileged containers may use. Upstream reports the
``subPath``, ``subPathExpr``, ``mountPropagation`` and ``recursiveReadOnly`` errors at the
list's path rather than the item's (``volumeMounts.subPath``); so does this module.
"""

from __future__ import annotations

from trainc.checks.workload.container_context import ContainerContext
from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import objects, present, text
from trainc.checks.workload.predicates import backstep_errors, relative_path_errors
from trainc.checks.workload.version import Gate
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_object

POD_VOLUME_MOUNT = Rule(
    "pod.volume-mount",
    Severity.ERROR,
    "a volume mount or device is invalid or names no volume",
    doc=RuleDoc(
        what=(
            "a mount or device naming no volume, duplicate or missing mount paths, `..` in "
            "sub-paths, propagation, `recursiveReadOnly`"
        ),
        source=(
            "`ValidateVolumeMounts`, `ValidateVolumeDevices`, `validateMountPropagation`, "
            "`validateMountRecursiveReadOnly`"
        ),
        versions="`recursiveReadOnly` from 1.31; image volume mounts from 1.35 (`ImageVolume`)",
    ),
)


VOLUME_MOUNT = POD_VOLUME_MOUNT.code

#: ``recursiveReadOnly``; off (dropped) in 1.30, unknown before.
RECURSIVE_READ_ONLY = Gate("RecursiveReadOnlyMounts", (1, 31))

_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY_MODES = ("Disabled", "Enabled", "IfPossible")


def check_mounts(container: JsonObject, path: FieldPath, ctx: ContainerContext) -> list[FieldError]:
    """``volumeMounts`` then ``volumeDevices`` of one container; ``path`` is the container's."""
    mounts = _kept_mounts(container, ctx)
    devices = list(objects(container.get("volumeDevices")))
    mount_paths = {text(m.get("name")): text(m.get("mountPath")) for _, m in mounts}
    device_paths = {text(d.get("name")): text(d.get("devicePath")) for _, d in devices}
    privileged = as_object(container.get("securityContext")).get("privileged") is True
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, mount in mounts:
        at = (*path, "volumeMounts", index)
        errors += _mount_errors(mount, at, ctx, device_paths=device_paths, seen=seen)
        errors += _propagation_errors(mount, (*path, "volumeMounts"), ctx, privileged=privileged)
    return errors + _device_errors(devices, (*path, "volumeDevices"), ctx, mount_paths)


def _kept_mounts(container: JsonObject, ctx: ContainerContext) -> list[tuple[int, JsonObject]]:
    """The mounts left once the API server dropped those of dropped (image) volumes."""
    mounts = list(objects(container.get("volumeMounts")))
    kept = [mount for _, mount in mounts if text(mount.get("name")) not in ctx.dropped_volumes]
    return mounts if len(kept) == len(mounts) else list(enumerate(kept))


def _mount_errors(
    mount: JsonObject,
    at: FieldPath,
    ctx: ContainerContext,
    *,
    device_paths: dict[str | None, str | None],
    seen: set[str],
) -> list[FieldError]:
    """One mount's volume, mount point and sub-path; ``at`` is the mount's path."""
    name, mount_path = text(mount.get("name")), text(mount.get("mountPath"))
    if name is None or mount_path is None:
        return []
    errors: list[FieldError] = []
    if not name:
        errors.append(required((*at, "name"), VOLUME_MOUNT))
    if name not in ctx.volumes:
        errors.append(not_found((*at, "name"), VOLUME_MOUNT, name))
    if not mount_path:
        errors.append(required((*at, "mountPath"), VOLUME_MOUNT))
    if mount_path in seen:
        errors.append(invalid((*at, "mountPath"), VOLUME_MOUNT, mount_path, "must be unique"))
    seen.add(mount_path)
    if name in device_paths:
        detail = "must not already exist in volumeDevices"
        errors.append(invalid((*at, "name"), VOLUME_MOUNT, name, detail))
    if mount_path in device_paths.values():
        detail = "must not already exist as a path in volumeDevices"
        errors.append(invalid((*at, "mountPath"), VOLUME_MOUNT, mount_path, detail))
    return errors + _sub_path_errors(mount, at)


def _sub_path_errors(mount: JsonObject, at: FieldPath) -> list[FieldError]:
    """``subPath``/``subPathExpr``; upstream reports their path errors at the list's path."""
    path = at[:-1]
    sub_path = text(mount.get("subPath")) or ""
    expression = text(mount.get("subPathExpr")) or ""
    errors = [
        invalid((*path, "subPath"), VOLUME_MOUNT, sub_path, e)
        for e in (relative_path_errors(sub_path) if sub_path else [])
    ]
    if expression:
        if sub_path:
            detail = "subPathExpr and subPath are mutually exclusive"
            errors.append(invalid((*at, "subPathExpr"), VOLUME_MOUNT, expression, detail))
        errors += [
            invalid((*path, "subPathExpr"), VOLUME_MOUNT, expression, e)
            for e in relative_path_errors(expression)
        ]
    return errors


def _propagation_errors(
    mount: JsonObject, path: FieldPath, ctx: ContainerContext, *, privileged: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    propagation = mount.get("mountPropagation")
    if isinstance(propagation, str):
        at = (*path, "mountPropagation")
        if propagation not in _PROPAGATIONS:
            errors.append(not_supported(at, VOLUME_MOUNT, propagation, _PROPAGATIONS))
        if propagation == "Bidirectional" and not privileged:
            detail = "Bidirectional mount propagation is available only to privileged containers"
            errors.append(forbidden(at, VOLUME_MOUNT, detail))
    mode = mount.get("recursiveReadOnly")
    if not RECURSIVE_READ_ONLY.enabled(ctx.version) or not isinstance(mode, str):
        return errors
    at = (*path, "recursiveReadOnly")
    if mode not in _RECURSIVE_READ_ONLY_MODES:
        errors.append(not_supported(at, VOLUME_MOUNT, mode, _RECURSIVE_READ_ONLY_MODES))
    elif mode != "Disabled":
        if mount.get("readOnly") is not True:
            errors.append(
                forbidden(at, VOLUME_MOUNT, "may only be specified when readOnly is true")
            )
        if present(mount, "mountPropagation") and propagation != "None":
            detail = "may only be specified when mountPropagation is None or not specified"
            errors.append(forbidden(at, VOLUME_MOUNT, detail))
    return errors


def _device_errors(
    devices: list[tuple[int, JsonObject]],
    path: FieldPath,
    ctx: ContainerContext,
    mount_paths: dict[str | None, str | None],
) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    paths: set[str] = set()
    for index, device in devices:
        name, device_path = text(device.get("name")), text(device.get("devicePath"))
        if name is None or device_path is None:
            continue
        at = (*path, index)
        errors += _device_name_errors(name, at, ctx, names)
        if not device_path:
            errors.append(required((*at, "devicePath"), VOLUME_MOUNT))
        if device_path in paths:
            errors.append(invalid((*at, "devicePath"), VOLUME_MOUNT, device_path, "must be unique"))
        if device_path and backstep_errors(device_path):
            detail = "can not contain backsteps ('..')"
            errors.append(invalid((*at, "devicePath"), VOLUME_MOUNT, device_path, detail))
        else:
            paths.add(device_path)
        if name in mount_paths:
            detail = "must not already exist in volumeMounts"
            errors.append(invalid((*at, "name"), VOLUME_MOUNT, name, detail))
        if device_path in mount_paths.values():
            detail = "must not already exist as a path in volumeMounts"
            errors.append(invalid((*at, "devicePath"), VOLUME_MOUNT, device_path, detail))
        if name:
            names.add(name)
    return errors


def _device_name_errors(
    name: str, at: FieldPath, ctx: ContainerContext, names: set[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not name:
        errors.append(required((*at, "name"), VOLUME_MOUNT))
    if name in names:
        errors.append(invalid((*at, "name"), VOLUME_MOUNT, name, "must be unique"))
    volume = ctx.volumes.get(name)
    if volume is None:
        errors.append(not_found((*at, "name"), VOLUME_MOUNT, name))
    elif not (present(volume, "persistentVolumeClaim") or present(volume, "ephemeral")):
        detail = (
            "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"
        )
        errors.append(invalid((*at, "name"), VOLUME_MOUNT, name, detail))
    return errors
