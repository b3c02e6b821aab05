"""Files a volume writes into the pod: their paths, modes and downward API sources.

Secret, configMap, downwardAPI and projected volumes project items to relative paths
below the mount point. The API server refuses a path that could escape it (absolute,
or with a ``..`` element) and a file mode outside 0..0777, and checks what a downward API
file reads. This module reproduces ``ValidateLocalNonReservedPath``, ``validateKeyToPath``
and ``validateDownwardAPIVolumeFile`` of ``pkg/apis/core/validation``; the downward API
selectors are the env variables' (:mod:`.downward`), with the fields a volume may expose.
"""

from __future__ import annotations

from trainc.checks.workload.downward import (
    VOLUME_FIELD_PATHS,
    field_selector_errors,
    resource_selector_errors,
)
from trainc.checks.workload.fielderrors import FieldError, invalid, required
from trainc.checks.workload.jsonfields import integer, text
from trainc.checks.workload.predicates import relative_path_errors
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject

POD_VOLUME_ITEMS = Rule(
    "pod.volume-items",
    Severity.ERROR,
    "a volume item's key, path or mode is invalid",
    doc=RuleDoc(
        what="item keys and paths (absolute, `..`), file modes, downward API references",
        source=(
            "`validateKeyToPath`, `validateDownwardAPIVolumeFile`, `validateLocalDescendingPath`"
        ),
        versions="all",
    ),
)


#: The files a volume projects: keys, paths, modes and downward API references.
ITEMS_CODE = POD_VOLUME_ITEMS.code

_FILE_MODE_DETAIL = "must be a number between 0 and 0777 (octal), both inclusive"
_MAX_FILE_MODE = 0o777


def local_non_reserved_path(target: str, path: FieldPath) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``: relative, never climbing out, and not starting with
    ``..`` (``..data`` is the kubelet's own)."""
    messages = relative_path_errors(target)
    if target.startswith("..") and not target.startswith("../"):
        messages.append("must not start with '..'")
    return [invalid(path, ITEMS_CODE, target, message) for message in messages]


def file_mode_errors(obj: JsonObject, key: str, path: FieldPath) -> list[FieldError]:
    """A file mode (``mode``, ``defaultMode``) outside 0..0777."""
    mode = integer(obj.get(key))
    if mode is None or 0 <= mode <= _MAX_FILE_MODE:
        return []
    return [invalid((*path, key), ITEMS_CODE, mode, _FILE_MODE_DETAIL)]


def key_to_path_errors(item: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateKeyToPath``: a key, a safe relative path, a valid mode."""
    errors: list[FieldError] = []
    if not text(item.get("key")):
        errors.append(required((*path, "key"), ITEMS_CODE))
    target = text(item.get("path")) or ""
    if not target:
        errors.append(required((*path, "path"), ITEMS_CODE))
    errors += local_non_reserved_path(target, (*path, "path"))
    return errors + file_mode_errors(item, "mode", path)


def downward_api_file_errors(file: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateDownwardAPIVolumeFile``: a safe path and exactly one of the two sources.

    ``path`` is where upstream reports, which is the volume (or projected source), not
    the item: ``volumes[0].downwardAPI.path: Required value``.
    """
    errors: list[FieldError] = []
    target = text(file.get("path")) or ""
    if not target:
        errors.append(required((*path, "path"), ITEMS_CODE))
    errors += local_non_reserved_path(target, (*path, "path"))
    field_ref, resource_ref = file.get("fieldRef"), file.get("resourceFieldRef")
    if isinstance(field_ref, dict):
        at: FieldPath = (*path, "fieldRef")
        errors += field_selector_errors(field_ref, at, ITEMS_CODE, VOLUME_FIELD_PATHS)
        if isinstance(resource_ref, dict):
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            errors.append(invalid(path, ITEMS_CODE, "resource", detail))
    elif isinstance(resource_ref, dict):
        at = (*path, "resourceFieldRef")
        errors += resource_selector_errors(resource_ref, at, ITEMS_CODE, volume=True)
    else:
        errors.append(
            required(path, ITEMS_CODE, "one of fieldRef and resourceFieldRef is required")
        )
    return errors + file_mode_errors(file, "mode", path)
