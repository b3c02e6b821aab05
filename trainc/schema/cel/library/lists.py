"""Kubernetes' lists library: ``isSorted``, ``sum``, ``min``, ``max`` of a list.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/lists.go.
Overloads are declared per element type as upstream's (so ``[1, 2].sum() + 1.0`` does
not compile), and a list whose items are of different types (a ``dyn`` list read from an
object) fails as upstream's adders and comparers do, with ``no such overload``.
Durations and timestamps: cel-expr-python cannot return them from Python, so ``sum``,
``min`` and ``max`` of such lists are not declared, and an expression using them is
reported as not evaluated. ``indexOf`` and ``lastIndexOf`` cannot be declared next to
the engine's string functions of the same names: not evaluated either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from trainc.schema.cel.library.declare import Function, Library, LibraryError, Overload

_SUMMABLE = ("int", "uint", "double")
_COMPARABLE = ("int", "uint", "double", "bool", "string", "bytes")
_SORTABLE = (*_COMPARABLE, "duration", "timestamp")


def _same_type(items: Sequence[object]) -> None:
    kinds = {type(item) for item in items}
    if len(kinds) > 1:
        raise LibraryError("no such overload")


def _is_sorted(items: Sequence[object]) -> bool:
    _same_type(items)
    return all(not (b < a) for a, b in pairwise(items))  # type: ignore[operator]


def _sum(zero: object) -> Callable[[Sequence[object]], object]:
    def total(items: Sequence[object]) -> object:
        _same_type(items)
        result = zero
        for item in items:
            result = result + item  # type: ignore[operator]
        return result

    return total


def _extreme(name: str, *, largest: bool) -> Callable[[Sequence[object]], object]:
    def pick(items: Sequence[object]) -> object:
        if not items:
            raise LibraryError(f"{name} called on empty list")
        _same_type(items)
        best = items[0]
        for item in items[1:]:
            if (item > best) if largest else (item < best):  # type: ignore[operator]
                best = item
        return best

    return pick


_ZEROS: dict[str, object] = {"int": 0, "uint": 0, "double": 0.0}

LISTS_LIBRARY = Library(
    "lists",
    (1, 0),
    (
        Function(
            "isSorted",
            tuple(
                Overload(
                    f"list_{t}_is_sorted_bool", (f"list({t})",), "bool", _is_sorted, member=True
                )
                for t in _SORTABLE
            ),
        ),
        Function(
            "sum",
            tuple(
                Overload(f"list_{t}_sum_{t}", (f"list({t})",), t, _sum(_ZEROS[t]), member=True)
                for t in _SUMMABLE
            ),
        ),
        Function(
            "max",
            tuple(
                Overload(
                    f"list_{t}_max_{t}",
                    (f"list({t})",),
                    t,
                    _extreme("max", largest=True),
                    member=True,
                )
                for t in _COMPARABLE
            ),
        ),
        Function(
            "min",
            tuple(
                Overload(
                    f"list_{t}_min_{t}",
                    (f"list({t})",),
                    t,
                    _extreme("min", largest=False),
                    member=True,
                )
                for t in _COMPARABLE
            ),
        ),
    ),
)
