"""The Torch plugin: node count, torchrun's ``PET_*`` environment, port 29500 and TorchTune.

Reproduces Trainer's Torch plugin for ``mlPolicy.torch``
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/torch/torch.go):
every trainer pod gets the torchrun rendezvous variables, after ``trainer.env``, ranked
by the Job completion index and meeting on the first trainer pod; ``envInjection``
targets get the same variables; a TorchTune TrainJob (``trainer.command: [tune, run]``)
gets its ``tune run`` command built here (:mod:`.torchtune`) and the rendezvous address
on that command line instead of in ``PET_MASTER_*``.

Validate, as the plugin's ``Validate``: ``trainer.env`` must leave the ``PET_*`` variables
to the plugin, and every ``envInjection`` target must name a container of the runtime
(checked once per runtime a TrainJob uses, in the runtime's file). TorchTune's rules judge
the resolved job (:func:`~trainc.plugins.torchtune.check_torchtune`) from the
:class:`~trainc.plugins.torchtune.TuneRun` this plugin keeps in the resolved job's
extensions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from trainc.checks.shared.template import (
    Node,
    all_containers,
    children,
    named,
    replicated_jobs,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_CONTAINER
from trainc.model.mlpolicy import TorchMLPolicySource
from trainc.plugins.shared.reserved_env import check_reserved_env, torch_or_mpi_message
from trainc.plugins.torchtune import (
    AUTO,
    ProcsPerNode,
    TuneRun,
    check_torchtune,
    is_torchtune,
    tune_command,
)
from trainc.records import dataclass
from trainc.resolve.context import Resolution, ancestor_of, container, containers, pod_spec
from trainc.resolve.edits import COMPLETION_INDEX_PATH, env_field, env_value
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.resources import cpu_count
from trainc.resolve.trainer import (
    TRAINER_PORT,
    apply_num_nodes,
    count_cause,
    gpus_per_node,
    master_cause,
    master_host,
    node_container,
    node_resources,
    open_trainer_port,
    trainer_container,
    trainer_count,
    upsert_caused_env,
    upsert_trainer_env,
)

XOBJ_TORCH_ENV_INJECTION = Rule(
    "xobj.torch-env-injection",
    Severity.ERROR,
    "a torch envInjection target is not in the runtime template",
)


NNODES_ENV: Final = "PET_NNODES"
NPROC_PER_NODE_ENV: Final = "PET_NPROC_PER_NODE"
NODE_RANK_ENV: Final = "PET_NODE_RANK"
MASTER_ADDR_ENV: Final = "PET_MASTER_ADDR"
MASTER_PORT_ENV: Final = "PET_MASTER_PORT"


_RULE: Final = "torchrun environment"


def _policy_origin(context: Resolution) -> Written:
    """The runtime's ``mlPolicy.torch``, behind everything this plugin writes."""
    return context.runtime_at("spec", "mlPolicy", "torch")


@dataclass(frozen=True, slots=True)
class TorchPlugin:
    """Counts, env, port and TorchTune command of the trainer for Torch runtimes."""

    @property
    def name(self) -> str:
        """Upstream's Torch plugin."""
        return "torch"

    def validate_used_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """The runtime's ``envInjection`` targets name its containers."""
        return check_torch_env_injection(runtime)

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """``trainer.env`` leaves the variables Torch computes to the plugin."""
        return check_reserved_env(
            trainjob, runtime, "torch", TORCH_RESERVED_ENV, torch_or_mpi_message("torch")
        )

    def validate_resolved(self, job: ResolvedJob) -> list[Diagnostic]:
        """A TorchTune TrainJob keeps to the TorchTune runtime's contract."""
        return check_torchtune(job)

    def enforce_ml_policy(self, context: Resolution) -> None:
        """``trainer.numNodes`` as the count, then the env, port and command of ``node``.

        Env and port need ``spec.trainer`` and a ``node`` container in the trainer job
        (upstream writes no ``PET_*`` at all without ``spec.trainer``, envInjection targets
        included).
        """
        policy = context.job.runtime_spec.ml_policy
        if policy is None or policy.torch is None:
            return
        apply_num_nodes(context)
        node = trainer_container(context)
        trainer = context.job.spec.trainer
        if node is None or trainer is None:
            return
        procs = procs_per_node(context)
        tune = is_torchtune(trainer.command)
        origin = context.derived("torch", _RULE, _policy_origin(context))
        upsert_trainer_env(context, node)
        upsert_caused_env(context, node, "torch", _RULE, _pet_env(context, procs, master=not tune))
        open_trainer_port(context, node, origin)
        for target in _injection_targets(context, policy.torch):
            upsert_caused_env(
                context, target, "torch", _RULE, _pet_env(context, procs, master=True)
            )
        if tune:
            _write_tune_command(context, trainer.args or [], procs)


def procs_per_node(context: Resolution) -> ProcsPerNode:
    """``PET_NPROC_PER_NODE``, as the Torch plugin computes it.

    ``trainer.numProcPerNode`` when set; else ``auto`` when a node has GPUs (torchrun
    counts them), else its CPUs rounded up, at least 1. A node's resources are the
    runtime's replaced, not merged, by ``resourcesPerNode`` (upstream PR #3974 would
    change that).
    """
    trainer = context.job.spec.trainer
    if trainer is not None and trainer.num_proc_per_node is not None:
        return trainer.num_proc_per_node
    if gpus_per_node(context.job.spec, context.job.template):
        return AUTO
    return max(1, cpu_count(node_resources(context.job.spec, context.job.template)))


