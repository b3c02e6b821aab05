"""What changed between the old and new value of a failed transition rule, in one line.

The API server says only "field is immutable"; with a whole pod spec under the rule,
the user also needs to know which field differs. The values compared are the ones the
rule saw (typed and, for sets and map lists, in canonical order).
"""

from __future__ import annotations

import json
from typing import Final

from trainc.diagnostics import counted
from trainc.model.json import FieldPath, format_path
from trainc.schema.cel.values import unescape

_SHOWN = 60
_UNSET: Final = object()


def describe_change(old: object, new: object, path: FieldPath = ()) -> str:
    """The first difference between two values at ``path``, each side shortened.

    For example ``changed spec.trainer.image: "a:1" → "a:2"``.
    """
    difference = _first_difference(old, new, path)
    if difference is None:
        return _located("changed", path)
    where, before, after = difference
    return f"{_located('changed', where)}: {before} → {after}"


def difference_path(old: object, new: object, path: FieldPath = ()) -> FieldPath | None:
    """Where two values first differ, below ``path``; None when they are equal.

    Lists of different lengths, and values of different types, differ at their own path.
    """
    difference = _first_difference(old, new, path)
    return difference[0] if difference is not None else None


def _located(text: str, path: FieldPath) -> str:
    where = format_path(path)
    return f"{text} {where}" if where else text


def _first_difference(
    old: object, new: object, path: FieldPath
) -> tuple[FieldPath, str, str] | None:
    if isinstance(old, dict) and isinstance(new, dict):
        return _dict_difference(old, new, path)
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            found = _first_difference(before, after, (*path, index))
            if found is not None:
                return found
        return None
    if old == new:
        return None
    return path, _short(old), _short(new)


def _dict_difference(
    old: dict[object, object], new: dict[object, object], path: FieldPath
) -> tuple[FieldPath, str, str] | None:
    """The first differing property, named as the user wrote it (escapes undone)."""
    seen: set[str] = set()
    for key in [*old, *(k for k in new if k not in old)]:
        name = unescape(str(key))
        if name in seen:
            continue  # a reserved word's second key, already compared
        seen.add(name)
        found = _first_difference(old.get(key, _UNSET), new.get(key, _UNSET), (*path, name))
        if found is not None:
            return found
    return None


def _short(value: object) -> str:
    if value is _UNSET:
        return "(unset)"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    if len(text) <= _SHOWN:
        return text
    if isinstance(value, list):
        return counted(len(value), "item")
    return text[: _SHOWN - 1] + "…"
