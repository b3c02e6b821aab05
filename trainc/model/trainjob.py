"""TrainJob: one training run, written by a data scientist against a runtime.

The shape follows upstream Trainer HEAD
(https://github.com/kubeflow/trainer/blob/master/pkg/apis/trainer/v1alpha1/trainjob_types.go): the
trainer, initializer, runtimeRef, activeDeadlineSeconds and managedBy fields are
immutable once created, and runtime patches replace the older pod overrides.
"""

from __future__ import annotations

from typing import Annotated

from trainc.model import patterns
from trainc.model.k8s import Env, LocalObjectReference, ObjectMeta, ResourceRequirements
from trainc.model.labels import DEFAULT_MANAGED_BY
from trainc.model.markers import (
    ATOMIC,
    Default,
    MaxItems,
    MaxLength,
    Minimum,
    MinLength,
    Rule,
    immutable,
    list_map,
    schema,
)
from trainc.model.patches import RuntimePatch
from trainc.model.scalars import Int32, Int64
from trainc.model.status import TrainJobStatus
from trainc.records import dataclass

_STORAGE_URI = Rule(
    rule=f"self == '' || self.matches('{patterns.STORAGE_URI.anchored}')",
    message="storageUri may be empty, or it must be a valid URI (scheme://...)",
    id="trainjob.storage-uri",
)


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


@schema(
    Rule(
        rule=f"self.metadata.name.matches('{patterns.DNS1035_LABEL.anchored}')",
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
