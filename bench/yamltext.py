"""Hand-written-looking block YAML for the generator's input files.

The synthetic repository should read like one people write: block mappings, indented
sequences, short argument lists in flow style, comments on top. trainc's own emitter is
the thing being measured (and writes no comments), and PyYAML is only a bench dependency
of the floor, so the generator serialises its plain data here. Every string that is not
unmistakably a plain string in both YAML 1.1 (PyYAML, check-jsonschema's loaders) and
YAML 1.2 (ruamel) is written double-quoted, JSON-escaped, which both read the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TypeAlias

#: A value to write. Tuples are flow sequences of plain strings (``command: [torchrun,
#: train.py]``), as people write short argument lists; other sequences are block sequences.
Node: TypeAlias = "str | int | Mapping[str, Node] | Sequence[Node]"

# Letters first (or dashes before letters, for CLI flags), and no character that is an
# indicator anywhere in a plain scalar; ':' is safe in block context only (no ': ').
_PLAIN = re.compile(r"(--?)?[A-Za-z/][A-Za-z0-9_./@+=:-]*")
_PLAIN_IN_FLOW = re.compile(r"(--?)?[A-Za-z/][A-Za-z0-9_./@+=-]*")
# Words YAML 1.1 reads as booleans or null; numbers are excluded by the letter-first rule.
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def render(document: Mapping[str, Node], *, comment: str = "") -> str:
    """One YAML document: ``comment`` as ``#`` lines on top, then the block mapping."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines.extend(_mapping(document, 0))
    return "\n".join(lines) + "\n"


def _scalar(value: str | int, *, flow: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    pattern = _PLAIN_IN_FLOW if flow else _PLAIN
    if pattern.fullmatch(value) and value.lower() not in _RESERVED and not value.endswith(":"):
        return value
    return json.dumps(value)


def _inline(value: Node) -> str:
    """The text of a scalar, a flow sequence or an empty collection, after ``key: ``/``- ``."""
    if isinstance(value, str | int):
        return _scalar(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_scalar(str(item), flow=True) for item in value) + "]"
    return "{}" if isinstance(value, Mapping) else "[]"


def _nested(value: Node, indent: int) -> list[str] | None:
    """The lines of a nested block at ``indent``; None for what :func:`_inline` writes."""
    if isinstance(value, str | int | tuple) or not value:
        return None
    if isinstance(value, Mapping):
        return _mapping(value, indent)
    return _sequence(value, indent)


def _mapping(value: Mapping[str, Node], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for key, item in value.items():
        nested = _nested(item, indent + 2)
        if nested is None:
            lines.append(f"{pad}{key}: {_inline(item)}")
        else:
            lines.append(f"{pad}{key}:")
            lines.extend(nested)
    return lines


def _sequence(value: Sequence[Node], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for item in value:
        nested = _nested(item, indent + 2)
        if nested is None:
            lines.append(f"{pad}- {_inline(item)}")
        else:
            # The first line of the nested block moves up beside the dash.
            lines.append(f"{pad}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
    return lines
