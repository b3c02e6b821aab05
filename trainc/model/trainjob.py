"""TrainJob: one training run, written by a data scientist against a runtime.

The shape follows upstream Trainer HEAD (``upstream-semantics.md`` §1.2-§1.4): the
trainer, initializer, runtimeRef, activeDeadlineSeconds and managedBy fields are
immutable once created, and runtime patches replace the older pod overrides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from trainc.model.k8s import (
    Affinity,
    Condition,
    ContainerSecurityContext,
    EnvVar,
    LocalObjectReference,
    ObjectMeta,
    PodSchedulingGate,
    PodSecurityContext,
    ResourceRequirements,
    Toleration,
    Volume,
    VolumeMount,
)
from trainc.model.labels import DEFAULT_MANAGED_BY
from trainc.model.markers import (
    ATOMIC,
    Default,
    Maximum,
    MaxItems,
    MaxLength,
    Minimum,
    MinLength,
    MinProperties,
    Rule,
    immutable,
    list_map,
    schema,
)
from trainc.model.meta import EmbeddedObjectMeta
from trainc.model.scalars import Int32, Int64, Time

_STORAGE_URI = Rule(
    rule="self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
    message="storageUri may be empty, or it must be a valid URI (scheme://...)",
    id="trainjob.storage-uri",
)

Env = Annotated[list[EnvVar] | None, list_map("name"), MaxItems(128)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeRef:
    """The runtime a TrainJob runs on."""

    name: Annotated[str, MinLength(1), MaxLength(253)]
    """Name of the runtime object."""

    api_group: Annotated[str | None, Default("trainer.kubeflow.org"), MaxLength(253)] = None
    """API group of the runtime; only ``trainer.kubeflow.org`` is supported."""

    kind: Annotated[str | None, Default("ClusterTrainingRuntime"), MaxLength(253)] = None
    """``ClusterTrainingRuntime``, or ``TrainingRuntime`` in the TrainJob's namespace."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InitializerSource:
    """Where an initializer step fetches from, and with which credentials."""

    storage_uri: Annotated[str | None, MaxLength(2048), _STORAGE_URI] = None
    """URI of the data, e.g. ``hf://org/name`` or ``s3://bucket/key``; passed as STORAGE_URI."""

    env: Env = None
    """Extra environment of the initializer container."""

    secret_ref: LocalObjectReference | None = None
    """Secret whose keys become environment variables of the initializer container."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Initializer:
    """Steps that prepare the dataset and the model before training starts."""

    dataset: InitializerSource | None = None
    """Configures the runtime's ``dataset-initializer`` step."""

    model: InitializerSource | None = None
    """Configures the runtime's ``model-initializer`` step."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Trainer:
    """Overrides of the runtime's trainer step (container ``node``)."""

    image: Annotated[str | None, MaxLength(500)] = None
    """Container image of the trainer."""

    command: Annotated[list[Annotated[str, MaxLength(1048576)]] | None, ATOMIC, MaxItems(128)] = (
        None
    )
    """Entrypoint of the trainer container."""

    args: Annotated[list[Annotated[str, MaxLength(1048576)]] | None, ATOMIC, MaxItems(128)] = None
    """Arguments of the trainer container."""

    env: Env = None
    """Environment of the trainer container, merged over the runtime's."""

    num_nodes: Annotated[Int32 | None, Minimum(0)] = None
    """Number of training nodes; overrides the runtime's mlPolicy.numNodes."""

    resources_per_node: ResourceRequirements | None = None
    """Resources of each node, merged key by key over the runtime's."""

    num_proc_per_node: Annotated[
        Int32 | None,
        Rule(
            rule="self >= 1",
            message="numProcPerNode must be greater than or equal to 1",
            id="trainjob.num-proc-per-node",
        ),
    ] = None
    """Processes per node; derived from the node's GPUs or CPUs when unset."""


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


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainJobSpec:
    """What to train, on which runtime, and for how long."""

    runtime_ref: Annotated[RuntimeRef, immutable("trainjob.runtime-ref-immutable")]
    """The runtime blueprint."""

    initializer: Annotated[Initializer | None, immutable("trainjob.initializer-immutable")] = None
    """Dataset and model initializer settings."""

    trainer: Annotated[Trainer | None, immutable("trainjob.trainer-immutable")] = None
    """Trainer overrides."""

    runtime_patches: Annotated[list[RuntimePatch] | None, list_map("manager"), MaxItems(16)] = None
    """Changes to the runtime for this job, one entry per manager."""

    suspend: Annotated[bool | None, Default(False)] = None  # noqa: FBT003 - a schema default, not a flag argument
    """Create the job suspended; no pods run and no deadline counts until it resumes."""

    active_deadline_seconds: Annotated[
        Int64 | None, Minimum(1), immutable("trainjob.deadline-immutable")
    ] = None
    """Seconds the job may run, counted from creation or its last resume (KEP-2899).

    When the time is up the job fails with reason DeadlineExceeded.
    """

    managed_by: Annotated[
        str | None,
        Default(DEFAULT_MANAGED_BY),
        MaxLength(253),
        Rule(
            rule=(
                "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']"
            ),
            message=(
                "ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
                "kueue.x-k8s.io/multikueue if set"
            ),
            id="trainjob.managed-by",
        ),
        immutable("trainjob.managed-by-immutable"),
    ] = None
    """Controller that reconciles the job (the Trainer controller, or MultiKueue)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobStatus:
    """Pod counts of one replicatedJob."""

    name: Annotated[str, MinLength(1), MaxLength(253)]
    """Name of the replicatedJob."""

    ready: Annotated[Int32, Minimum(0)]
    """Ready pods."""

    succeeded: Annotated[Int32, Minimum(0)]
    """Succeeded pods."""

    failed: Annotated[Int32, Minimum(0)]
    """Failed pods."""

    active: Annotated[Int32, Minimum(0)]
    """Active pods."""

    suspended: Annotated[Int32, Minimum(0)]
    """Suspended Jobs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Metric:
    """One training metric reported by the trainer."""

    name: Annotated[str, MinLength(1), MaxLength(64)]
    """Metric name."""

    value: Annotated[str, MinLength(1), MaxLength(64)]
    """Metric value, as text."""


