"""Kubernetes' lists library: ``isSorted``, ``sum``, ``min``, ``max`` of a list.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/lists.go.
Overloads are declared per element type as upstream's (so ``[1, 2].sum() + 1.0`` does
not compile), and a list whose items are of different types (a ``dyn`` list read from an
object) fails as upstream's adders and comparers do, with ``no such overload``.
Durations and timestamps: cel-expr-python cannot return them from Python, so ``sum``,
``min`` and ``max`` of such lists are not declared, and an expression using them is
reported as not evaluated.

``indexOf`` and ``lastIndexOf`` cannot be declared next to the engine's string functions
of the same names. An expression that calls them on a list does not compile as written;
only then :func:`rewrite_index_of` renames every such call to private functions that
serve lists and strings alike (the strings extension's semantics: code-point indexes, an
offset out of range is an error), and the expression is compiled again. cel-expr-python
has no type parameters, so the list overload takes ``list(dyn)`` and any item: searching
a list of ints for a string gives -1 here where upstream fails to compile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from trainc.schema.cel.cost import token_spans
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

INDEX_OF = "__trainc_indexOf__"
LAST_INDEX_OF = "__trainc_lastIndexOf__"
#: The private names :func:`rewrite_index_of` calls, and the names upstream's messages use.
PUBLIC_NAMES = {INDEX_OF: "indexOf", LAST_INDEX_OF: "lastIndexOf"}
_PRIVATE = {public: private for private, public in PUBLIC_NAMES.items()}


def rewrite_index_of(expression: str) -> str:
    """``expression`` with each ``.indexOf(`` and ``.lastIndexOf(`` call renamed."""
    spans = token_spans(expression)
    for index in reversed(range(1, len(spans) - 1)):
        kind, text, start = spans[index]
        if (
            kind == "word"
            and text in _PRIVATE
            and spans[index - 1][1] == "."
            and spans[index + 1][1] == "("
        ):
            expression = expression[:start] + _PRIVATE[text] + expression[start + len(text) :]
    return expression


def cel_equal(a: object, b: object) -> bool:
    """CEL's ``==``: numbers across int, uint and double, never a bool with a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(cel_equal(a[key], b[key]) for key in a)
    return type(a) is type(b) and a == b


def _offset(text: str, offset: int) -> int:
    if not 0 <= offset <= len(text):
        raise LibraryError(f"index out of range: {offset}")
    return offset


def _index_of(target: object, item: object, offset: int | None = None) -> int:
    if isinstance(target, str) and isinstance(item, str):
        start = 0 if offset is None else _offset(target, offset)
        return target.find(item, start)
    if isinstance(target, list):
        return next((i for i, value in enumerate(target) if cel_equal(value, item)), -1)
    raise LibraryError("no such overload")


def _last_index_of(target: object, item: object, offset: int | None = None) -> int:
    if isinstance(target, str) and isinstance(item, str):
        end = len(target) if offset is None else _offset(target, offset)
        return target.rfind(item, 0, end + len(item))
    if isinstance(target, list):
        found = [i for i, value in enumerate(target) if cel_equal(value, item)]
        return found[-1] if found else -1
    raise LibraryError("no such overload")


def _extremes(name: str, *, largest: bool) -> Function:
    """``min`` or ``max`` of a list of any comparable type."""
    pick = _extreme(name, largest=largest)
    return Function(
        name,
        tuple(
            Overload(f"list_{t}_{name}_{t}", (f"list({t})",), t, pick, member=True)
            for t in _COMPARABLE
        ),
    )


def _searches(name: str, impl: Callable[..., int]) -> Function:
    """``name`` over strings (with and without offset) and over lists of any items."""
    return Function(
        name,
        (
            Overload(f"{name}_string", ("string", "string"), "int", impl, member=True),
            Overload(f"{name}_string_int", ("string", "string", "int"), "int", impl, member=True),
            Overload(f"{name}_list", ("list(dyn)", "dyn"), "int", impl, member=True),
        ),
    )


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
        _extremes("max", largest=True),
        _extremes("min", largest=False),
        _searches(INDEX_OF, _index_of),
        _searches(LAST_INDEX_OF, _last_index_of),
    ),
    fallback=rewrite_index_of,
)
