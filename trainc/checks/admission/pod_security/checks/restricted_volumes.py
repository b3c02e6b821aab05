"""``restrictedVolumes`` (restricted): only volume types that cannot reach the node.

A pod may use ``configMap``, ``csi``, ``downwardAPI``, ``emptyDir``, ``ephemeral``,
``persistentVolumeClaim``, ``projected``, ``secret`` and (see below) ``image`` volumes; any
other source, ``hostPath`` and ``nfs`` included, is refused and named. A volume with no
source the library knows is named ``unknown``; one with no source at all is not judged,
since the API server's defaulting has made it an ``emptyDir`` by the time admission runs
(``SetDefaults_Volume``). The check overrides ``hostPathVolumes``.
Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_restrictedVolumes.go

The ``image`` volume was allowed inside version 1.0 of the check by the 1.33 library
(https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/pod-security-admission/policy/check_restrictedVolumes.go
does not list it): on an older cluster it is an ``unknown`` volume type. With the
``ImageVolume`` gate at its default the API server drops image volumes before admission
until 1.35 (see :mod:`trainc.checks.workload.volumes`), so in practice the rule meets
them only where it allows them.
"""

from __future__ import annotations

from typing import Final

from trainc.checks.admission.pod_security.checks.host_path import CHECK_ID as HOST_PATH_ID
from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, join_quote, name, pluralize
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import objects
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject

_ALLOWED: Final = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
#: The release whose library first allowed ``image`` volumes.
IMAGE_SINCE: Final[KubeVersion] = (1, 33)

#: The restricted sources, in the order upstream tests them (the first set one names it).
_RESTRICTED: Final = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def _allowed(volume: JsonObject, release: KubeVersion) -> bool:
    allowed = _ALLOWED + (("image",) if release >= IMAGE_SINCE else ())
    if any(volume.get(source) is not None for source in allowed):
        return True
    # A volume that names no source is given an emptyDir by the API server's defaulting
    # before admission runs (SetDefaults_Volume).
    return not any(volume.get(source) is not None for source in (*_RESTRICTED, "image"))


def _type(volume: JsonObject) -> str:
    return next((key for key in _RESTRICTED if volume.get(key) is not None), "unknown")


def _since_1_0(pod: Pod) -> Finding | None:
    volumes: list[str] = []
    types: set[str] = set()
    for _, volume in objects(pod.spec.get("volumes")):
        if not _allowed(volume, pod.release):
            volumes.append(name(volume))
            types.add(_type(volume))
    if not volumes:
        return None
    return Finding(
        "restricted volume types",
        f"{pluralize('volume', 'volumes', len(volumes))} {join_quote(volumes)} "
        f"{pluralize('uses', 'use', len(volumes))} "
        f"{pluralize('restricted volume type', 'restricted volume types', len(types))} "
        f"{join_quote(sorted(types))}",
    )


CHECK = Check(
    "restrictedVolumes",
    Level.RESTRICTED,
    (VersionedRule((1, 0), _since_1_0, (HOST_PATH_ID,)),),
)
