"""The API server's rules on a pod's ``volumes`` list.

Reproduces ``ValidateVolumes`` and ``validateVolumeSource`` of ``pkg/apis/core/validation``:
every volume has a unique DNS-1123 label for a name and exactly one source, and each
source passes its own validator (:mod:`~trainc.checks.workload.volume_sources`,
:mod:`~trainc.checks.workload.network_volumes`,
:mod:`~trainc.checks.workload.projected`, :mod:`~trainc.checks.workload.ephemeral`).
A volume the API server refuses fails the Job (or every one of its Pods), however
valid the runtime looked to its CRD schema.

Volumes are judged after defaulting: a volume that names no source becomes an
``emptyDir`` (``SetDefaults_Volume``), so upstream's "must specify a volume type" cannot
occur. Sources are tried in upstream's order; the first one found is validated and every
other one is refused, at the path upstream uses (its typos ``downwarAPI`` and
``cephFS``, and ``gcePersistentDisk`` validated as ``persistentDisk``, included).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from trainc.checks.workload import network_volumes as net
from trainc.checks.workload import volume_sources as local
from trainc.checks.workload.ephemeral import ephemeral_errors
from trainc.checks.workload.fielderrors import FieldError, duplicate, forbidden, invalid, required
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.projected import projected_errors
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.checks.workload.volume_sources import SOURCE_CODE, VOLUME_CODE
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object
from trainc.schema.metadata import dns1123_label_errors

POD_VOLUME_NAME = Rule(
    "pod.volume-name",
    Severity.ERROR,
    "a volume name is missing, no DNS label, or used twice",
    doc=RuleDoc(
        what="a volume name that is missing, not a DNS-1123 label, or used twice",
        source="`ValidateVolumes`",
        versions="all",
    ),
)


#: Volume names: present, DNS-1123 labels, unique.
NAME_CODE = POD_VOLUME_NAME.code

#: ``image`` volumes are kept; while it is off the API server drops them (and their mounts).
IMAGE_VOLUME = Gate("ImageVolume", (1, 35))

SourceCheck = Callable[[JsonObject, FieldPath], list[FieldError]]

_ISCSI_NAME_MAX = 64


#: Where upstream refuses (or validates) a source under another name than its key.
_REFUSED_AT = {"cephfs": "cephFS", "downwardAPI": "downwarAPI"}
_CHECKED_AT = {"gcePersistentDisk": "persistentDisk"}


def _sources(version: KubeVersion) -> tuple[tuple[str, SourceCheck], ...]:
    """Each source's key and validator, in the order ``validateVolumeSource`` tries them."""
    return (
        ("emptyDir", local.empty_dir_errors),
        ("hostPath", local.host_path_errors),
        ("gitRepo", local.git_repo_errors),
        ("gcePersistentDisk", net.gce_disk_errors),
        ("awsElasticBlockStore", net.aws_disk_errors),
        ("secret", local.secret_errors),
        ("nfs", net.nfs_errors),
        ("iscsi", net.iscsi_errors),
        ("glusterfs", net.glusterfs_errors),
        ("flocker", net.flocker_errors),
        ("persistentVolumeClaim", local.claim_errors),
        ("rbd", net.rbd_errors),
        ("cinder", net.cinder_errors),
        ("cephfs", net.cephfs_errors),
        ("quobyte", net.quobyte_errors),
        ("downwardAPI", local.downward_api_errors),
        ("fc", partial(net.fc_errors, version=version)),
        ("flexVolume", net.flex_volume_errors),
        ("configMap", local.config_map_errors),
        ("azureFile", net.azure_file_errors),
        ("vsphereVolume", net.vsphere_errors),
        ("photonPersistentDisk", net.photon_errors),
        ("portworxVolume", net.portworx_errors),
        ("azureDisk", net.azure_disk_errors),
        ("storageos", net.storageos_errors),
        ("projected", projected_errors),
        ("scaleIO", net.scale_io_errors),
        ("csi", local.csi_errors),
        ("ephemeral", partial(ephemeral_errors, version=version)),
        ("image", local.image_errors),
    )


def check_volumes(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> tuple[list[FieldError], dict[str, JsonObject]]:
    """Errors, and the valid volumes by name (for the containers' volumeMounts check).

    With ``ImageVolume`` off, an ``image`` volume is dropped by the API server before it
    validates: it is not checked, but stays in the returned map so that the mounts the
    API server drops with it are not reported either.
    """
    errors: list[FieldError] = []
    valid: dict[str, JsonObject] = {}
    dropped: dict[str, JsonObject] = {}
    sources = _sources(version)
    for index, item in enumerate(as_list(pod_spec.get("volumes"))):
        volume = as_object(item)
        name = text(volume.get("name")) or ""
        if is_dropped(volume, version):
            dropped.setdefault(name, volume)
            continue
        at: FieldPath = (*path, "volumes", index)
        found = _source_errors(volume, name, at, sources) + _name_errors(name, at, valid)
        if found:
            errors += found
        else:
            valid[name] = volume
    return errors, dropped | valid


def is_dropped(volume: JsonObject, version: KubeVersion) -> bool:
    """Whether the API server drops ``volume`` before it validates the pod: an ``image``
    volume while ``ImageVolume`` is off. Its mounts go with it, so the container rules
    ask this too."""
    return isinstance(volume.get("image"), dict) and not IMAGE_VOLUME.enabled(version)


def _source_errors(
    volume: JsonObject,
    name: str,
    path: FieldPath,
    sources: tuple[tuple[str, SourceCheck], ...],
) -> list[FieldError]:
    """``validateVolumeSource``: the first source validated, any other one refused."""
    errors: list[FieldError] = []
    validated = False
    for key, check in sources:
        source = volume.get(key)
        if not isinstance(source, dict):
            continue
        if validated:
            detail = "may not specify more than 1 volume type"
            errors.append(forbidden((*path, _REFUSED_AT.get(key, key)), SOURCE_CODE, detail))
        else:
            validated = True
            errors += check(source, (*path, _CHECKED_AT.get(key, key)))
        if key == "iscsi":
            errors += _iscsi_name_errors(source, name, path)
    return errors


def _iscsi_name_errors(source: JsonObject, name: str, path: FieldPath) -> list[FieldError]:
    """With an initiator name, ``<volume name>:<target portal>`` must fit in 64 bytes."""
    portal = text(source.get("targetPortal")) or ""
    if source.get("initiatorName") is None or len(f"{name}:{portal}".encode()) <= _ISCSI_NAME_MAX:
        return []
    detail = (
        "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters "
        "if iscsi.initiatorName is specified."
    )
    return [invalid((*path, "name"), VOLUME_CODE, name, detail)]


def _name_errors(name: str, path: FieldPath, valid: dict[str, JsonObject]) -> list[FieldError]:
    """A DNS-1123 label, not taken by an earlier valid volume."""
    at: FieldPath = (*path, "name")
    if not name:
        errors = [required(at, NAME_CODE)]
    else:
        errors = [invalid(at, NAME_CODE, name, msg) for msg in dns1123_label_errors(name)]
    if name in valid:
        errors.append(duplicate(at, NAME_CODE, name))
    return errors
