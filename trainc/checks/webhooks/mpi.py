"""MPI plugin rules: a supported implementation, and launcher plus node when the launcher trains.

Reproduces the MPI plugin's ``Validate`` (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/mpi/mpi.go):
with ``runLauncherAsNode``
and a TrainJob asking for two or more nodes, the runtime needs replicatedJobs named
``launcher`` and ``node`` (the launcher is one node, ``node`` holds the rest); and only
OpenMPI is implemented, anything else fails every TrainJob when its JobSet is built.
"""

from __future__ import annotations

from trainc.checks.webhooks.findings import describe, listing
from trainc.checks.webhooks.template import int_value, replicated_jobs
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject, as_object, get_path
from trainc.model.labels import LAUNCHER_JOB, NODE_JOB

XOBJ_MPI_IMPLEMENTATION = Rule(
    "xobj.mpi-implementation",
    Severity.ERROR,
    "the MPI implementation is not supported",
)

XOBJ_MPI_LAUNCHER_NODE = Rule(
    "xobj.mpi-launcher-node",
    Severity.ERROR,
    "an MPI runtime with runLauncherAsNode lacks launcher or node",
)


_MPI: FieldPath = ("spec", "mlPolicy", "mpi")
_OPENMPI = "OpenMPI"


def _mpi_policy(runtime: DefaultedObject) -> JsonObject | None:
    policy = get_path(runtime.data, _MPI)
    return policy if isinstance(policy, dict) else None


def check_mpi_launcher_node(
    trainjob: DefaultedObject, runtime: DefaultedObject
) -> list[Diagnostic]:
    """Two or more nodes with ``runLauncherAsNode`` need both ``launcher`` and ``node`` jobs."""
    policy = _mpi_policy(runtime)
    trainer = get_path(trainjob.data, ("spec", "trainer"))
    if (
        policy is None
        or policy.get("runLauncherAsNode") is not True
        or not isinstance(trainer, dict)
    ):
        return []
    num_nodes = int_value(trainer.get("numNodes"))
    names = [name for rjob in replicated_jobs(runtime.data) if (name := rjob.name)]
    missing = [job for job in (LAUNCHER_JOB, NODE_JOB) if job not in names]
    if num_nodes is None or num_nodes < 2 or not missing:  # noqa: PLR2004 - upstream's bound
        return []
    return [
        trainjob.finding(
            ("spec", "trainer", "numNodes"),
            XOBJ_MPI_LAUNCHER_NODE.code,
            "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
            f"either launcher and node: {describe(runtime)} has replicatedJobs "
            f"{listing(names)}, without {listing(missing)}",
            hint=f"set trainer.numNodes: 1, or use a runtime with replicatedJobs "
            f"{LAUNCHER_JOB!r} and {NODE_JOB!r}",
        )
    ]


def check_mpi_implementation(runtime: DefaultedObject) -> list[Diagnostic]:
    """``mpiImplementation`` must be OpenMPI (the CRD also admits the empty string)."""
    implementation = as_object(_mpi_policy(runtime)).get("mpiImplementation")
    if not isinstance(implementation, str) or implementation == _OPENMPI:
        return []
    return [
        runtime.finding(
            (*_MPI, "mpiImplementation"),
            XOBJ_MPI_IMPLEMENTATION.code,
            f"MPI implementation for {implementation or repr('')} doesn't supported: "
            f"Trainer's MPI plugin only implements {_OPENMPI}, so every TrainJob on this "
            "runtime fails to build",
            hint=f"set mpiImplementation: {_OPENMPI}, or delete it ({_OPENMPI} is the default)",
        )
    ]
