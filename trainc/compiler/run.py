"""Builds one resolved TrainJob's objects: every builder, then trainc's ownership labels.

Each job is built alone from its own resolved job: nothing one job does can change
another's output, and the output is the same whatever order files were read in. A build
reports nothing: validation judged the resolved job before it got here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainc.compiler.objects import label_owned
from trainc.compiler.registry import BUILDERS, Builder
from trainc.model.json import JsonObject
from trainc.resolve.resolved import ResolvedJob


@dataclass(frozen=True, slots=True)
class BuiltJob:
    """Everything built for one TrainJob."""

    namespace: str
    name: str
    source: str
    objects: tuple[JsonObject, ...]


def build_job(job: ResolvedJob, builders: Sequence[Builder] = BUILDERS) -> BuiltJob:
    """The objects of ``job``, in builder order, each labelled as trainc's."""
    objects = [obj for builder in builders for obj in builder(job)]
    label_owned(objects, job.name)
    return BuiltJob(job.namespace, job.name, job.trainjob.loaded.path, tuple(objects))