@schema(
    Rule(
        rule="has(self.lastUpdatedTime)",
        message="lastUpdatedTime is required when trainerStatus is present",
        id="trainjob.trainer-status-updated",
    )
)
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainerStatus:
    """Progress the trainer reports about itself."""

    progress_percentage: Annotated[Int32 | None, Minimum(0), Maximum(100)] = None
    """Completion, in percent."""

    estimated_remaining_seconds: Annotated[Int32 | None, Minimum(0)] = None
    """Estimated seconds until completion."""

    metrics: Annotated[list[Metric] | None, ATOMIC, MaxItems(256)] = None
    """Latest metrics."""

    last_updated_time: Time | None = None
    """When the trainer last reported."""


@schema(MinProperties(1))
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainJobStatus:
    """Observed state; written by controllers, never by git."""

    conditions: Annotated[list[Condition] | None, list_map("type"), MaxItems(8)] = None
    """Suspended, Complete and Failed conditions."""

    jobs_status: Annotated[list[JobStatus] | None, list_map("name"), MaxItems(100)] = None
    """Pod counts per replicatedJob."""

    trainer_status: TrainerStatus | None = None
    """Progress reported by the trainer."""


@schema(
    Rule(
        rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        message="metadata.name must match RFC 1035 DNS label format",
        id="trainjob.name-format",
        field_path=".metadata.name",
    ),
    Rule(
        rule="size(self.metadata.name) <= 63",
        message="metadata.name must be no more than 63 characters",
        id="trainjob.name-length",
        field_path=".metadata.name",
    ),
)
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainJob:
    """One training run."""

    api_version: str
    """``trainer.kubeflow.org/v1alpha1``."""

    kind: str
    """``TrainJob``."""

    metadata: ObjectMeta
    """Name (an RFC 1035 label, at most 63 characters), namespace, labels, annotations."""

    spec: TrainJobSpec
    """The desired run."""

    status: TrainJobStatus | None = None
    """The observed run."""
