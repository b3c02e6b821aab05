"""What a TrainJob on its runtime amounts to, as the Trainer controller would resolve it.

Policies ask "how many GPUs does this job take?" or "which images does it run?"; the
answers depend on Trainer's merge rules, which policy authors should not re-derive in
CEL. The summary is plain JSON-shaped data so it can be bound as the ``resolved``
variable. It reads defaulted objects defensively: a runtime with structural errors
still yields a summary rather than an exception.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import (
    ANCESTOR_LABEL,
    ANCESTOR_TRAINER,
    FLUX_INSTALLER_IMAGE,
    FLUX_VIEW_IMAGE_ENV,
    NODE_CONTAINER,
)
from trainc.resolve.objects import DefaultedObject
from trainc.resolve.resources import gpu_count, merge_resources

Framework = Literal["torch", "mpi", "jax", "xgboost", "flux", "plain"]

#: mlPolicy sources in the order Trainer's plugins check them; at most one is set.
_FRAMEWORKS: tuple[Framework, ...] = ("torch", "mpi", "jax", "xgboost", "flux")

#: Default image of the init container the Flux plugin adds to the trainer pods, and the
#: env variable that overrides it (``upstream-semantics.md`` §2.10).


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


def summarize(trainjob: DefaultedObject, runtime: DefaultedObject) -> ResolvedSummary:
    """The resolved counts, resources, images and framework of ``trainjob`` on ``runtime``.

    ``totalGPUs`` is ``numNodes * gpusPerNode``: every trainer node gets the same
    ``resourcesPerNode``. Runtime patches cannot change images or resources (their
    container patches have neither, ``upstream-semantics.md`` §1.3), so they are ignored.
    """
    trainer = as_object(get_path(trainjob.data, ("spec", "trainer")))
    spec = as_object(runtime.data.get("spec"))
    ml_policy = spec.get("mlPolicy")
    jobs = as_list(get_path(spec, ("template", "spec", "replicatedJobs")))
    node = _trainer_node(jobs)
    framework = _framework(ml_policy)
    resources = _resources_per_node(node, trainer, has_ml_policy=isinstance(ml_policy, dict))
    num_nodes = _num_nodes(trainer, ml_policy, jobs)
    gpus = gpu_count(resources)
    images = _images(jobs, trainer)
    if framework == "flux":
        images.add(_flux_installer_image(node, trainer))
    return ResolvedSummary(
        numNodes=num_nodes,
        resourcesPerNode=resources,
        gpusPerNode=gpus,
        totalGPUs=num_nodes * gpus,
        images=sorted(images),
        framework=framework,
        runtime=RuntimeName(kind=runtime.kind, name=runtime.name),
    )


def _framework(ml_policy: JsonValue) -> Framework:
    policy = as_object(ml_policy)
    return next((name for name in _FRAMEWORKS if name in policy), "plain")


def _is_trainer_job(job: JsonValue) -> bool:
    labels = get_path(job, ("template", "metadata", "labels"))
    return get_path(labels, (ANCESTOR_LABEL,)) == ANCESTOR_TRAINER


def _containers(job: JsonValue, key: str = "containers") -> list[JsonObject]:
    items = as_list(get_path(job, ("template", "spec", "template", "spec", key)))
    return [item for item in items if isinstance(item, dict)]


def _num_nodes(trainer: JsonObject, ml_policy: JsonValue, jobs: list[JsonValue]) -> int:
    """Trainer's node count (``upstream-semantics.md`` §2.6, §2.9, §2.10).

    ``trainer.numNodes`` wins (0 is legal); else ``mlPolicy.numNodes``, else the trainer
    job's ``parallelism`` when there is no mlPolicy, clamped to at least 1. With MPI
    ``runLauncherAsNode`` the launcher is one of the nodes and the ``node`` job keeps at
    least one pod (``max(n-1, 1)``), so the hostfile lists ``max(n-1, 1) + 1`` nodes.
    """
    requested = _integer(trainer.get("numNodes"))
    if requested is not None:
        count = requested
    elif isinstance(ml_policy, dict):
        count = _positive(ml_policy.get("numNodes"))
    else:
        count = _positive(get_path(_trainer_job(jobs), ("template", "spec", "parallelism")))
    if get_path(ml_policy, ("mpi", "runLauncherAsNode")) is True:
        return max(count - 1, 1) + 1
    return count


def _positive(value: JsonValue) -> int:
    number = _integer(value)
    return 1 if number is None else max(number, 1)


def _integer(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _trainer_job(jobs: list[JsonValue]) -> JsonValue:
    """The first trainer-labelled replicatedJob, or None."""
    return next((job for job in jobs if _is_trainer_job(job)), None)


def _trainer_node(jobs: list[JsonValue]) -> JsonObject:
    """Container ``node`` of the first trainer-labelled job: where the trainer settings go."""
    containers = _containers(_trainer_job(jobs))
    return next((c for c in containers if c.get("name") == NODE_CONTAINER), {})


def _resources_per_node(
    node: JsonObject, trainer: JsonObject, *, has_ml_policy: bool
) -> JsonObject:
    """Runtime ``node`` resources of the trainer job with ``trainer.resourcesPerNode`` merged.

    The merge is the strategic merge of §2.6 (:func:`merge_resources`). Without an
    mlPolicy Trainer ignores ``resourcesPerNode``, and so does the summary.
    """
    override = trainer.get("resourcesPerNode") if has_ml_policy else None
    return merge_resources(node.get("resources"), override)


def _images(jobs: list[JsonValue], trainer: JsonObject) -> set[str]:
    """Every container and init container image of the runtime template.

    ``trainer.image`` replaces the image of container ``node`` in trainer-labelled jobs
    (``upstream-semantics.md`` §2.7 d).
    """
    override = trainer.get("image")
    images: set[str] = set()
    for job in jobs:
        replace = _is_trainer_job(job) and isinstance(override, str) and override != ""
        for container in _containers(job):
            is_node = container.get("name") == NODE_CONTAINER
            images.update(_image(override if replace and is_node else container.get("image")))
        for container in _containers(job, "initContainers"):
            images.update(_image(container.get("image")))
    return images


def _image(value: JsonValue) -> list[str]:
    return [value] if isinstance(value, str) and value else []


def _flux_installer_image(node: JsonObject, trainer: JsonObject) -> str:
    """Image of the init container the Flux plugin adds (``upstream-semantics.md`` §2.10).

    ``FLUX_VIEW_IMAGE`` in the runtime's ``node`` env, then in ``trainer.env``, overrides
    the default; upstream reads neither when the TrainJob sets no ``trainer.env``.
    """
    env = as_list(trainer.get("env"))
    if not env:
        return FLUX_INSTALLER_IMAGE
    image = FLUX_INSTALLER_IMAGE
    for var in [*as_list(node.get("env")), *env]:
        value = get_path(var, ("value",))
        if get_path(var, ("name",)) == FLUX_VIEW_IMAGE_ENV and isinstance(value, str):
            image = value
    return image
