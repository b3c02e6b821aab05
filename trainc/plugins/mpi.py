"""MPI: pod counts, SSH and hostfile mounts, and the OpenMPI launcher environment.

Reproduces Trainer's MPI plugin (vectors T11, T12, T15 of ``docs/upstream.md``;
https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/mpi/mpi.go):
with ``runLauncherAsNode`` the launcher is one of the nodes, so ``node`` runs
``max(numNodes-1, 1)`` pods; slots per node are ``trainer.numProcPerNode``, else the
runtime's value, where a runtime value of 1 means the GPUs per node if there are several; the
launcher's ``node`` container gets the hostfile and the ``OMPI_MCA_*`` variables; the
hostfile ConfigMap ``<tj>-mpi-hostfile`` (the build part) lists one
``<endpoint> slots=<n>`` per node pod (the launcher too when it runs as a node), in
completion-index order, PodSets in runtime order, which makes it deterministic.
Validation already rejected every implementation but OpenMPI (``xobj.mpi-implementation``),
so only OpenMPI is resolved.

**SSH keys: trainc never generates them.** Upstream creates a Secret
``<tj>-mpi-ssh-auth`` holding a freshly generated private key for every TrainJob. A
GitOps compiler cannot do that: the output would differ on every compile, and a private
key would be committed to Git, where every reader of the repository could use it.
Instead the ``mpi-ssh-auth`` volume references a ``kubernetes.io/ssh-auth`` Secret
(keys ``ssh-privatekey`` and ``ssh-publickey``) provisioned out of band, e.g. with
sealed-secrets or External Secrets, in every namespace that runs MPI jobs. The runtime
annotation ``trainc.dev/mpi-ssh-auth-secret`` names it for one runtime, and trainc.yaml's
``compile.mpi.sshAuthSecret`` for all; the annotation wins. With neither, compiling fails
with ``compile.mpi-ssh-secret``. The price is that jobs sharing the Secret share one key
pair, so a launcher could reach another such job's workers in the namespace; a runtime
annotation narrows the sharing, and the key rotates without recompiling anything.

Validate, as the MPI plugin's ``Validate``: ``trainer.env`` leaves the ``OMPI_MCA_*``
variables to the plugin; with ``runLauncherAsNode``
and a TrainJob asking for two or more nodes, the runtime needs replicatedJobs named
``launcher`` and ``node`` (the launcher is one node, ``node`` holds the rest); and only
OpenMPI is implemented, anything else fails every TrainJob when its JobSet is built.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.checks.shared.findings import describe, listing
from trainc.checks.shared.template import int_value, replicated_jobs
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject, as_object, get_path
from trainc.model.labels import (
    LAUNCHER_JOB,
    MPI_SSH_AUTH_SECRET_ANNOTATION,
    NODE_CONTAINER,
    NODE_JOB,
)
from trainc.model.mlpolicy import MPIMLPolicySource
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.model.trainjob import TrainJobSpec
from trainc.plugins.shared.objects import manifest
from trainc.plugins.shared.reserved_env import check_reserved_env, torch_or_mpi_message
from trainc.records import dataclass
from trainc.resolve.context import Resolution, container, pod_spec
from trainc.resolve.edits import env_value, upsert_env, upsert_volume_mounts, upsert_volumes
from trainc.resolve.endpoints import endpoints
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.secrets import ProvisionedSecret
from trainc.resolve.trainer import gpus_per_node

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

COMPILE_MPI_SSH_SECRET = Rule(
    "compile.mpi-ssh-secret",
    Severity.ERROR,
    "an MPI runtime names no valid SSH Secret, which trainc never generates",
    compiled=True,
)

_SSH_VOLUME = "mpi-ssh-auth"
_HOSTFILE_VOLUME = "mpi-hostfile"
_HOSTFILE_DIR = "/etc/mpi"
HOSTFILE_KEY = "hostfile"
_DEFAULT_SSH_MOUNT = "/root/.ssh"
# File modes as upstream sets them (decimal in the API): 0400 for the directory,
# 0640 for the private key, 0644 for the public key and authorized_keys, 0444 for the hostfile.
_SECRET_MODE, _PRIVATE_MODE, _PUBLIC_MODE, _HOSTFILE_MODE = 0o400, 0o640, 0o644, 0o444

SSH_SECRET = ProvisionedSecret(
    annotation=MPI_SSH_AUTH_SECRET_ANNOTATION,
    setting="compile.mpi.sshAuthSecret",
    code=COMPILE_MPI_SSH_SECRET.code,
    policy=("spec", "mlPolicy", "mpi"),
    contents=(
        "a kubernetes.io/ssh-auth Secret with keys ssh-privatekey and ssh-publickey "
        "for the launcher to reach the nodes over SSH"
    ),
    generated="a fresh random SSH key pair",
    provision=(
        "create it with `ssh-keygen -t ed25519 -N '' -f key` and `kubectl create secret "
        "generic <name> --type=kubernetes.io/ssh-auth --from-file=ssh-privatekey=key "
        "--from-file=ssh-publickey=key.pub` in each namespace, or with sealed-secrets or "
        "External Secrets"
    ),
)


@dataclass(frozen=True, slots=True)
class MPIPlugin:
    """Trainer's MPI plugin, without generated SSH keys; a no-op unless ``mlPolicy.mpi`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "mpi"

    def validate_used_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """The runtime's MPI implementation is one Trainer supports."""
        return check_mpi_implementation(runtime)

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """``trainer.env`` leaves the variables MPI computes to the plugin; the launcher
        runs as a node only where the TrainJob allows it."""
        return [
            *check_reserved_env(
                trainjob, runtime, "mpi", MPI_RESERVED_ENV, torch_or_mpi_message("mpi")
            ),
            *check_mpi_launcher_node(trainjob, runtime),
        ]

    def enforce_ml_policy(self, context: Resolution) -> None:
        """Set the ``node`` count and mount the SSH Secret and the hostfile."""
        policy = _policy(context)
        if policy is None:
            return
        _set_node_count(context, policy)
        secret = SSH_SECRET.name(context, context.settings.mpi_ssh_secret)
        # Upstream's per-job name stands in when none is configured: validation fails on
        # the finding anyway, and the JobSet stays a valid object meanwhile.
        origin = context.derived("mpi", "SSH and hostfile mounts", _policy_origin(context))
        mount_path = policy.ssh_auth_mount_path or _DEFAULT_SSH_MOUNT
        for name in (NODE_JOB, LAUNCHER_JOB):
            job = context.replicated_job(name)
            if job is None:
                continue
            pod = pod_spec(job)
            ssh_volume = _ssh_volume(secret or f"{context.job.name}-mpi-ssh-auth")
            upsert_volumes(context.trace, pod, [ssh_volume], origin)
            main = container(pod, NODE_CONTAINER)
            if main is not None:
                mount: JsonObject = {"name": _SSH_VOLUME, "mountPath": mount_path}
                upsert_volume_mounts(context.trace, main, [mount], origin)
            if name == LAUNCHER_JOB:
                _configure_launcher(context, pod, main, origin)

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The hostfile ConfigMap; none unless the runtime is an MPI runtime."""
        policy = policy_of(job.runtime_spec)
        if policy is None:
            return []
        count = slots(job.spec, job.template, policy)
        launcher_is_node = policy.run_launcher_as_node is True
        lines = [
            f"{endpoint} slots={count}\n"
            for pod_set in job.pod_sets
            if pod_set.name == NODE_JOB or (launcher_is_node and pod_set.name == LAUNCHER_JOB)
            for endpoint in endpoints(job.name, job.jobset_spec, pod_set)
        ]
        return [
            manifest(
                "v1",
                "ConfigMap",
                hostfile_name(job.name),
                job.namespace,
                data={HOSTFILE_KEY: "".join(lines)},
            )
        ]


def _policy_origin(context: Resolution) -> Written:
    return context.runtime_at("spec", "mlPolicy", "mpi")


def policy_of(runtime_spec: TrainingRuntimeSpec) -> MPIMLPolicySource | None:
    """The runtime's ``mlPolicy.mpi``, None when the runtime is not an MPI runtime."""
    ml_policy = runtime_spec.ml_policy
    return ml_policy.mpi if ml_policy is not None else None


