"""Files a volume writes into the pod: their paths, modes and downward API sources.

Secret, configMap, downwardAPI and projected volumes project items to relative paths
below the mount point. The API server refuses a path that could escape it (absolute,
or with a ``..`` element) and a file mode outside 0..0777, and checks what a downward API
file reads. This module reproduces ``validateLocalDescendingPath``,
``validatePathNoBacksteps``, ``ValidateLocalNonReservedPath``, ``validateKeyToPath``,
``validateDownwardAPIVolumeFile`` with ``validateObjectFieldSelector``,
``validateContainerResourceFieldSelector`` and ``validateContainerResourceDivisor`` of
``pkg/apis/core/validation``, and small readers of JSON fields the volume modules share.
"""

from __future__ import annotations

from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.resolve.quantity import (
    QuantityError,
    format_quantity,
    is_binary_quantity,
    parse_quantity,
)
from trainc.validate.metadata import qualified_name_errors
from trainc.validate.workload.fielderrors import FieldError, invalid, not_supported, required

#: The files a volume projects: keys, paths, modes and downward API references.
ITEMS_CODE = "pod.volume-items"

_FILE_MODE_DETAIL = "must be a number between 0 and 0777 (octal), both inclusive"
_MAX_FILE_MODE = 0o777

#: Pod fields a downward API *volume* may expose (``validVolumeDownwardAPIFieldPathExpressions``).
_VOLUME_FIELD_PATHS = (
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
)
#: Every field label ``ConvertDownwardAPIFieldLabel`` knows for v1 pods.
_FIELD_LABELS = frozenset(
    {
        *_VOLUME_FIELD_PATHS,
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    }
)
_CONTAINER_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
_HUGEPAGE_FIELD_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_BYTE_DIVISORS = frozenset(
    {"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)
_BYTE_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
#: Per resource field: the divisors it accepts and the detail naming the resource.
_DIVISORS = {
    "cpu": (frozenset({"1m", "1"}), "1m and 1", "cpu"),
    "memory": (_BYTE_DIVISORS, _BYTE_DIVISORS_TEXT, "memory"),
    "ephemeral-storage": (_BYTE_DIVISORS, _BYTE_DIVISORS_TEXT, "local ephemeral storage"),
}


def text(obj: JsonObject, key: str) -> str:
    """The string at ``key``; empty when absent or not a string (Go's zero value)."""
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def integer(obj: JsonObject, key: str) -> int | None:
    """The integer at ``key``; None when absent or not an integer."""
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def path_no_backsteps(target: str, path: FieldPath, code: str) -> list[FieldError]:
    """``validatePathNoBacksteps``: no ``..`` element (one error however many)."""
    if ".." in target.split("/"):
        return [invalid(path, code, target, "must not contain '..'")]
    return []


def local_descending_path(target: str, path: FieldPath, code: str) -> list[FieldError]:
    """``validateLocalDescendingPath``: relative, and never climbing out."""
    errors = []
    if target.startswith("/"):
        errors.append(invalid(path, code, target, "must be a relative path"))
    return errors + path_no_backsteps(target, path, code)


def local_non_reserved_path(target: str, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``: also not starting with ``..`` (``..data`` is the
    kubelet's own)."""
    errors = local_descending_path(target, path, code)
    if target.startswith("..") and not target.startswith("../"):
        errors.append(invalid(path, code, target, "must not start with '..'"))
    return errors


def file_mode_errors(obj: JsonObject, key: str, path: FieldPath) -> list[FieldError]:
    """A file mode (``mode``, ``defaultMode``) outside 0..0777."""
    mode = integer(obj, key)
    if mode is None or 0 <= mode <= _MAX_FILE_MODE:
        return []
    return [invalid((*path, key), ITEMS_CODE, mode, _FILE_MODE_DETAIL)]


def key_to_path_errors(item: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateKeyToPath``: a key, a safe relative path, a valid mode."""
    errors: list[FieldError] = []
    if not text(item, "key"):
        errors.append(required((*path, "key"), ITEMS_CODE))
    target = text(item, "path")
    if not target:
        errors.append(required((*path, "path"), ITEMS_CODE))
    errors += local_non_reserved_path(target, (*path, "path"), ITEMS_CODE)
    return errors + file_mode_errors(item, "mode", path)


def downward_api_file_errors(file: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateDownwardAPIVolumeFile``: a safe path and exactly one of the two sources.

    ``path`` is where upstream reports, which is the volume (or projected source), not
    the item: ``volumes[0].downwardAPI.path: Required value``.
    """
    errors: list[FieldError] = []
    target = text(file, "path")
    if not target:
        errors.append(required((*path, "path"), ITEMS_CODE))
    errors += local_non_reserved_path(target, (*path, "path"), ITEMS_CODE)
    field_ref, resource_ref = file.get("fieldRef"), file.get("resourceFieldRef")
    if isinstance(field_ref, dict):
        errors += _object_field_errors(field_ref, (*path, "fieldRef"))
        if isinstance(resource_ref, dict):
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            errors.append(invalid(path, ITEMS_CODE, "resource", detail))
    elif isinstance(resource_ref, dict):
        errors += _resource_field_errors(resource_ref, (*path, "resourceFieldRef"))
    else:
        errors.append(
            required(path, ITEMS_CODE, "one of fieldRef and resourceFieldRef is required")
        )
    return errors + file_mode_errors(file, "mode", path)


def _object_field_errors(ref: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateObjectFieldSelector`` for volumes (``apiVersion`` defaults to ``v1``)."""
    field_path = text(ref, "fieldPath")
    at: FieldPath = (*path, "fieldPath")
    if not field_path:
        return [required(at, ITEMS_CODE)]
    reason = _conversion_failure(text(ref, "apiVersion") or "v1", field_path)
    if reason:
        return [_conversion_error(at, field_path, reason)]
    subscripted = _split_subscript(field_path)
    if subscripted is not None:
        base, key = subscripted
        name = key.lower() if base == "metadata.annotations" else key
        return [invalid(path, ITEMS_CODE, name, msg) for msg in qualified_name_errors(name)]
    converted = "spec.nodeName" if field_path == "spec.host" else field_path
    if converted not in _VOLUME_FIELD_PATHS:
        return [not_supported(at, ITEMS_CODE, converted, _VOLUME_FIELD_PATHS)]
    return []


def _conversion_failure(api_version: str, field_path: str) -> str:
    """Why ``ConvertDownwardAPIFieldLabel`` refuses ``field_path``; empty if it does not."""
    if api_version != "v1":
        return f"unsupported pod version: {api_version}"
    subscripted = _split_subscript(field_path)
    if subscripted is not None:
        if subscripted[0] in ("metadata.annotations", "metadata.labels"):
            return ""
        return f"field label does not support subscript: {field_path}"
    if field_path in _FIELD_LABELS or field_path == "spec.host":
        return ""
    return f"field label not supported: {field_path}"


def _conversion_error(path: FieldPath, field_path: str, reason: str) -> FieldError:
    return invalid(path, ITEMS_CODE, field_path, f"error converting fieldPath: {reason}")


def _split_subscript(field_path: str) -> tuple[str, str] | None:
    """``fieldpath.SplitMaybeSubscriptedPath``: ``metadata.labels['app']`` → base, key."""
    if not field_path.endswith("']"):
        return None
    base, separator, key = field_path.removesuffix("']").partition("['")
    return (base, key) if separator and base else None


def _resource_field_errors(ref: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateContainerResourceFieldSelector`` for volumes: a container is named."""
    errors: list[FieldError] = []
    resource = text(ref, "resource")
    if not text(ref, "containerName"):
        errors.append(required((*path, "containerName"), ITEMS_CODE))
    elif not resource:
        errors.append(required((*path, "resource"), ITEMS_CODE))
    elif resource not in _CONTAINER_RESOURCE_FIELDS and not resource.startswith(
        _HUGEPAGE_FIELD_PREFIXES
    ):
        errors.append(
            not_supported((*path, "resource"), ITEMS_CODE, resource, _CONTAINER_RESOURCE_FIELDS)
        )
    return errors + _divisor_errors(resource, ref.get("divisor"), path)


def _divisor_errors(resource: str, divisor: JsonValue, path: FieldPath) -> list[FieldError]:
    """``validateContainerResourceDivisor``: a unit the resource can be expressed in."""
    try:
        amount = parse_quantity(divisor)
    except QuantityError:
        return []
    if amount == 0:
        return []
    canonical = format_quantity(amount, binary=is_binary_quantity(divisor))
    errors: list[FieldError] = []
    kind = resource.partition(".")[2] if resource.startswith(("limits.", "requests.")) else ""
    accepted, shown, what = _DIVISORS.get(kind, (None, "", ""))
    if accepted is not None and canonical not in accepted:
        errors.append(_divisor_error(resource, shown, what, path))
    if resource.startswith(_HUGEPAGE_FIELD_PREFIXES) and canonical not in _BYTE_DIVISORS:
        errors.append(_divisor_error(resource, _BYTE_DIVISORS_TEXT, "hugepages", path))
    return errors


def _divisor_error(resource: str, accepted: str, what: str, path: FieldPath) -> FieldError:
    detail = f"only divisor's values {accepted} are supported with the {what} resource"
    return invalid((*path, "divisor"), ITEMS_CODE, resource, detail)
