"""Edits that turn an old spelling into the current one, as data: one description, two uses.

A migration (:mod:`trainc.schema.migrations`) says what becomes what as a few edits of
the object as written. ``trainc validate`` renders them into the hint of its finding
(:func:`describe`); ``trainc migrate`` applies them to the YAML tree of the file, comments
and all (:mod:`trainc.migrate.apply`). So the hint a user reads and the rewrite the tool
makes cannot drift apart.

Paths are relative to the object. A :class:`Ref` in a new value stands for the subtree at
its path: the rewrite moves that node (its comments travel with it) rather than writing a
copy, and a hint shows it shortened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TypeAlias

from trainc.model.json import FieldPath, JsonScalar, JsonValue, get_path
from trainc.records import dataclass

_ELIDED = "…"
#: Plain words YAML 1.1 readers (kubectl's among them) take for booleans or null.
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null"})


@dataclass(frozen=True, slots=True)
class Ref:
    """The subtree the object holds at ``path``, moved to where the Ref stands."""

    path: FieldPath


Template: TypeAlias = JsonScalar | Ref | list["Template"] | dict[str, "Template"]


@dataclass(frozen=True, slots=True)
class Set:
    """Write ``value`` at ``path``, creating the mappings above it.

    With ``replaces``, the field there is deleted and the new field takes its place in its
    mapping (a move); a field already at ``path`` is then a conflict, never overwritten.
    Without, the value at ``path`` is replaced where it stands.
    """

    path: FieldPath
    value: Template
    replaces: FieldPath | None = None


@dataclass(frozen=True, slots=True)
class Delete:
    """Remove the field at ``path``."""

    path: FieldPath


@dataclass(frozen=True, slots=True)
class Rename:
    """Give the field at ``path`` the name ``key``, in place, keeping its value."""

    path: FieldPath
    key: str


@dataclass(frozen=True, slots=True)
class AddEntry:
    """Add to the list at ``path`` the entry whose ``key`` field is ``name``; delete ``replaces``.

    The entry holds ``fields`` besides its key. Entries several edits of one object add
    under the same name become one entry with their fields merged; an entry of that name
    already in the list is a conflict (the list is keyed by it).
    """

    path: FieldPath
    key: str
    name: str
    fields: dict[str, Template]
    replaces: FieldPath


Edit: TypeAlias = Set | Delete | Rename | AddEntry


def written_path(edit: Edit) -> FieldPath | None:
    """The field ``edit`` writes a value to (None for a deletion)."""
    match edit:
        case Set(path=path) | AddEntry(path=path):
            return path
        case Rename(path=path, key=key):
            return (*path[:-1], key)
        case Delete():
            return None


def describe(edits: Sequence[Edit], data: JsonValue) -> str:
    """What ``edits`` do to ``data``, in the words of a finding's hint."""
    return "; ".join(_describe(edit, data) for edit in edits)


def _describe(edit: Edit, data: JsonValue) -> str:
    match edit:
        case Set(path=path, value=value, replaces=None):
            return f"set {path[-1]}: {_flow(_shown(value, data))}"
        case Set(path=path, value=value):
            nested: JsonValue = _shown(value, data)
            for key in reversed(path[1:]):
                nested = {str(key): nested}
            return f"move it: {path[0]}: {_flow(nested)}"
        case Delete():
            return "delete the field"
        case Rename(path=path, key=key):
            return f"rename {path[-1]} to {key}"
        case AddEntry(path=path, key=key, name=name, fields=fields):
            entry = _shown({key: name, **fields}, data)
            return f"write {path[-1]}: [{_flow(entry)}]"


def _shown(value: Template, data: JsonValue) -> JsonValue:
    """``value`` with each Ref replaced by the subtree it names, one level deep."""
    if isinstance(value, Ref):
        return _elide(get_path(data, value.path))
    if isinstance(value, dict):
        return {key: _shown(item, data) for key, item in value.items()}
    if isinstance(value, list):
        return [_shown(item, data) for item in value]
    return value


def _elide(value: JsonValue, *, depth: int = 1) -> JsonValue:
    """``value`` with its scalars and everything ``depth`` levels down shown as ``…``."""
    if isinstance(value, list):
        return _ELIDED
    if not isinstance(value, dict):
        return value
    if depth == 0:
        return _ELIDED
    return {key: _elide(item, depth=depth - 1) for key, item in value.items()}


def _flow(value: JsonValue) -> str:
    """``value`` as one line of YAML flow style that reads back as the same data."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(key)}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    if isinstance(value, str) and (value == _ELIDED or _plain(value)):
        return value
    return json.dumps(value, ensure_ascii=False)


def _plain(text: str) -> bool:
    """True when ``text`` needs no quotes: it starts with a letter and reads as no bool or null."""
    return (
        bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_./:-]*", text)) and text.lower() not in _YAML_WORDS
    )
