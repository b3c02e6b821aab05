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


def listing(names: Iterable[str]) -> str:
    """Names quoted and comma-separated, or ``none`` for an empty list."""
    quoted = [repr(name) for name in names]
    return ", ".join(quoted) if quoted else "none"
