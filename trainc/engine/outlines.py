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

import sys
from collections.abc import Iterator, Mapping
from dataclasses import replace

from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, JsonValue, get_path
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


#: Every path an outline may locate: the fields and the mappings above them, root first.
_LOCATED: tuple[FieldPath, ...] = tuple(
    sorted({path[:end] for path in OUTLINE_FIELDS for end in range(len(path) + 1)})
)
_PLACE = {path: place for place, path in enumerate(_LOCATED)}


class OutlinePositions(Mapping[FieldPath, tuple[int, int]]):
    """The positions of an outline's fields in one flat tuple of numbers: line and
    column of each of :data:`_LOCATED`, -1 for a path the document does not hold.

    A dict of the same eight paths holds eight key tuples and eight position tuples,
    about 1.3 KB for each TrainJob, which a run keeps for all of them; this is a tenth.
    """

    __slots__ = ("_flat",)

    def __init__(self, flat: tuple[int, ...]) -> None:
        self._flat = flat

    @classmethod
    def of(cls, positions: Mapping[FieldPath, tuple[int, int]]) -> OutlinePositions:
        """The positions of :data:`_LOCATED` that ``positions`` holds."""
        return cls(tuple(n for path in _LOCATED for n in positions.get(path, (-1, -1))))

    def __getitem__(self, path: FieldPath) -> tuple[int, int]:
        place = _PLACE.get(path)
        if place is None or self._flat[2 * place] < 0:
            raise KeyError(path)
        return self._flat[2 * place], self._flat[2 * place + 1]

    def __iter__(self) -> Iterator[FieldPath]:
        return (path for place, path in enumerate(_LOCATED) if self._flat[2 * place] >= 0)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __reduce__(self) -> tuple[type[OutlinePositions], tuple[tuple[int, ...]]]:
        return OutlinePositions, (self._flat,)


def outline(obj: DefaultedObject, source: SourceFile | None = None) -> DefaultedObject:
    """``obj`` with only :data:`OUTLINE_FIELDS` and their positions, in ``source`` when
    given (its file with the text released, :meth:`SourceFile.released_copy`).

    A run keeps an outline of every TrainJob until its end, so it is made small: the
    positions in one tuple (:class:`OutlinePositions`), and the defaulted fields share
    every mapping they have in common with the loaded ones (a pickle keeps the sharing).
    """
    loaded = obj.loaded
    document = loaded.document
    written = _fields(loaded.data)
    outlined = replace(
        document,
        source=source or document.source,
        data=written,
        positions=OutlinePositions.of(document.positions),
    )
    return replace(
        obj,
        loaded=LoadedObject(
            outlined, loaded.api_version, loaded.kind, loaded.name, loaded.namespace
        ),
        data=_shared(_fields(obj.data), written),
    )


def _shared(value: JsonObject, like: JsonValue) -> JsonObject:
    """``value``, with each of its mappings that equals the one at the same place in
    ``like`` replaced by that one."""
    if value == like and isinstance(like, dict):
        return like
    if not isinstance(like, dict):
        return value
    return {
        key: _shared(inner, like.get(key)) if isinstance(inner, dict) else inner
        for key, inner in value.items()
    }


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


def share_strings(obj: DefaultedObject) -> None:
    """Make ``obj``'s outline hold the one copy of each of its keys and common values.

    An outline that crossed a pickle (from a worker, or read back from the cache) holds
    new strings, a copy of ``apiVersion``, ``metadata``, ``runtimeRef`` and the runtime's
    name for each TrainJob: about 0.7 KB a TrainJob for the whole run. The mappings are
    the outline's own (just unpickled, or made by :func:`outline`), so they are rebuilt in
    place with interned strings (:func:`sys.intern`); the TrainJob's name stays as it is.
    """
    _intern(obj.loaded.data)
    if obj.data is not obj.loaded.data:
        _intern(obj.data)


def _intern(data: dict[str, JsonValue], unique: str | None = None) -> None:
    """``data`` with interned keys and strings, but for the value at ``unique`` (the
    name in ``metadata``: each TrainJob's own)."""
    items = list(data.items())
    data.clear()
    for key, value in items:
        if isinstance(value, dict):
            _intern(value, "name" if key == "metadata" else None)
        common = isinstance(value, str) and key != unique
        data[sys.intern(key)] = sys.intern(value) if common else value  # type: ignore[arg-type]
