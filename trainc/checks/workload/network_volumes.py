"""Checks of the volume sources that attach network or cloud storage to a pod.

Reproduces the per-source validators of ``pkg/apis/core/validation`` for storage a pod
reaches over the network or a cloud API: ``validateNFSVolumeSource``,
``validateISCSIVolumeSource``, ``validateGlusterfsVolumeSource``,
``validateFlockerVolumeSource``, ``validateRBDVolumeSource``,
``validateCinderVolumeSource``, ``validateCephFSVolumeSource``,
``validateQuobyteVolumeSource``, ``validateFCVolumeSource``, ``validateFlexVolumeSource``,
``validateAzureFile``, ``validateAzureDisk``, ``validateGCEPersistentDiskVolumeSource``,
``validateAWSElasticBlockStoreVolumeSource``, ``validateVsphereVolumeSource``,
``validatePhotonPersistentDiskVolumeSource``, ``validatePortworxVolumeSource``,
``validateScaleIOVolumeSource`` and ``validateStorageOSVolumeSource``. Most are in-tree
plugins long removed from the kubelet, but the API server still validates them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from trainc.checks.workload.badvalues import go_string_slice, invalid_composite
from trainc.checks.workload.fielderrors import FieldError, Key, invalid, not_supported, required
from trainc.checks.workload.jsonfields import integer, present, strings, text
from trainc.checks.workload.predicates import range_error
from trainc.checks.workload.version import KubeVersion
from trainc.checks.workload.volume_sources import VOLUME_CODE
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.schema.metadata import dns1123_label_errors

_IQN = re.compile(r"iqn\.[0-9]{4}-[0-9]{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\t\n\f\r ]+)\Z")
_EUI = re.compile(r"\Aeui.[A-Za-z0-9]{16}\Z")
_NAA = re.compile(r"\Anaa.[A-Za-z0-9]{32}\Z")
_MAX_LUN = 255
_MAX_PARTITION = 255
_QUOBYTE_TENANT_MAX = 64
_AZURE_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
_AZURE_KINDS = ("Dedicated", "Managed", "Shared")
_AZURE_MANAGED_URI = (
    "/subscriptions/{sub-id}/resourcegroups/{group-name}"
    "/providers/microsoft.compute/disks/{disk-id}"
)
_AZURE_BLOB_URI = "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"


def _required_fields(*keys: str) -> Callable[[JsonObject, FieldPath], list[FieldError]]:
    """A validator that only requires each of ``keys`` to be a non-empty string or list."""

    def check(source: JsonObject, path: FieldPath) -> list[FieldError]:
        return [required((*path, key), VOLUME_CODE) for key in keys if not source.get(key)]

    return check


glusterfs_errors = _required_fields("endpoints", "path")
rbd_errors = _required_fields("monitors", "image")
cephfs_errors = _required_fields("monitors")
azure_file_errors = _required_fields("secretName", "shareName")
vsphere_errors = _required_fields("volumePath")
photon_errors = _required_fields("pdID")
portworx_errors = _required_fields("volumeID")
scale_io_errors = _required_fields("gateway", "system", "volumeName")


def nfs_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """An NFS server and an absolute export path."""
    errors = _required_fields("server", "path")(source, path)
    export = text(source.get("path")) or ""
    if not export.startswith("/"):
        errors.append(invalid((*path, "path"), VOLUME_CODE, export, "must be an absolute path"))
    return errors


def _iscsi_name_format_errors(name: str, path: FieldPath) -> list[FieldError]:
    """An iSCSI qualified name: ``iqn.``, ``eui.`` or ``naa.`` format."""
    if not name.startswith(("iqn", "eui", "naa")):
        detail = "must be valid format starting with iqn, eui, or naa"
        return [invalid(path, VOLUME_CODE, name, detail)]
    pattern = {"iqn": _IQN, "eui": _EUI, "naa": _NAA}[name[:3]]
    if pattern.search(name):
        return []
    return [invalid(path, VOLUME_CODE, name, "must be valid format")]


def iscsi_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """Target portal and IQN, a LUN in 0..255, a secret for CHAP, a valid initiator.

    The initiator name is reported at ``initiatorname``, lower-case, as upstream does.
    """
    errors = _required_fields("targetPortal")(source, path)
    iqn = text(source.get("iqn"))
    if not iqn:
        errors.append(required((*path, "iqn"), VOLUME_CODE))
    else:
        errors += _iscsi_name_format_errors(iqn, (*path, "iqn"))
    lun = integer(source.get("lun")) or 0
    if not 0 <= lun <= _MAX_LUN:
        errors.append(invalid((*path, "lun"), VOLUME_CODE, lun, range_error(0, _MAX_LUN)))
    chap = source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True
    if chap and source.get("secretRef") is None:
        errors.append(required((*path, "secretRef"), VOLUME_CODE))
    initiator = source.get("initiatorName")
    if isinstance(initiator, str):
        errors += _iscsi_name_format_errors(initiator, (*path, "initiatorname"))
    return errors


def flocker_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """Exactly one of a dataset name (without ``/``) and a dataset UUID."""
    name = text(source.get("datasetName")) or ""
    uuid = text(source.get("datasetUUID")) or ""
    errors = []
    if not name and not uuid:
        detail = "one of datasetName and datasetUUID is required"
        errors.append(required(path, VOLUME_CODE, detail))
    if name and uuid:
        detail = "datasetName and datasetUUID can not be specified simultaneously"
        errors.append(invalid(path, VOLUME_CODE, "resource", detail))
    if "/" in name:
        errors.append(invalid((*path, "datasetName"), VOLUME_CODE, name, "must not contain '/'"))
    return errors


def cinder_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A Cinder volume ID, and a name in a secret reference."""
    return _required_fields("volumeID")(source, path) + _secret_ref_errors(source, path)


