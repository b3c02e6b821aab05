"""Wording helpers shared by the cross-object checks: where another object is, what was meant."""

from __future__ import annotations

from collections.abc import Iterable

from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath


def where(obj: DefaultedObject, path: FieldPath = ("metadata", "name")) -> str:
    """``file:line`` of ``path`` in ``obj``, for messages that point at a second object."""
    position = obj.loaded.document.locate(path)
    return f"{obj.loaded.path}:{position.line}"


def describe(obj: DefaultedObject) -> str:
    """``Kind namespace/name`` (or ``Kind name`` when cluster-scoped), for messages."""
    name = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
    return f"{obj.kind} {name}"


def created_from(objects: tuple[str, str], replicated_jobs: Iterable[str], creator: str) -> str:
    """The objects a finding is about, and who creates them: ``the Job of replicatedJob
    'node', created by the JobSet controller``, ``the pods of replicatedJobs 'a' and 'b',
    created by the Job controller``. ``objects`` names them for one replicatedJob and for
    several (``("Job", "Jobs")``, ``("pods", "pods")``); a replicatedJob is named once."""
    quoted = [repr(name) for name in dict.fromkeys(replicated_jobs)]
    if len(quoted) == 1:
        return f"the {objects[0]} of replicatedJob {quoted[0]}, created by {creator}"
    listed = f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    return f"the {objects[1]} of replicatedJobs {listed}, created by {creator}"


def listing(names: Iterable[str]) -> str:
    """Names quoted and comma-separated, or ``none`` for an empty list."""
    quoted = [repr(name) for name in names]
    return ", ".join(quoted) if quoted else "none"
