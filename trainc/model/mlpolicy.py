"""A runtime's framework (mlPolicy) and gang-scheduling (podGroupPolicy) settings.

Each framework source selects one Trainer plugin (torch, MPI, JAX, XGBoost, Flux); at
most one may be set. Defaults are upstream's (``docs/upstream.md``, "Defaults the builder
depends on"; https://github.com/kubeflow/trainer/blob/master/pkg/apis/trainer/v1alpha1/trainingruntime_types.go).
"""

from __future__ import annotations

from typing import Annotated, Literal

from trainc.model.markers import (
    LIST_SET,
    Default,
    MaxItems,
    MaxLength,
    MinItems,
    MinLength,
    Rule,
    list_map,
    schema,
)
from trainc.model.scalars import Int32
from trainc.records import dataclass


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
