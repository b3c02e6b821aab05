"""Checks of a ``projected`` volume: several sources merged into one directory.

Reproduces ``validateProjectedVolumeSource`` and ``validateProjectionSources`` of
``pkg/apis/core/validation``: each entry of ``sources`` holds one source (secret,
configMap, downwardAPI, serviceAccountToken), no two of them write the same path, and a
service account token lives at least ten minutes at a safe relative path. Training pods
use projected volumes for audience-bound tokens (object storage, cloud identity) and for
merging configuration, where a duplicate path silently shadows a file.

``clusterTrustBundle`` and ``podCertificate`` sources are behind feature gates
(``ClusterTrustBundleProjection``, ``PodCertificateRequest``) that are off by default in
every release trainc models (1.29 to 1.36): the API server drops them before validating,
so they are neither checked nor counted here.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import FieldError, forbidden, invalid, required
from trainc.checks.workload.jsonfields import integer, text
from trainc.checks.workload.volume_files import (
    ITEMS_CODE,
    downward_api_file_errors,
    file_mode_errors,
    key_to_path_errors,
    local_non_reserved_path,
)
from trainc.checks.workload.volume_sources import SOURCE_CODE, VOLUME_CODE
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object

#: Sources the API server keeps (the gated ones are dropped, see the module docstring).
_SOURCES = ("secret", "configMap", "downwardAPI", "serviceAccountToken")
_MIN_TOKEN_SECONDS = 10 * 60
_MAX_TOKEN_SECONDS = 1 << 32
_DEFAULT_TOKEN_SECONDS = 3600


def projected_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """The default mode, then each source entry in order."""
    errors = file_mode_errors(source, "defaultMode", path)
    written: set[str] = set()
    for index, entry in enumerate(as_list(source.get("sources"))):
        errors += _entry_errors(as_object(entry), path, (*path, "sources", index), written)
    return errors


def _entry_errors(
    entry: JsonObject, path: FieldPath, entry_path: FieldPath, written: set[str]
) -> list[FieldError]:
    present = [key for key in _SOURCES if isinstance(entry.get(key), dict)]
    errors: list[FieldError] = []
    for key in present:
        source = as_object(entry.get(key))
        source_path: FieldPath = (*entry_path, key)
        if key == "serviceAccountToken":
            errors += _token_errors(source, path, source_path)
        elif key == "downwardAPI":
            errors += _downward_api_errors(source, path, source_path, written)
        else:
            errors += _object_errors(source, path, source_path, written)
    if len(present) > 1:
        detail = "may not specify more than 1 volume type per source"
        errors.append(forbidden(entry_path, SOURCE_CODE, detail))
    return errors


def _object_errors(
    source: JsonObject, path: FieldPath, source_path: FieldPath, written: set[str]
) -> list[FieldError]:
    """A secret or configMap source: a name, valid items, paths not written before.

    Upstream reports a repeated path at the volume, with the source's name as the value.
    """
    name = text(source.get("name")) or ""
    errors = [] if name else [required((*source_path, "name"), VOLUME_CODE)]
    for index, item in enumerate(as_list(source.get("items"))):
        item_object = as_object(item)
        errors += key_to_path_errors(item_object, (*source_path, "items", index))
        errors += _repeat_errors(text(item_object.get("path")) or "", path, name, written)
    return errors


def _downward_api_errors(
    source: JsonObject, path: FieldPath, source_path: FieldPath, written: set[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    for item in as_list(source.get("items")):
        target = text(as_object(item).get("path")) or ""
        errors += downward_api_file_errors(as_object(item), source_path)
        errors += _repeat_errors(target, path, target, written)
    return errors


def _repeat_errors(
    target: str, path: FieldPath, shown: JsonValue, written: set[str]
) -> list[FieldError]:
    if not target:
        return []
    if target in written:
        return [invalid(path, ITEMS_CODE, shown, "conflicting duplicate paths")]
    written.add(target)
    return []


def _token_errors(source: JsonObject, path: FieldPath, source_path: FieldPath) -> list[FieldError]:
    """A token lives 10 minutes to 2^32 seconds (default an hour), at a safe path.

    Upstream reports the token's path at ``projected.path``, not at the source.
    """
    errors: list[FieldError] = []
    expiration = source.get("expirationSeconds")
    seconds = _DEFAULT_TOKEN_SECONDS if expiration is None else integer(expiration)
    at: FieldPath = (*source_path, "expirationSeconds")
    if seconds is not None and seconds < _MIN_TOKEN_SECONDS:
        detail = "may not specify a duration less than 10 minutes"
        errors.append(invalid(at, VOLUME_CODE, seconds, detail))
    if seconds is not None and seconds > _MAX_TOKEN_SECONDS:
        detail = "may not specify a duration larger than 2^32 seconds"
        errors.append(invalid(at, VOLUME_CODE, seconds, detail))
    target = text(source.get("path"))
    if not target:
        errors.append(required((*path, "path"), ITEMS_CODE))
    else:
        errors += local_non_reserved_path(target, (*path, "path"))
    return errors
