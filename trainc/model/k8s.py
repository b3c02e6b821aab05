"""Core Kubernetes types the Trainer and JobSet APIs embed, by OpenAPI definition name.

Their schemas come from the Kubernetes OpenAPI definitions shipped by kubernetes-validate
(pinned in ``trainc.crdgen``); in Python the values stay plain JSON objects.
"""

from __future__ import annotations

from typing import Annotated, TypeAlias

from trainc.model.json import JsonObject
from trainc.model.markers import K8s, MaxItems, list_map

_CORE = "io.k8s.api.core.v1."

Affinity: TypeAlias = Annotated[JsonObject, K8s(_CORE + "Affinity")]
Condition: TypeAlias = Annotated[JsonObject, K8s("io.k8s.apimachinery.pkg.apis.meta.v1.Condition")]
ContainerSecurityContext: TypeAlias = Annotated[JsonObject, K8s(_CORE + "SecurityContext")]
EnvVar: TypeAlias = Annotated[JsonObject, K8s(_CORE + "EnvVar")]
JobTemplateSpec: TypeAlias = Annotated[JsonObject, K8s("io.k8s.api.batch.v1.JobTemplateSpec")]
LocalObjectReference: TypeAlias = Annotated[JsonObject, K8s(_CORE + "LocalObjectReference")]
ObjectMeta: TypeAlias = Annotated[
    JsonObject, K8s("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
]
PersistentVolumeClaim: TypeAlias = Annotated[JsonObject, K8s(_CORE + "PersistentVolumeClaim")]
PodSchedulingGate: TypeAlias = Annotated[JsonObject, K8s(_CORE + "PodSchedulingGate")]
PodSecurityContext: TypeAlias = Annotated[JsonObject, K8s(_CORE + "PodSecurityContext")]
ResourceRequirements: TypeAlias = Annotated[JsonObject, K8s(_CORE + "ResourceRequirements")]
Toleration: TypeAlias = Annotated[JsonObject, K8s(_CORE + "Toleration")]
Volume: TypeAlias = Annotated[JsonObject, K8s(_CORE + "Volume")]
VolumeMount: TypeAlias = Annotated[JsonObject, K8s(_CORE + "VolumeMount")]

Env: TypeAlias = Annotated[list[EnvVar] | None, list_map("name"), MaxItems(128)]
"""Environment variables, merged by name, as Trainer's APIs declare them."""
