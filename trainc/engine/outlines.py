"""Outlines: a TrainJob reduced to what a run needs of it when its verdicts are cached.

A warm run still sees every TrainJob (duplicates, runtime lookups and the order of the
jobs are about all of them), but a job whose verdict the cache holds is never resolved,
so its whole tree, with the position of every node, need not be read back. An outline
keeps the identity and the runtime reference, with their positions, so the findings
about those are located exactly as on the whole object; anything else is read from the
whole object, which the run fetches again when it needs it
(:func:`trainc.engine.file_pass.whole_object`).
"""

from __future__ import annotations

from dataclasses import replace

from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath, JsonObject, get_path
from trainc.model.kinds import TRAINJOB

#: The fields an outline keeps: what names the object and the runtime it references.
OUTLINE_FIELDS: tuple[tuple[str, ...], ...] = (
    ("apiVersion",),
    ("kind",),
    ("metadata", "name"),
    ("metadata", "namespace"),
    ("spec", "runtimeRef", "apiGroup"),
    ("spec", "runtimeRef", "kind"),
    ("spec", "runtimeRef", "name"),
)


def can_outline(obj: DefaultedObject) -> bool:
    """Whether ``obj`` is of a kind a run may hold as an outline."""
    return obj.kind == TRAINJOB.kind


def outline(obj: DefaultedObject) -> DefaultedObject:
    """``obj`` with only :data:`OUTLINE_FIELDS` and their positions."""
    loaded = obj.loaded
    document = loaded.document
    kept = {
        path[:end]
        for path in OUTLINE_FIELDS
        for end in range(len(path) + 1)
        if path[:end] in document.positions
    }
    positions: dict[FieldPath, tuple[int, int]] = {
        path: document.positions[path] for path in sorted(kept)
    }
    outlined = replace(document, data=_fields(loaded.data), positions=positions)
    return replace(
        obj,
        loaded=LoadedObject(
            outlined, loaded.api_version, loaded.kind, loaded.name, loaded.namespace
        ),
        data=_fields(obj.data),
    )


def _fields(data: JsonObject) -> JsonObject:
    """The :data:`OUTLINE_FIELDS` of ``data`` that are set, nested as in ``data``."""
    kept: JsonObject = {}
    for path in OUTLINE_FIELDS:
        value = get_path(data, path)
        if value is None:
            continue
        *parents, last = path
        target = kept
        for key in parents:
            inner = target.get(key)
            if not isinstance(inner, dict):
                inner = {}
                target[key] = inner
            target = inner
        target[last] = value
    return kept
