"""What part of a variable's value an expression can read, so the engine gets only that.

cel-cpp converts every bound value in full before evaluating, at a cost in proportion to
its size, while most rules read a few fields of a large value: the TrainJob's root rules
read ``metadata.name``, the JobSet's ``spec`` rule reads ``startupPolicy`` and each
``replicatedJobs`` item's ``dependsOn``. This module finds, from an expression's tokens,
the paths it selects from a variable, so that :mod:`.values` converts only those.

Why a value cut down to those paths gives the same results, errors and messages: CEL has
no reflection, so an expression observes a value only through the operations it applies
to it. When every occurrence of the variable starts a selection chain (``self.a.b``,
also inside ``has()``) and each chain ends in anything but a further selection, the
expression depends only on the values at the ends of the chains, and on whether the
fields along them are present; a value keeping exactly those fields (each chain's end
whole) answers every one of those operations as the full value does. The one construct
followed further is a comprehension macro with one iteration variable (``all``,
``exists``, ``exists_one``, ``map``) called on a chain: its result depends on the number
of items and on what the body reads of each item through the variable. Anything else
(indexing, ``.?``, a function or method receiving the value, ``filter``, two-variable
comprehensions, the variable used bare) reads the whole value at that point. The
analysis can only over-approximate: when in doubt, it reads more.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, TypeAlias

from trainc.model.json import JsonValue
from trainc.schema.cel.cost import Token, tokens

#: The fields read below a value, by CEL identifier; None: the whole value.
Reads: TypeAlias = Mapping[str, "Reads"] | None

#: Key of :data:`Reads` for what a comprehension reads of each item of a list.
ITEMS: Final = "[]"

_MACROS = frozenset({"all", "exists", "exists_one", "map"})
_OPENING = frozenset({"(", "[", "{"})
_CLOSING = frozenset({")", "]", "}"})


@functools.cache
def reads(expression: str, variable: str) -> Reads:
    """What ``expression`` reads of ``variable``'s value (an empty mapping: nothing)."""
    found = tokens(expression)
    return _reads_in(found, 0, len(found), variable)


def union(first: Reads, second: Reads) -> Reads:
    """Everything either of two reads needs."""
    if first is None or second is None:
        return None
    merged = dict(first)
    for key, below in second.items():
        merged[key] = union(merged[key], below) if key in merged else below
    return merged


def is_read(read: Reads) -> bool:
    """True when anything is read: the whole value (None) or some field of it."""
    return read is None or bool(read)


def _reads_in(found: Sequence[Token], start: int, end: int, variable: str) -> Reads:
    """Union of what the uses of ``variable`` among ``found[start:end]`` read."""
    result: Reads = {}
    for index in range(start, end):
        kind, text = found[index]
        if kind == "word" and text == variable and (index == 0 or found[index - 1][1] != "."):
            result = union(result, _chain(found, index + 1, end))
            if result is None:
                break
    return result


def _chain(found: Sequence[Token], index: int, end: int) -> Reads:
    """What one use reads: its selection chain starts at ``found[index]``."""
    path: list[str] = []
    while index + 1 < end and found[index][1] == "." and found[index + 1][0] == "word":
        name = found[index + 1][1]
        if index + 2 < end and found[index + 2][1] == "(":
            # A method on the chain so far: a macro is followed, anything else takes it whole.
            return _nested(path, _macro(found, index + 2, end) if name in _MACROS else None)
        path.append(name)
        index += 2
    return _nested(path, None)


def _nested(path: list[str], leaf: Reads) -> Reads:
    result = leaf
    for name in reversed(path):
        result = {name: result}
    return result


def _macro(found: Sequence[Token], opening: int, end: int) -> Reads:
    """What the macro whose arguments open at ``found[opening]`` reads of its range."""
    closing = _matching(found, opening, end)
    if closing is None or opening + 3 > closing:
        return None
    kind, variable = found[opening + 1]
    if kind != "word" or found[opening + 2][1] != ",":
        return None
    if _top_level_comma(found, opening + 3, closing):
        return None  # a two-variable comprehension, or map() with a filter
    return {ITEMS: _reads_in(found, opening + 3, closing, variable)}


def _depths(found: Sequence[Token], start: int, end: int) -> Iterator[tuple[int, int, str]]:
    """Each token from ``start`` to ``end`` with the bracket depth after it is read."""
    depth = 0
    for index in range(start, end):
        text = found[index][1]
        if text in _OPENING:
            depth += 1
        elif text in _CLOSING:
            depth -= 1
        yield index, depth, text


def _matching(found: Sequence[Token], opening: int, end: int) -> int | None:
    """Index of the bracket closing the one at ``found[opening]``."""
    for index, depth, text in _depths(found, opening, end):
        if depth == 0 and text in _CLOSING:
            return index
    return None


def _top_level_comma(found: Sequence[Token], start: int, end: int) -> bool:
    return any(depth == 0 and text == "," for _, depth, text in _depths(found, start, end))


def project(value: JsonValue, read: Reads) -> JsonValue:
    """``value`` cut down to what is ``read`` of it, for data bound with its own keys.

    This is for values whose CEL names are their keys (policies bind objects as loaded);
    a schema-typed value is cut while it is converted (:mod:`.values`). Only dicts are
    cut (keeping their order); a list is cut item by item under :data:`ITEMS`, and kept
    whole otherwise. The result shares everything it keeps with ``value``.
    """
    if read is None or not isinstance(value, dict | list):
        return value
    if isinstance(value, list):
        below = read.get(ITEMS)
        return value if below is None else [project(item, below) for item in value]
    if ITEMS in read:
        return value  # a comprehension over the keys
    return {key: project(item, read[key]) for key, item in value.items() if key in read}