def _pet_env(
    context: Resolution, procs: ProcsPerNode, *, master: bool
) -> list[tuple[JsonObject, Written]]:
    """Fresh ``PET_*`` entries, each traced to the line it follows from; the master
    address and port only when ``master``.

    ``PET_NNODES`` passes on the node count, so it is the TrainJob's ``numNodes`` that
    set it when the TrainJob gives one; the address is built from the TrainJob's name;
    the rank and port are the runtime's ``torch`` policy's own.
    """
    policy = _policy_origin(context)
    env = [
        (env_value(NNODES_ENV, str(trainer_count(context))), count_cause(context, policy)),
        (env_value(NPROC_PER_NODE_ENV, str(procs)), _procs_cause(context)),
        (env_field(NODE_RANK_ENV, COMPLETION_INDEX_PATH), policy),
    ]
    if master:
        env += [
            (env_value(MASTER_ADDR_ENV, master_host(context)), master_cause(context)),
            (env_value(MASTER_PORT_ENV, str(TRAINER_PORT)), policy),
        ]
    return env


def _procs_cause(context: Resolution) -> Written:
    """The line behind ``PET_NPROC_PER_NODE`` (see :func:`procs_per_node`): the
    TrainJob's ``numProcPerNode``, else the node resources it counts GPUs or CPUs in,
    the TrainJob's ``resourcesPerNode`` when it gives them."""
    trainer = context.job.spec.trainer
    if trainer is not None and trainer.num_proc_per_node is not None:
        return context.trainjob_at("spec", "trainer", "numProcPerNode")
    if trainer is not None and trainer.resources_per_node is not None:
        return context.trainjob_at("spec", "trainer", "resourcesPerNode")
    return _policy_origin(context)


def _injection_targets(context: Resolution, torch: TorchMLPolicySource) -> Iterator[JsonObject]:
    """Containers, then init containers, that ``envInjection.targets`` names."""
    targets = torch.env_injection.targets if torch.env_injection is not None else None
    for target in targets or ():
        job = context.replicated_job(target.job_name)
        if job is None:
            continue
        pod = pod_spec(job)
        for candidate in (*containers(pod), *containers(pod, "initContainers")):
            if candidate.get("name") in target.container_names:
                yield candidate


def _write_tune_command(context: Resolution, args: list[str], procs: ProcsPerNode) -> None:
    """Replace the ``node`` command of every trainer job with the ``tune run`` line.

    The runtime's own ``node`` commands are read from the resolved template, since the
    JobSet plugin has already put the TrainJob's ``[tune, run]`` into the working one.
    """
    run = TuneRun(
        runtime_name=context.job.spec.runtime_ref.name,
        num_nodes=trainer_count(context),
        procs_per_node=procs,
        gpus=gpus_per_node(context.job.spec, context.job.template),
        args=args,
    )
    context.put_extension(run)
    endpoint = f"{master_host(context)}:{TRAINER_PORT}"
    command = tune_command(run, endpoint=endpoint, runtime_commands=_runtime_commands(context))
    cause = context.trainjob_at("spec", "trainer", "command")
    origin: Origin = context.derived("torch", "the tune run command of TorchTune", cause)
    for job in context.jobs_with_ancestor(ANCESTOR_TRAINER):
        node = container(pod_spec(job), NODE_CONTAINER)
        if node is not None:
            context.trace.put(node, "command", list[JsonValue](command), origin)


def _runtime_commands(context: Resolution) -> Iterator[str]:
    """The ``node`` command entries of the runtime's trainer jobs, in template order."""
    for job in as_list(context.job.template.get("replicatedJobs")):
        rjob = as_object(job)
        if ancestor_of(rjob) != ANCESTOR_TRAINER:
            continue
        node = node_container(rjob)
        for entry in as_list(node.get("command")) if node is not None else ():
            if isinstance(entry, str):
                yield entry


#: Variables the Torch plugin sets on every node, each with the TrainJob field behind it.
TORCH_RESERVED_ENV: Mapping[str, str | None] = {
    "PET_NNODES": "trainer.numNodes",
    "PET_NPROC_PER_NODE": "trainer.numProcPerNode",
    "PET_NODE_RANK": None,
    "PET_MASTER_ADDR": None,
    "PET_MASTER_PORT": None,
}


def _runtime_policy(runtime: DefaultedObject) -> JsonObject:
    return as_object(get_path(runtime.data, ("spec", "mlPolicy")))


def check_torch_env_injection(runtime: DefaultedObject) -> list[Diagnostic]:
    """Torch ``envInjection`` targets must name a replicatedJob and one of its containers."""
    policy = Node(("spec", "mlPolicy"), _runtime_policy(runtime))
    rjobs = replicated_jobs(runtime.data)
    found = []
    for target in children(policy, "torch", "envInjection", "targets"):
        job = str_value(target.get("jobName"))
        rjob = named(rjobs, job) if job is not None else None
        present = [c.name for c in all_containers(rjob)] if rjob is not None else []
        for index, name in enumerate(as_list(target.get("containerNames"))):
            if not isinstance(name, str) or name in present:
                continue
            found.append(
                runtime.finding(
                    target.at("containerNames", index) if rjob else target.at("jobName"),
                    XOBJ_TORCH_ENV_INJECTION.code,
                    f'envInjection target podSet "{job}" container "{name}" not found in '
                    "runtime template",
                    hint=f"name a container of replicatedJob {job!r}"
                    if rjob
                    else "name one of the runtime's replicatedJobs in jobName",
                )
            )
    return found