def _policy(context: Resolution) -> MPIMLPolicySource | None:
    return policy_of(context.job.runtime_spec)


def _set_node_count(context: Resolution, policy: MPIMLPolicySource) -> None:
    """``trainer.numNodes`` pods for ``node``, one fewer (at least 1) when the launcher trains.

    A trainer-labelled launcher keeps ``mlPolicy.numNodes`` from its PodSet
    (``docs/upstream.md``, "resourcesPerNode and counts").
    """
    trainer = context.job.spec.trainer
    node = context.pod_set(NODE_JOB)
    if trainer is None or trainer.num_nodes is None or node is None:
        return
    if policy.run_launcher_as_node is True:
        node.count = max(trainer.num_nodes - 1, 1)
    else:
        node.count = trainer.num_nodes
    node.count_origin = context.trainjob_at("spec", "trainer", "numNodes")


def slots(spec: TrainJobSpec, template: JsonObject, policy: MPIMLPolicySource) -> int:
    """Processes per node: the TrainJob's, else the runtime's, else GPUs when the runtime says 1.

    ``template`` is the joined JobSet spec, before the plugins (see
    :func:`~trainc.resolve.trainer.node_resources`).
    """
    trainer = spec.trainer
    if trainer is not None and trainer.num_proc_per_node is not None:
        return trainer.num_proc_per_node
    count = policy.num_proc_per_node if policy.num_proc_per_node is not None else 1
    gpus = gpus_per_node(spec, template)
    return gpus if count == 1 and gpus > 1 else count


