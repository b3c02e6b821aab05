"""TrainingRuntime and ClusterTrainingRuntime: the blueprints platform admins publish.

Both kinds share one spec. Besides the upstream HEAD fields it carries the KEP-2899
``ttlSecondsAfterFinished`` and the three KEP-2899 rules that keep lifecycle settings out
of the embedded JobSet and Job templates, where they would act behind trainc's back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from trainc.model.jobset import JobSetSpec
from trainc.model.k8s import ObjectMeta
from trainc.model.markers import (
    LIST_SET,
    Default,
    MaxItems,
    MaxLength,
    Minimum,
    MinItems,
    MinLength,
    MinProperties,
    Rule,
    list_map,
    schema,
)
from trainc.model.meta import EmbeddedObjectMeta
from trainc.model.scalars import Int32


@dataclass(frozen=True, slots=True, kw_only=True)
class TorchEnvInjectionTarget:
    """Containers of one replicatedJob that also receive the ``PET_*`` variables."""

    job_name: Annotated[str, MinLength(1), MaxLength(253)]
    """replicatedJob whose containers are targeted."""

    container_names: Annotated[
        list[Annotated[str, MaxLength(63)]],
        LIST_SET,
        MinItems(1),
        MaxItems(8),
        Rule(
            rule="!self.exists(c, c == 'node')",
            message=(
                "containerNames must not include the main node container because PET_* "
                "envs are always injected into it"
            ),
            id="runtime.env-injection-not-node",
        ),
    ]
    """Containers or init containers that receive the variables."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TorchEnvInjection:
    """Extra containers that need the torch rendezvous environment."""

    targets: Annotated[list[TorchEnvInjectionTarget] | None, list_map("jobName"), MaxItems(16)] = (
        None
    )
    """Targets, one per replicatedJob."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TorchMLPolicySource:
    """Run the trainer with torchrun: ``PET_*`` rendezvous variables and port 29500."""

    env_injection: TorchEnvInjection | None = None
    """Containers besides ``node`` that receive the ``PET_*`` variables."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MPIMLPolicySource:
    """Run the trainer with MPI: hostfile, SSH keys and the launcher environment."""

    num_proc_per_node: Annotated[
        Int32 | None,
        Default(1),
        Rule(
            rule="self >= 1",
            message="NumProcPerNode in mpiPolicy must be >= 1",
            id="runtime.mpi-num-proc-per-node",
        ),
    ] = None
    """Slots per node in the hostfile."""

    mpi_implementation: Annotated[Literal["OpenMPI", ""] | None, Default("OpenMPI")] = None
    """MPI implementation; only OpenMPI is supported."""

    ssh_auth_mount_path: Annotated[str | None, Default("/root/.ssh"), MaxLength(4096)] = None
    """Where the SSH key Secret is mounted in the ``node`` containers."""

    run_launcher_as_node: Annotated[bool | None, Default(False)] = None  # noqa: FBT003 - a schema default, not a flag argument
    """The launcher also runs a training process and counts as a node."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JAXMLPolicySource:
    """Run the trainer with JAX's distributed runtime variables."""