def _secret_ref_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    secret_ref = source.get("secretRef")
    if isinstance(secret_ref, dict) and not text(secret_ref.get("name")):
        return [required((*path, "secretRef", "name"), VOLUME_CODE)]
    return []


def quobyte_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """``host:port`` registries, a tenant of at most 64 characters, a volume."""
    registry = text(source.get("registry")) or ""
    tenant = text(source.get("tenant")) or ""
    detail = "must be a host:port pair or multiple pairs separated by commas"
    errors = []
    if not registry:
        errors.append(required((*path, "registry"), VOLUME_CODE, detail))
    elif len(tenant.encode()) > _QUOBYTE_TENANT_MAX:
        tenant_detail = "must be a UUID and may not exceed a length of 64 characters"
        errors.append(required((*path, "tenant"), VOLUME_CODE, tenant_detail))
    else:
        errors += [
            invalid((*path, "registry"), VOLUME_CODE, registry, detail)
            for pair in registry.split(",")
            if not _is_host_port(pair)
        ]
    return errors + _required_fields("volume")(source, path)


def _is_host_port(address: str) -> bool:
    """Whether Go's ``net.SplitHostPort`` accepts ``address``."""
    colon = address.rfind(":")
    if colon < 0:
        return False
    start, after_host = 0, 0
    if address.startswith("["):
        end = address.find("]")
        if end < 0 or end + 1 != colon:
            return False
        start, after_host = 1, end + 1
    elif ":" in address[:colon]:
        return False
    return "[" not in address[start:] and "]" not in address[after_host:]