def _configure_launcher(
    context: Resolution, pod: JsonObject, main: JsonObject | None, origin: Origin
) -> None:
    """The hostfile volume, its mount at /etc/mpi and the OpenMPI variables, on the launcher."""
    policy = _policy(context)
    job = context.job
    count = slots(job.spec, job.template, policy) if policy is not None else 1
    upsert_volumes(
        context.trace,
        pod,
        [
            {
                "name": _HOSTFILE_VOLUME,
                "configMap": {
                    "name": hostfile_name(context.job.name),
                    "items": [{"key": HOSTFILE_KEY, "path": HOSTFILE_KEY, "mode": _HOSTFILE_MODE}],
                },
            }
        ],
        origin,
    )
    if main is None:
        return
    mount: JsonObject = {"name": _HOSTFILE_VOLUME, "mountPath": _HOSTFILE_DIR}
    upsert_volume_mounts(context.trace, main, [mount], origin)
    upsert_env(
        context.trace,
        main,
        [
            env_value("OMPI_MCA_orte_default_hostfile", f"{_HOSTFILE_DIR}/{HOSTFILE_KEY}"),
            env_value("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
            env_value("OMPI_MCA_orte_set_default_slots", str(count)),
            env_value("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"),
        ],
        origin,
    )


def _ssh_volume(secret: str) -> JsonObject:
    return {
        "name": _SSH_VOLUME,
        "secret": {
            "secretName": secret,
            "defaultMode": _SECRET_MODE,
            "items": [
                {"key": "ssh-privatekey", "path": "id_rsa", "mode": _PRIVATE_MODE},
                {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": _PUBLIC_MODE},
                {"key": "ssh-publickey", "path": "authorized_keys", "mode": _PUBLIC_MODE},
            ],
        },
    }


def hostfile_name(name: str) -> str:
    """The hostfile ConfigMap of TrainJob ``name``: ``<tj>-mpi-hostfile``."""
    return f"{name}-mpi-hostfile"


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


#: Variables the MPI plugin sets on every node, each with the TrainJob field behind it.
MPI_RESERVED_ENV: Mapping[str, str | None] = {
    "OMPI_MCA_orte_default_hostfile": None,
    "OMPI_MCA_plm_rsh_args": None,
    "OMPI_MCA_orte_keep_fqdn_hostnames": None,
    "OMPI_MCA_orte_set_default_slots": "trainer.numProcPerNode",
}
