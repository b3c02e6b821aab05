"""The trainer step as the framework plugins see it: pod count, ``node`` container, resources.

Torch, JAX, XGBoost and PlainML find the trainer PodSet by label, first match
(``docs/upstream.md``, "Naming"), take its pod count from ``trainer.numNodes``, and point
every process at the first pod of the job named ``node`` on port 29500; they and MPI
derive per-node counts from the same node resources. Those shared rules live here, so
the plugins stay independent of each other (``docs/design.md``, "Stages and packages").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from trainc.model.json import JsonObject, JsonValue, as_list, as_object, copy_json, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_CONTAINER, NODE_JOB
from trainc.model.trainjob import TrainJobSpec
from trainc.resolve.context import CountedPodSet, Resolution, ancestor_of, container
from trainc.resolve.edits import upsert_ports, upsert_traced_env
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import PodSet
from trainc.resolve.resources import gpu_count

#: Port of the trainer's rendezvous (torchrun master, JAX coordinator, XGBoost tracker).
TRAINER_PORT: Final = 29500

_POD_SPEC: Final = ("template", "spec", "template", "spec")


def apply_num_nodes(context: Resolution) -> None:
    """Set the trainer PodSet's count from ``trainer.numNodes`` when the TrainJob sets it.

    0 is kept (only the runtime's count is raised to 1), giving parallelism 0.
    """
    trainer = context.job.spec.trainer
    pod_set = context.trainer_pod_set()
    if trainer is not None and trainer.num_nodes is not None and pod_set is not None:
        pod_set.count = trainer.num_nodes
        pod_set.count_origin = context.trainjob_at("spec", "trainer", "numNodes")


def trainer_count(context: Resolution) -> int:
    """Pods of the trainer PodSet after the count overrides (1 without a trainer step)."""
    pod_set = context.trainer_pod_set()
    return pod_set.count if pod_set is not None else 1


def count_cause(context: Resolution, fallback: Written) -> Written:
    """The line behind the trainer's pod count, for a variable that passes it on
    (``PET_NNODES``, ``JAX_NUM_PROCESSES``): the TrainJob's ``numNodes`` when it set it,
    the runtime's ``mlPolicy.numNodes`` otherwise; ``fallback`` without a trainer step."""
    pod_set = context.trainer_pod_set()
    return pod_set.count_origin if pod_set is not None else fallback


def master_cause(context: Resolution) -> Written:
    """The line behind :func:`master_host`: the TrainJob's name, which it is built from."""
    return context.trainjob_at("metadata", "name")


def upsert_caused_env(
    context: Resolution,
    target: JsonObject,
    plugin: str,
    rule: str,
    entries: Iterable[tuple[JsonObject, Written]],
) -> None:
    """Set a plugin's variables on ``target``, each derived from its own cause.

    ``trainc explain`` and findings credit a variable to the line that decides its value
    (``PET_NNODES`` to the TrainJob's ``numNodes``), not to the policy that asks for it.
    """
    traced = [(entry, context.derived(plugin, rule, cause)) for entry, cause in entries]
    upsert_traced_env(context.trace, target, traced)


def trainer_container(context: Resolution) -> JsonObject | None:
    """The ``node`` container of the trainer PodSet's job, where framework env goes.

    None when the TrainJob has no ``spec.trainer``: upstream injects no framework env at
    all then, and None when the trainer job has no ``node`` container.
    """
    return trainer_node(context.job.spec, context.pod_sets, context.jobset_spec)


def trainer_node(
    spec: TrainJobSpec, pod_sets: Iterable[CountedPodSet | PodSet], jobset_spec: JsonObject
) -> JsonObject | None:
    """:func:`trainer_container` of any stage's pod sets and JobSet spec."""
    pod_set = next((p for p in pod_sets if p.ancestor == ANCESTOR_TRAINER), None)
    if spec.trainer is None or pod_set is None:
        return None
    jobs = (as_object(job) for job in as_list(jobset_spec.get("replicatedJobs")))
    job = next((job for job in jobs if job.get("name") == pod_set.name), None)
    return None if job is None else node_container(job)


def node_container(job: JsonObject) -> JsonObject | None:
    """The ``node`` container of a replicatedJob, found without creating anything."""
    return container(as_object(get_path(job, _POD_SPEC)), NODE_CONTAINER)


def upsert_trainer_env(context: Resolution, target: JsonObject) -> None:
    """``trainer.env`` into ``target``: a name already there is replaced in place, a new one
    appended, each entry traced to its line of the TrainJob.

    Where this runs decides the order of the container's environment, and Kubernetes
    expands ``$(VAR)`` only for variables listed earlier: Trainer's Torch and PlainML plugins
    upsert ``trainer.env`` before their own variables, and its JobSet builder upserts it
    again after every plugin (so after the JAX and MPI variables), see
    https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/builder.go
    """
    trainer = context.job.spec.trainer
    if trainer is None or not trainer.env:
        return
    entries = [
        (copy_json(var), context.trainjob_at("spec", "trainer", "env", index))
        for index, var in enumerate(trainer.env)
    ]
    upsert_traced_env(context.trace, target, entries)


def master_host(context: Resolution) -> str:
    """Hostname of the first trainer pod: ``<tj>-node-0-0.<tj>``.

    Upstream hard-codes the job name ``node`` and the subdomain ``<tj>``, even when the
    runtime sets ``network.subdomain`` (vector T15 of ``docs/upstream.md``); trainc
    reproduces that.
    """
    name = context.job.name
    return f"{name}-{NODE_JOB}-0-0.{name}"


def open_trainer_port(context: Resolution, target: JsonObject, origin: Origin) -> None:
    """Expose :data:`TRAINER_PORT` on a container (no name, no protocol, as upstream)."""
    upsert_ports(context.trace, target, [{"containerPort": TRAINER_PORT}], origin)


def node_resources(spec: TrainJobSpec, template: JsonObject) -> JsonValue:
    """Resources of one trainer node, from which GPU and CPU counts are derived.

    ``trainer.resourcesPerNode`` when set, **replacing** the runtime's; otherwise the
    ``node`` container of the first job named ``node`` or labelled trainer whose ``node``
    container declares resources. Read from the joined ``template``, before the JobSet
    plugin's overrides: without ``resourcesPerNode`` nothing was merged into it.
    """
    trainer = spec.trainer
    if trainer is not None and trainer.resources_per_node is not None:
        return trainer.resources_per_node
    for item in as_list(template.get("replicatedJobs")):
        job = as_object(item)
        if job.get("name") != NODE_JOB and ancestor_of(job) != ANCESTOR_TRAINER:
            continue
        node = node_container(job)
        if node is not None and "resources" in node:
            return node["resources"]
    return None


def gpus_per_node(spec: TrainJobSpec, template: JsonObject) -> int:
    """GPUs of one trainer node as the framework plugins count them: of
    :func:`node_resources`, so ``resourcesPerNode`` replaces the runtime's resources."""
    return gpu_count(node_resources(spec, template))
