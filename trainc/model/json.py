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

#: A path while a walk builds it: None at the start, else (the parent's chain, the key).
#: A walk over every node of an object adds a pair per step instead of copying a
#: growing tuple, and makes a :data:`FieldPath` (:func:`chain_path`) only where it
#: reports something.
PathChain: TypeAlias = tuple["PathChain", str | int] | None

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


def chain_path(chain: PathChain) -> FieldPath:
    """The path a :data:`PathChain` stands for."""
    keys: list[str | int] = []
    while chain is not None:
        chain, key = chain
        keys.append(key)
    return tuple(reversed(keys))


def has_path(value: JsonValue, path: Sequence[str | int]) -> bool:
    """Whether ``path`` leads to a value (a null one included), where :func:`get_path`
    cannot tell a missing field from a null."""
    return not isinstance(_follow(value, path), _Absent)


class _Absent:
    """What a path that leaves the value leads to."""


_ABSENT = _Absent()


def _follow(value: JsonValue, path: Sequence[str | int]) -> JsonValue | _Absent:
    current: JsonValue | _Absent = value
    for part in path:
        if isinstance(current, _Absent):
            break
        current = _step(current, part)
    return current


def _step(node: JsonValue, part: str | int) -> JsonValue | _Absent:
    if isinstance(part, int):
        return node[part] if isinstance(node, list) and 0 <= part < len(node) else _ABSENT
    return node[part] if isinstance(node, dict) and part in node else _ABSENT


_STEP = re.compile(r"\[([^\]]*)\]|\.?([^.\[\]]+)")


def parse_path(text: str) -> FieldPath:
    """The path :func:`format_path` renders, read back: ``spec.jobs[0].labels[a.b/c]``
    gives ``("spec", "jobs", 0, "labels", "a.b/c")``. A bracketed number is a list index.

    Raises ValueError for text that is no path (empty, unbalanced brackets, ``a..b``).
    """
    path: list[str | int] = []
    position = 0
    while position < len(text):
        match = _STEP.match(text, position)
        if match is None or (match.group(2) is not None and path == [] and text[0] == "."):
            raise ValueError(f"not a field path: {text!r}")
        bracketed, plain = match.groups()
        if bracketed is not None:
            path.append(int(bracketed) if bracketed.isdigit() else bracketed)
        else:
            path.append(plain)
        position = match.end()
    if not path:
        raise ValueError(f"not a field path: {text!r}")
    return tuple(path)


def get_path(value: JsonValue, path: Sequence[str | int]) -> JsonValue:
    """The value at ``path``, or None when any step is missing or of the wrong shape.

    A null on the way ends the walk as a missing step does. Written as one loop, not
    over :func:`_step`: resolving and checking each TrainJob reads hundreds of paths.
    """
    current = value
    for part in path:
        if isinstance(part, int):
            if not isinstance(current, list) or not 0 <= part < len(current):
                return None
            current = current[part]
        elif isinstance(current, dict):
            current = current.get(part)
            if current is None:
                return None
        else:
            return None
    return current


def held_prefix(value: JsonValue, path: FieldPath) -> FieldPath:
    """The longest start of ``path`` that ``value`` holds: where a finding about a value
    that is not there goes (the node that would hold it)."""
    current: JsonValue = value
    for end, part in enumerate(path):
        found = _step(current, part)
        if isinstance(found, _Absent):
            return path[:end]
        current = found
    return path


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
