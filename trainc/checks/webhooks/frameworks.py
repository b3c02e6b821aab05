"""Framework plugin rules: what a TrainJob and its runtime may not set for Torch, XGBoost, Flux.

Each ML plugin's ``Validate`` (``docs/upstream.md``, "Webhooks") rejects a TrainJob whose
``trainer.env`` sets a variable the plugin computes, a Torch ``envInjection``
target that names no container of the runtime, and a Flux runtime whose ``node`` job
already has the init container the plugin injects. The last two depend on the runtime
alone: they are checked once per runtime that a TrainJob uses, and point into the runtime's
file. MPI's own rules are in :mod:`.mpi`.
"""

from __future__ import annotations

from trainc.checks.webhooks.template import (
    Node,
    all_containers,
    children,
    containers,
    named,
    replicated_jobs,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.model.labels import NODE_JOB

XOBJ_RESERVED_ENV = Rule(
    "xobj.reserved-env",
    Severity.ERROR,
    "trainer.env sets a variable the framework plugin reserves",
)

XOBJ_TORCH_ENV_INJECTION = Rule(
    "xobj.torch-env-injection",
    Severity.ERROR,
    "a torch envInjection target is not in the runtime template",
)

XOBJ_FLUX_RESERVED_INIT_CONTAINER = Rule(
    "xobj.flux-reserved-init-container",
    Severity.ERROR,
    "the flux-installer init container is reserved",
)


TORCH_RESERVED_ENV = frozenset(
    {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"}
)
MPI_RESERVED_ENV = frozenset(
    {
        "OMPI_MCA_orte_default_hostfile",
        "OMPI_MCA_plm_rsh_args",
        "OMPI_MCA_orte_keep_fqdn_hostnames",
        "OMPI_MCA_orte_set_default_slots",
    }
)
XGBOOST_RESERVED_ENV = frozenset(
    {"DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"}
)
FLUX_INSTALLER = "flux-installer"

#: Where the value of a reserved variable comes from instead, when the TrainJob controls it.
_SOURCE = {
    "PET_NNODES": "trainer.numNodes",
    "PET_NPROC_PER_NODE": "trainer.numProcPerNode",
    "OMPI_MCA_orte_set_default_slots": "trainer.numProcPerNode",
    "DMLC_NUM_WORKER": "trainer.numNodes",
}


def _policy(runtime: DefaultedObject) -> JsonObject:
    return as_object(get_path(runtime.data, ("spec", "mlPolicy")))


def check_reserved_env(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """``trainer.env`` entries that the runtime's ML plugin sets itself."""
    policy = _policy(runtime)
    found = []
    for entry in children(Node((), trainjob.data), "spec", "trainer", "env"):
        name = entry.name
        if name is None:
            continue
        message = _reserved_message(policy, name)
        if message is not None:
            source = _SOURCE.get(name)
            found.append(
                trainjob.finding(
                    entry.at("name"),
                    XOBJ_RESERVED_ENV.code,
                    message,
                    hint=f"delete it; set {source} instead" if source else "delete it",
                )
            )
    return found


def _reserved_message(policy: JsonObject, name: str) -> str | None:
    for framework, reserved in (("torch", TORCH_RESERVED_ENV), ("mpi", MPI_RESERVED_ENV)):
        if isinstance(policy.get(framework), dict) and name in reserved:
            return (
                f"must not have reserved envs, invalid envs configured: [{name}]: the "
                f"runtime's {framework} plugin sets it on every node"
            )
    if isinstance(policy.get("xgboost"), dict) and name in XGBOOST_RESERVED_ENV:
        return f"{name} is reserved for the XGBoost runtime: the xgboost plugin sets it"
    return None


def check_torch_env_injection(runtime: DefaultedObject) -> list[Diagnostic]:
    """Torch ``envInjection`` targets must name a replicatedJob and one of its containers."""
    policy = Node(("spec", "mlPolicy"), _policy(runtime))
    rjobs = replicated_jobs(runtime.data)
    found = []
    for target in children(policy, "torch", "envInjection", "targets"):
        job = str_value(target.get("jobName"))
        rjob = named(rjobs, job) if job is not None else None
        present = [c.name for c in all_containers(rjob)] if rjob is not None else []
        for index, container in enumerate(as_list(target.get("containerNames"))):
            if not isinstance(container, str) or container in present:
                continue
            found.append(
                runtime.finding(
                    target.at("containerNames", index) if rjob else target.at("jobName"),
                    XOBJ_TORCH_ENV_INJECTION.code,
                    f'envInjection target podSet "{job}" container "{container}" not found in '
                    "runtime template",
                    hint=f"name a container of replicatedJob {job!r}"
                    if rjob
                    else "name one of the runtime's replicatedJobs in jobName",
                )
            )
    return found


def check_flux_init_containers(runtime: DefaultedObject) -> list[Diagnostic]:
    """A Flux runtime's ``node`` job must leave the name ``flux-installer`` to the plugin."""
    if not isinstance(_policy(runtime).get("flux"), dict):
        return []
    rjob = named(replicated_jobs(runtime.data), NODE_JOB)
    init_containers = containers(rjob, "initContainers") if rjob is not None else []
    return [
        runtime.finding(
            container.at("name"),
            XOBJ_FLUX_RESERVED_INIT_CONTAINER.code,
            f"InitContainer '{FLUX_INSTALLER}' is reserved: the Flux plugin adds its own to "
            f"replicatedJob {NODE_JOB!r}",
            hint="rename this init container",
        )
        for container in init_containers
        if container.name == FLUX_INSTALLER
    ]
