"""Plain JSON-shaped data as loaded from YAML, and paths into it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias, overload

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]
JsonArray: TypeAlias = list[JsonValue]

#: A path into a document: mapping keys are strings, sequence indexes are ints.
FieldPath: TypeAlias = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_path(path: Sequence[str | int]) -> str:
    """Render a path the way kubectl and the API server do.

    ``("spec", "replicatedJobs", 0, "name")`` becomes ``spec.replicatedJobs[0].name``;
    keys that are not identifiers (label keys) are bracketed:
    ``metadata.labels[app.kubernetes.io/name]``.
    """
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _PLAIN_KEY.match(part):
            out.append(f".{part}" if out else part)
        else:
            out.append(f"[{part}]")
    return "".join(out)


def get_path(value: JsonValue, path: Sequence[str | int]) -> JsonValue:
    """The value at ``path``, or None when any step is missing or of the wrong shape."""
    current = value
    for part in path:
        if isinstance(part, int):
            if not isinstance(current, list) or not 0 <= part < len(current):
                return None
            current = current[part]
        else:
            if not isinstance(current, dict) or part not in current:
                return None
            current = current[part]
    return current


def as_object(value: JsonValue) -> JsonObject:
    """``value`` if it is a mapping, else an empty one (for tolerant lookups)."""
    return value if isinstance(value, dict) else {}


def as_list(value: JsonValue) -> JsonArray:
    """``value`` if it is a list, else an empty one (for tolerant lookups)."""
    return value if isinstance(value, list) else []


@overload
def copy_json(value: JsonObject) -> JsonObject: ...


@overload
def copy_json(value: JsonArray) -> JsonArray: ...


@overload
def copy_json(value: JsonValue) -> JsonValue: ...


def copy_json(value: JsonValue) -> JsonValue:
    """A deep copy of JSON-shaped data: new dicts and lists, scalars shared (immutable).

    Several times faster than :func:`copy.deepcopy`, which keeps a memo for shared and
    cyclic references that plain JSON data cannot have.
    """
    if isinstance(value, dict):
        return {
            key: copy_json(item) if isinstance(item, dict | list) else item
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [copy_json(item) if isinstance(item, dict | list) else item for item in value]
    return value
