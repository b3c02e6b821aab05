"""The trainer step as the framework plugins see it: pod count, ``node`` container, resources.

Torch, JAX, XGBoost and PlainML find the trainer PodSet by label, first match
(``upstream-semantics.md`` §2.3), take its pod count from ``trainer.numNodes``, and point
every process at the first pod of the job named ``node`` on port 29500; they and MPI
derive per-node counts from the same node resources. Those shared rules live here, so
the plugins stay independent of each other (style §3).
"""

from __future__ import annotations

from typing import Final

from trainc.build.context import BuildContext, container
from trainc.build.k8s import upsert_ports
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_CONTAINER, NODE_JOB
from trainc.resolve.job import ancestor_of

#: Port of the trainer's rendezvous (torchrun master, JAX coordinator, XGBoost tracker).
TRAINER_PORT: Final = 29500

_POD_SPEC: Final = ("template", "spec", "template", "spec")


def apply_num_nodes(context: BuildContext) -> None:
    """Set the trainer PodSet's count from ``trainer.numNodes`` when the TrainJob sets it.

    0 is kept (§2.6: only the runtime's count is clamped to 1), giving parallelism 0.
    """
    trainer = context.job.spec.trainer
    pod_set = context.trainer_pod_set()
    if trainer is not None and trainer.num_nodes is not None and pod_set is not None:
        pod_set.count = trainer.num_nodes


def trainer_count(context: BuildContext) -> int:
    """Pods of the trainer PodSet after the count overrides (1 without a trainer step)."""
    pod_set = context.trainer_pod_set()
    return pod_set.count if pod_set is not None else 1


def trainer_container(context: BuildContext) -> JsonObject | None:
    """The ``node`` container of the trainer PodSet's job, where framework env goes.

    None when the TrainJob has no ``spec.trainer``: upstream injects no framework env at
    all then (§2.2), and None when the trainer job has no ``node`` container.
    """
    pod_set = context.trainer_pod_set()
    if context.job.spec.trainer is None or pod_set is None:
        return None
    job = context.replicated_job(pod_set.name)
    return None if job is None else node_container(job)


def node_container(job: JsonObject) -> JsonObject | None:
    """The ``node`` container of a replicatedJob, found without creating anything."""
    return container(as_object(get_path(job, _POD_SPEC)), NODE_CONTAINER)


def master_host(context: BuildContext) -> str:
    """Hostname of the first trainer pod: ``<tj>-node-0-0.<tj>``.

    Upstream hard-codes the job name ``node`` and the subdomain ``<tj>``, even when the
    runtime sets ``network.subdomain`` (§2.3, vector T15); trainc reproduces that.
    """
    name = context.job.name
    return f"{name}-{NODE_JOB}-0-0.{name}"


def open_trainer_port(target: JsonObject) -> None:
    """Expose :data:`TRAINER_PORT` on a container (no name, no protocol, as upstream)."""
    upsert_ports(target, [{"containerPort": TRAINER_PORT}])


def node_resources(context: BuildContext) -> JsonValue:
    """Resources of one trainer node, from which GPU and CPU counts are derived (§2.8, §2.10).

    ``trainer.resourcesPerNode`` when set, **replacing** the runtime's; otherwise the
    ``node`` container of the first job named ``node`` or labelled trainer whose ``node``
    container declares resources. Read from the resolved template, before the JobSet
    plugin's overrides: without ``resourcesPerNode`` nothing was merged into it.
    """
    trainer = context.job.spec.trainer
    if trainer is not None and trainer.resources_per_node is not None:
        return trainer.resources_per_node
    for item in as_list(context.job.jobset_spec.get("replicatedJobs")):
        job = as_object(item)
        if job.get("name") != NODE_JOB and ancestor_of(job) != ANCESTOR_TRAINER:
            continue
        node = node_container(job)
        if node is not None and "resources" in node:
            return node["resources"]
    return None
