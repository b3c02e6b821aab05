"""Builds one resolved TrainJob's objects: each plugin's build part, then trainc's labels.

Each job is built alone from its own resolved job: nothing one job does can change
another's output, and the output is the same whatever order files were read in. A build
reports nothing: validation judged the resolved job before it got here. The plugins build
in registry order (:mod:`trainc.plugins.registry`), upstream's plugin order; the emitter
sorts objects by kind anyway, so it only fixes ties.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from trainc.model.json import JsonObject
from trainc.model.labels import MANAGED_BY_LABEL, MANAGED_BY_TRAINC, TRAINJOB_NAME_LABEL
from trainc.plugins import registry
from trainc.records import dataclass
from trainc.resolve.framework import plan
from trainc.resolve.phases import Plugin
from trainc.resolve.resolved import ResolvedJob


@dataclass(frozen=True, slots=True)
class BuiltJob:
    """Everything built for one TrainJob."""

    namespace: str
    name: str
    source: str
    objects: tuple[JsonObject, ...]


def build_job(job: ResolvedJob, plugins: Sequence[Plugin] | None = None) -> BuiltJob:
    """The objects of ``job``, in plugin order, each labelled as trainc's.

    ``plugins`` are the registry's unless given (a test narrows them).
    """
    builders = plan(tuple(registry.PLUGINS if plugins is None else plugins)).build
    objects = [obj for builder in builders for obj in builder.build(job)]
    _label_owned(objects, job.name)
    return BuiltJob(job.namespace, job.name, job.trainjob.loaded.path, tuple(objects))


def _label_owned(objects: Iterable[JsonObject], trainjob: str) -> None:
    """Label each object as trainc's, built for TrainJob ``trainjob``.

    ``app.kubernetes.io/managed-by: trainc`` keeps the sweeper away from everything trainc
    did not create; ``trainer.kubeflow.org/trainjob-name`` finds what one TrainJob made.
    """
    for obj in objects:
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict):
            metadata = obj["metadata"] = {}
        labels = metadata.get("labels")
        if not isinstance(labels, dict):
            labels = metadata["labels"] = {}
        labels[MANAGED_BY_LABEL] = MANAGED_BY_TRAINC
        labels[TRAINJOB_NAME_LABEL] = trainjob