def fc_errors(source: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """Target WWNs (with a LUN in 0..255) or WWIDs, not both."""
    wwns = strings(source.get("targetWWNs"))
    wwids = as_list(source.get("wwids"))
    at: FieldPath = (*path, "targetWWNs")
    errors = []
    if not wwns and not wwids:
        detail = "must specify either targetWWNs or wwids, but not both"
        errors.append(required(at, VOLUME_CODE, detail))
    if wwns and wwids:
        shown: list[JsonValue] = list(wwns)
        detail = "targetWWNs and wwids can not be specified simultaneously"
        errors.append(
            invalid_composite(
                at,
                VOLUME_CODE,
                version=version,
                value=shown,
                go_syntax=go_string_slice(wwns),
                detail=detail,
            )
        )
    if wwns:
        lun = integer(source["lun"]) if present(source, "lun") else None
        if lun is None:
            detail = "lun is required if targetWWNs is specified"
            errors.append(required((*path, "lun"), VOLUME_CODE, detail))
        elif not 0 <= lun <= _MAX_LUN:
            errors.append(invalid((*path, "lun"), VOLUME_CODE, lun, range_error(0, _MAX_LUN)))
    return errors


def flex_volume_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A driver, and no options in the reserved ``kubernetes.io``/``k8s.io`` domains."""
    errors = _required_fields("driver")(source, path)
    for key in as_object(source.get("options")):
        domain = "." + key.partition("/")[0].lower()
        if domain.endswith((".kubernetes.io", ".k8s.io")):
            detail = "kubernetes.io and k8s.io namespaces are reserved"
            errors.append(invalid((*path, "options", Key(key)), VOLUME_CODE, key, detail))
    return errors


def azure_disk_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A disk name and URI, known caching mode and kind, a URI that fits the kind.

    ``cachingMode`` defaults to ``ReadWrite`` and ``kind`` to ``Shared``, whose URI must be
    a blob ``https://`` URL; only ``Managed`` disks take a ``/subscriptions/`` ID.
    """
    errors = _required_fields("diskName", "diskURI")(source, path)
    caching = text(source.get("cachingMode")) or "ReadWrite"
    kind = text(source.get("kind")) or "Shared"
    uri = text(source.get("diskURI")) or ""
    if caching not in _AZURE_CACHING_MODES:
        errors.append(
            not_supported((*path, "cachingMode"), VOLUME_CODE, caching, _AZURE_CACHING_MODES)
        )
    if kind not in _AZURE_KINDS:
        errors.append(not_supported((*path, "kind"), VOLUME_CODE, kind, _AZURE_KINDS))
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        errors.append(not_supported((*path, "diskURI"), VOLUME_CODE, uri, [_AZURE_MANAGED_URI]))
    if kind != "Managed" and not uri.startswith("https://"):
        errors.append(not_supported((*path, "diskURI"), VOLUME_CODE, uri, [_AZURE_BLOB_URI]))
    return errors


def _disk_errors(id_key: str) -> Callable[[JsonObject, FieldPath], list[FieldError]]:
    """A cloud disk: its ID, and a partition in range (upstream's message says 1..255)."""

    def check(source: JsonObject, path: FieldPath) -> list[FieldError]:
        errors = _required_fields(id_key)(source, path)
        partition = integer(source.get("partition")) or 0
        if not 0 <= partition <= _MAX_PARTITION:
            detail = range_error(1, _MAX_PARTITION)
            errors.append(invalid((*path, "partition"), VOLUME_CODE, partition, detail))
        return errors

    return check


gce_disk_errors = _disk_errors("pdName")
aws_disk_errors = _disk_errors("volumeID")


def storageos_errors(source: JsonObject, path: FieldPath) -> list[FieldError]:
    """A volume name and namespace that are DNS labels, a name in the secret reference."""
    name = text(source.get("volumeName")) or ""
    namespace = text(source.get("volumeNamespace")) or ""
    errors: list[FieldError] = []
    if not name:
        errors.append(required((*path, "volumeName"), VOLUME_CODE))
    for key, value in (("volumeName", name), ("volumeNamespace", namespace)):
        errors += [
            invalid((*path, key), VOLUME_CODE, value, msg)
            for msg in (dns1123_label_errors(value) if value else [])
        ]
    return errors + _secret_ref_errors(source, path)
