"""Runtime patches: the changes a TrainJob makes to its runtime, one entry per manager.

They replaced the older pod overrides, labels and annotations in Trainer v2.2.0
(``docs/upstream.md``, "Runtime patches"); each applies as a Kubernetes strategic merge
patch of the runtime's JobSet
template. Pod-spec fields that would change the workload are immutable once created.
"""

from __future__ import annotations

from typing import Annotated

from trainc.model.k8s import (
    Affinity,
    ContainerSecurityContext,
    Env,
    LocalObjectReference,
    PodSchedulingGate,
    PodSecurityContext,
    Toleration,
    Volume,
    VolumeMount,
)
from trainc.model.markers import (
    ATOMIC,
    MaxItems,
    MaxLength,
    Minimum,
    MinLength,
    immutable,
    list_map,
)
from trainc.model.meta import EmbeddedObjectMeta
from trainc.model.scalars import Int64, Time
from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerPatch:
    """Changes to one container of the runtime's pod template."""

    name: Annotated[str, MinLength(1), MaxLength(253)]
    """Name of a container that exists in the runtime."""

    env: Env = None
    """Environment variables merged by name."""

    volume_mounts: Annotated[list[VolumeMount] | None, list_map("name"), MaxItems(128)] = None
    """Volume mounts merged into the container."""

    security_context: ContainerSecurityContext | None = None
    """Security context merged into the container's."""


_Containers = Annotated[
    list[ContainerPatch] | None,
    list_map("name"),
    MaxItems(64),
    immutable("trainjob.patch-containers-immutable"),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSpecPatch:
    """Changes to a pod template; scheduling fields may change while suspended."""

    service_account_name: Annotated[
        str | None, MaxLength(253), immutable("trainjob.patch-service-account-immutable")
    ] = None
    """Service account of the pods."""

    volumes: Annotated[
        list[Volume] | None,
        list_map("name"),
        MaxItems(128),
        immutable("trainjob.patch-volumes-immutable"),
    ] = None
    """Volumes merged by name."""

    init_containers: _Containers = None
    """Init containers patched by name."""

    containers: _Containers = None
    """Containers patched by name."""

    image_pull_secrets: Annotated[
        list[LocalObjectReference] | None,
        list_map("name"),
        MaxItems(64),
        immutable("trainjob.patch-image-pull-secrets-immutable"),
    ] = None
    """Image pull secrets merged by name."""

    security_context: Annotated[
        PodSecurityContext | None, immutable("trainjob.patch-security-context-immutable")
    ] = None
    """Pod security context merged into the runtime's."""

    node_selector: dict[str, str] | None = None
    """Node labels merged key by key."""

    affinity: Affinity | None = None
    """Affinity merged into the runtime's."""

    tolerations: Annotated[list[Toleration] | None, ATOMIC, MaxItems(128)] = None
    """Tolerations; replace the runtime's as a whole."""

    scheduling_gates: Annotated[list[PodSchedulingGate] | None, list_map("name"), MaxItems(16)] = (
        None
    )
    """Scheduling gates merged by name."""

    termination_grace_period_seconds: Annotated[
        Int64 | None, Minimum(0), immutable("trainjob.patch-grace-period-immutable")
    ] = None
    """Grace period of pod termination."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PodTemplateSpecPatch:
    """Changes to the pod template of a replicatedJob."""

    metadata: EmbeddedObjectMeta | None = None
    """Pod labels and annotations, merged key by key."""

    spec: PodSpecPatch | None = None
    """Pod spec changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobSpecPatch:
    """Changes to the Job spec of a replicatedJob."""

    template: PodTemplateSpecPatch | None = None
    """Pod template changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobTemplateSpecPatch:
    """Changes to the Job template of a replicatedJob."""

    metadata: EmbeddedObjectMeta | None = None
    """Job labels and annotations, merged key by key."""

    spec: JobSpecPatch | None = None
    """Job spec changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplicatedJobPatch:
    """Changes to one replicatedJob of the runtime, found by name."""

    name: Annotated[str, MinLength(1), MaxLength(253)]
    """Name of a replicatedJob that exists in the runtime."""

    template: JobTemplateSpecPatch | None = None
    """Job template changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobSetSpecPatch:
    """Changes to the runtime's JobSet spec."""

    replicated_jobs: Annotated[list[ReplicatedJobPatch] | None, list_map("name"), MaxItems(100)] = (
        None
    )
    """replicatedJob changes, merged by name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobSetTemplateSpecPatch:
    """Changes to the runtime's JobSet template."""

    metadata: EmbeddedObjectMeta | None = None
    """JobSet labels and annotations, merged key by key."""

    spec: JobSetSpecPatch | None = None
    """JobSet spec changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRuntimeSpecPatch:
    """Changes to the runtime spec."""

    template: JobSetTemplateSpecPatch | None = None
    """JobSet template changes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimePatch:
    """Changes one manager (a person, Kueue, a platform tool) makes to the runtime.

    Patches apply in list order as Kubernetes strategic merge patches; a later patch
    wins on conflicts.
    """

    manager: Annotated[
        str, MinLength(1), MaxLength(253), immutable("trainjob.patch-manager-immutable")
    ]
    """Who owns the patch, as a domain-prefixed path (``example.com/team``)."""

    time: Time | None = None
    """When the patch last changed; stamped by the API server, never needed in git."""

    training_runtime_spec: TrainingRuntimeSpecPatch | None = None
    """The changes."""
