"""Checks of the volume sources a training pod mounts from its node or the API.

Reproduces, from ``pkg/apis/core/validation``, the per-source validators of the volumes
that carry data into a pod from the node or from API objects: ``emptyDir``
(the size-limit check of ``validateVolumeSource``), ``validateHostPathVolumeSource``,
``validateGitRepoVolumeSource``, ``validateSecretVolumeSource``,
``validateConfigMapVolumeSource``, ``validateDownwardAPIVolumeSource``,
``validatePersistentClaimVolumeSource``, ``validateCSIVolumeSource`` and
``validateImageVolumeSource``. Each takes the source mapping and the path of the source.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
)
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.predicates import backstep_errors, relative_path_errors
from trainc.checks.workload.pull_policy import pull_policy_errors
from trainc.checks.workload.volume_files import (
    downward_api_file_errors,
    file_mode_errors,
    key_to_path_errors,
)
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object
from trainc.resolve.quantity import QuantityError, parse_quantity
from trainc.schema.metadata import dns1123_subdomain_errors

POD_VOLUME_SOURCE = Rule(
    "pod.volume-source",
    Severity.ERROR,
    "a volume has no source, or more than one",
    doc=RuleDoc(
        what="more than one source in a volume or a projected source",
        source="`validateVolumeSource`, `validateProjectionSources`",
        versions="all",
    ),
)

POD_VOLUME = Rule(
    "pod.volume",
    Severity.ERROR,
    "a volume source's own fields are invalid",
    doc=RuleDoc(
        what=(
            "a source's own fields: NFS paths, claim names, CSI drivers, service account "
            "token lifetimes, ..."
        ),
        source="the per-source validators of `validateVolumeSource`",
        versions="image volumes from 1.35 (`ImageVolume`)",
    ),
)


#: A source's own settings: names it needs, formats, ranges.
VOLUME_CODE = POD_VOLUME.code
#: Exactly one source per volume (and per entry of ``projected.sources``).
SOURCE_CODE = POD_VOLUME_SOURCE.code

#: ``supportedHostPathTypes`` ("" is the default, no check).
_HOST_PATH_TYPES = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)
_CSI_DRIVER_MAX = 63


def empty_dir_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """An ``emptyDir`` size limit must not be negative."""
    try:
        negative = parse_quantity(source.get("sizeLimit")) < 0
    except QuantityError:
        negative = False
    if not negative:
        return []
    detail = "SizeLimit field must be a valid resource quantity"
    return [forbidden((*path, "sizeLimit"), VOLUME_CODE, detail)]


def host_path_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``hostPath`` needs a path without ``..`` and a known type."""
    host_path = text(source.get("path"))
    if not host_path:
        return [required((*path, "path"), VOLUME_CODE)]
    at: FieldPath = (*path, "path")
    errors = [invalid(at, VOLUME_CODE, host_path, e) for e in backstep_errors(host_path)]
    kind = source.get("type")
    if isinstance(kind, str) and kind not in _HOST_PATH_TYPES:
        errors.append(not_supported((*path, "type"), VOLUME_CODE, kind, _HOST_PATH_TYPES))
    return errors


def git_repo_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``gitRepo`` (deprecated) needs a repository and a directory inside the volume."""
    errors = []
    if not text(source.get("repository")):
        errors.append(required((*path, "repository"), VOLUME_CODE))
    directory = text(source.get("directory")) or ""
    at: FieldPath = (*path, "directory")
    return errors + [
        invalid(at, VOLUME_CODE, directory, e) for e in relative_path_errors(directory)
    ]


def secret_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``secret`` volume names its Secret; its mode and items must be valid."""
    return _object_volume_errors(source, "secretName", path)


def config_map_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``configMap`` volume names its ConfigMap; its mode and items must be valid."""
    return _object_volume_errors(source, "name", path)


def _object_volume_errors(source: JsonObject, name_key: str, path: FieldPath) -> list[FieldError]:
    errors = []
    if not text(source.get(name_key)):
        errors.append(required((*path, name_key), VOLUME_CODE))
    errors += file_mode_errors(source, "defaultMode", path)
    for index, item in enumerate(as_list(source.get("items"))):
        errors += key_to_path_errors(as_object(item), (*path, "items", index))
    return errors


def downward_api_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``downwardAPI`` volume: its mode, and each file (reported at the volume's path)."""
    errors = file_mode_errors(source, "defaultMode", path)
    for item in as_list(source.get("items")):
        errors += downward_api_file_errors(as_object(item), path)
    return errors


def claim_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``persistentVolumeClaim`` volume names its claim."""
    if text(source.get("claimName")):
        return []
    return [required((*path, "claimName"), VOLUME_CODE)]


def csi_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateCSIVolumeSource``: a driver name (``ValidateCSIDriverName``) and secret.

    An invalid secret name is reported at ``csi.name``, as upstream does.
    """
    driver = text(source.get("driver")) or ""
    at: FieldPath = (*path, "driver")
    errors: list[FieldError] = []
    if not driver:
        errors.append(required(at, VOLUME_CODE))
    if len(driver.encode()) > _CSI_DRIVER_MAX:
        errors.append(too_long(at, VOLUME_CODE, _CSI_DRIVER_MAX))
    errors += [
        invalid(at, VOLUME_CODE, driver, msg) for msg in dns1123_subdomain_errors(driver.lower())
    ]
    secret_ref = source.get("nodePublishSecretRef")
    if isinstance(secret_ref, dict):
        name = text(secret_ref.get("name")) or ""
        if not name:
            errors.append(required((*path, "nodePublishSecretRef", "name"), VOLUME_CODE))
        errors += [
            invalid((*path, "name"), VOLUME_CODE, name, msg)
            for msg in (dns1123_subdomain_errors(name) if name else [])
        ]
    return errors


def image_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """An ``image`` volume names an image, with a known pull policy.

    The reference is only required of Pods (a template may leave it to admission), so an
    empty one passes the Job and fails each of its Pods.
    """
    errors = []
    if not text(source.get("reference")):
        errors.append(required((*path, "reference"), VOLUME_CODE))
    return errors + pull_policy_errors(source.get("pullPolicy"), (*path, "pullPolicy"), VOLUME_CODE)