@dataclass(frozen=True, slots=True, kw_only=True)
class XGBoostMLPolicySource:
    """Run the trainer with XGBoost's collective (Rabit) tracker variables."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FluxMLPolicySource:
    """Run the trainer inside a Flux Framework instance."""

    num_proc_per_node: Annotated[
        Int32 | None,
        Default(1),
        Rule(
            rule="self >= 1",
            message="NumProcPerNode in fluxPolicy must be >= 1",
            id="runtime.flux-num-proc-per-node",
        ),
    ] = None
    """Tasks per node."""


@schema(
    Rule(
        rule=(
            "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),"
            "has(self.flux)].filter(x, x).size() <= 1"
        ),
        message="Only one of the policy can be configured",
        id="runtime.one-ml-policy",
    )
)
@dataclass(frozen=True, slots=True, kw_only=True)
class MLPolicy:
    """Framework of the trainer; at most one framework may be set."""

    num_nodes: Int32 | None = None
    """Default number of training nodes; 1 when unset."""

    torch: TorchMLPolicySource | None = None
    """PyTorch distributed (torchrun)."""

    mpi: MPIMLPolicySource | None = None
    """MPI (OpenMPI, DeepSpeed, MLX)."""

    jax: JAXMLPolicySource | None = None
    """JAX distributed."""

    xgboost: XGBoostMLPolicySource | None = None
    """XGBoost collective."""

    flux: FluxMLPolicySource | None = None
    """Flux Framework."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CoschedulingPodGroupPolicySource:
    """Gang scheduling with the scheduler-plugins Coscheduling plugin."""

    schedule_timeout_seconds: Annotated[Int32 | None, Default(60)] = None
    """Seconds the scheduler waits for the whole gang before giving up."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoNetworkTopology:
    """Volcano network-topology-aware placement."""

    mode: Annotated[Literal["hard", "soft"] | None, Default("hard")] = None
    """Whether the tier limit is a requirement or a preference."""

    highest_tier_allowed: Annotated[int | None, Default(1)] = None
    """Highest network tier the gang may span."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoPodGroupPolicySource:
    """Gang scheduling with Volcano."""

    network_topology: VolcanoNetworkTopology | None = None
    """Network-topology constraints of the gang."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PodGroupPolicy:
    """Gang scheduling: all pods of a TrainJob start together or not at all."""

    coscheduling: CoschedulingPodGroupPolicySource | None = None
    """scheduler-plugins Coscheduling."""

    volcano: VolcanoPodGroupPolicySource | None = None
    """Volcano."""


@schema(MinProperties(1))
@dataclass(frozen=True, slots=True, kw_only=True)
class JobSetTemplateSpec:
    """Template of the JobSet each TrainJob on this runtime becomes."""

    metadata: EmbeddedObjectMeta | None = None
    """Labels and annotations of the JobSet."""

    spec: JobSetSpec | None = None
    """Spec of the JobSet."""


_NO_JOBSET_TTL = Rule(
    rule=(
        "!has(self.template) || !has(self.template.spec) || "
        "!has(self.template.spec.ttlSecondsAfterFinished)"
    ),
    message=(
        "template.spec.ttlSecondsAfterFinished must not be set: it would delete the JobSet "
        "behind the TrainJob; set spec.ttlSecondsAfterFinished on the runtime instead"
    ),
    id="runtime.no-jobset-ttl",
    field_path=".template.spec.ttlSecondsAfterFinished",
)

_NO_JOB_DEADLINE = Rule(
    rule=(
        "!has(self.template) || !has(self.template.spec) || "
        "!has(self.template.spec.replicatedJobs) || "
        "self.template.spec.replicatedJobs.all(rj, !has(rj.template.spec) || "
        "!has(rj.template.spec.activeDeadlineSeconds))"
    ),
    message=(
        "replicatedJobs must not set template.spec.activeDeadlineSeconds: a Job-level "
        "deadline ends pods behind the TrainJob deadline; set activeDeadlineSeconds on "
        "the TrainJob instead"
    ),
    id="runtime.no-job-deadline",
    field_path=".template.spec.replicatedJobs",
)

_NO_JOB_TTL = Rule(
    rule=(
        "!has(self.template) || !has(self.template.spec) || "
        "!has(self.template.spec.replicatedJobs) || "
        "self.template.spec.replicatedJobs.all(rj, !has(rj.template.spec) || "
        "!has(rj.template.spec.ttlSecondsAfterFinished))"
    ),
    message=(
        "replicatedJobs must not set template.spec.ttlSecondsAfterFinished: a Job-level "
        "TTL conflicts with the TrainJob lifecycle; set spec.ttlSecondsAfterFinished on "
        "the runtime instead"
    ),
    id="runtime.no-job-ttl",
    field_path=".template.spec.replicatedJobs",
)


@schema(MinProperties(1), _NO_JOBSET_TTL, _NO_JOB_DEADLINE, _NO_JOB_TTL)
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRuntimeSpec:
    """What a TrainJob on this runtime runs, and how it is scheduled and cleaned up."""

    ml_policy: MLPolicy | None = None
    """Framework and default node count."""

    pod_group_policy: PodGroupPolicy | None = None
    """Gang scheduling."""

    template: JobSetTemplateSpec | None = None
    """JobSet template the TrainJob is merged into."""

    ttl_seconds_after_finished: Annotated[Int32 | None, Minimum(0)] = None
    """Seconds after a TrainJob on this runtime finishes before it is deleted (KEP-2899).

    Unset keeps finished jobs; 0 deletes them as soon as they finish. trainc's sweeper
    enforces it, since no controller does once the Trainer controller is out of the loop.
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRuntime:
    """A runtime blueprint usable by TrainJobs in its own namespace."""

    api_version: str
    """``trainer.kubeflow.org/v1alpha1``."""

    kind: str
    """``TrainingRuntime``."""

    metadata: ObjectMeta
    """Name, namespace, labels and annotations of the runtime."""

    spec: TrainingRuntimeSpec
    """The blueprint."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterTrainingRuntime:
    """A runtime blueprint usable by TrainJobs in every namespace."""

    api_version: str
    """``trainer.kubeflow.org/v1alpha1``."""

    kind: str
    """``ClusterTrainingRuntime``."""

    metadata: ObjectMeta
    """Name, labels and annotations of the runtime."""

    spec: TrainingRuntimeSpec
    """The blueprint."""
