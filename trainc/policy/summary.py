"""What a resolved TrainJob amounts to, for policies: the ``resolved`` variable.

Policies ask "how many GPUs does this job take?" or "which images does it run?"; the
answers depend on Trainer's merge rules, which policy authors should not re-derive in
CEL. The summary reads them off the resolved job, so a policy judges exactly what the
cluster gets: the same node count, resources and images as the emitted JobSet. It is
plain JSON-shaped data so it can be bound as a CEL variable.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.model.labels import ANCESTOR_TRAINER, LAUNCHER_JOB, NODE_JOB
from trainc.resolve.context import ancestor_of
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.resources import gpu_count
from trainc.resolve.trainer import node_container

Framework = Literal["torch", "mpi", "jax", "xgboost", "flux", "plain"]

#: mlPolicy sources in the order Trainer's plugins check them; at most one is set.
_FRAMEWORKS: tuple[Framework, ...] = ("torch", "mpi", "jax", "xgboost", "flux")
_POD_SPEC = ("template", "spec", "template", "spec")


class RuntimeName(TypedDict):
    """The runtime a TrainJob resolved to."""

    kind: str
    name: str


class ResolvedSummary(TypedDict):
    """The ``resolved`` policy variable; keys are camelCase like the API's."""

    numNodes: int
    resourcesPerNode: JsonObject
    gpusPerNode: int
    totalGPUs: int
    images: list[str]
    framework: Framework
    runtime: RuntimeName


def summarize(job: ResolvedJob) -> ResolvedSummary:
    """The node count, per-node resources, images and framework of a resolved TrainJob.

    ``resourcesPerNode`` and ``gpusPerNode`` are what a trainer node's ``node`` container
    requests (``trainer.resourcesPerNode`` merged into the runtime's), counted by the one
    GPU counter (:func:`~trainc.resolve.resources.gpu_count`); ``totalGPUs`` is
    ``numNodes * gpusPerNode``: every trainer node gets the same resources. (The
    framework plugins derive processes per node from ``resourcesPerNode`` alone when it
    is set, as upstream does: :func:`~trainc.resolve.trainer.gpus_per_node`.) ``images``
    are those of every container and init container of the JobSet (the plugins' own
    included, such as Flux's installer).
    """
    framework = _framework(job)
    num_nodes = _num_nodes(job, framework)
    resources = _node_resources(job)
    gpus = gpu_count(resources)
    return ResolvedSummary(
        numNodes=num_nodes,
        resourcesPerNode=resources,
        gpusPerNode=gpus,
        totalGPUs=num_nodes * gpus,
        images=_images(job),
        framework=framework,
        runtime=RuntimeName(kind=job.runtime.kind, name=job.runtime.name),
    )


def _framework(job: ResolvedJob) -> Framework:
    policy = as_object(get_path(job.runtime.data, ("spec", "mlPolicy")))
    return next((name for name in _FRAMEWORKS if name in policy), "plain")


def _num_nodes(job: ResolvedJob, framework: Framework) -> int:
    """Trainer's node count, from the final pod counts (``docs/upstream.md``, "MPI").

    The trainer step's pods; for MPI the ``node`` job's, plus the launcher when it runs
    as a node. 1 when the runtime has no such step.
    """
    counts = {pod_set.name: pod_set.count for pod_set in job.pod_sets}
    if framework == "mpi" and NODE_JOB in counts:
        mpi = as_object(get_path(job.runtime.data, ("spec", "mlPolicy", "mpi")))
        launcher = 1 if mpi.get("runLauncherAsNode") is True and LAUNCHER_JOB in counts else 0
        return counts[NODE_JOB] + launcher
    trainer = next((p for p in job.pod_sets if p.ancestor == ANCESTOR_TRAINER), None)
    return trainer.count if trainer is not None else 1


def _node_resources(job: ResolvedJob) -> JsonObject:
    """Resources of the trainer step's ``node`` container, ``resourcesPerNode`` merged in."""
    for rjob in as_list(job.template.get("replicatedJobs")):
        if ancestor_of(as_object(rjob)) == ANCESTOR_TRAINER:
            node = node_container(as_object(rjob))
            return dict(as_object(node.get("resources"))) if node is not None else {}
    return {}


def _images(job: ResolvedJob) -> list[str]:
    """Every container and init container image of the resolved JobSet, sorted."""
    images: set[str] = set()
    for rjob in as_list(job.jobset_spec.get("replicatedJobs")):
        pod = as_object(get_path(rjob, _POD_SPEC))
        for key in ("containers", "initContainers"):
            for container in as_list(pod.get(key)):
                image = as_object(container).get("image")
                if isinstance(image, str) and image:
                    images.add(image)
    return sorted(images)
