"""How a library describes its functions: names, typed overloads, Python implementations.

Types are CEL type signatures (``string``, ``list(int)``, ``map(string, list(string))``)
or the name of one of the libraries' own types (:data:`.values.OPAQUE_TYPES`); the
adapter declares them to the engine. Implementations take and return plain Python
values; an opaque value is a tagged map (:mod:`.values`).
"""

from __future__ import annotations

from collections.abc import Callable

from trainc.records import dataclass

#: A Kubernetes release as (major, minor).
Release = tuple[int, int]


#: How an error starts when trainc, not the expression, is the reason it cannot be evaluated.
UNSUPPORTED = "trainc cannot evaluate"


class LibraryError(Exception):
    """A library function's runtime error, worded as the API server's library words it."""


@dataclass(frozen=True, slots=True)
class Overload:
    """One signature of a function; a member overload's first parameter is its receiver."""

    id: str
    params: tuple[str, ...]
    result: str
    impl: Callable[..., object]
    member: bool = False


@dataclass(frozen=True, slots=True)
class Function:
    """A function by name (``quantity``, ``ip.isCanonical``) and its overloads."""

    name: str
    overloads: tuple[Overload, ...]


@dataclass(frozen=True, slots=True)
class Library:
    """A library and the first release whose API server offers it."""

    name: str
    introduced: Release
    functions: tuple[Function, ...]
    rewrite: Callable[[str], str] | None = None
    """Applied to an expression before it is compiled, where a function cannot be
    declared as upstream declares it (the format library's optionals)."""
    fallback: Callable[[str], str] | None = None
    """Applied only to an expression that does not compile as written, which is then
    compiled again (a list's ``indexOf``, whose name the engine's strings extension holds)."""


def member(
    name: str, overload_id: str, params: tuple[str, ...], result: str, impl: Callable[..., object]
) -> Function:
    """A function with one member overload."""
    return Function(name, (Overload(overload_id, params, result, impl, member=True),))


def global_function(
    name: str, overload_id: str, params: tuple[str, ...], result: str, impl: Callable[..., object]
) -> Function:
    """A function with one global overload."""
    return Function(name, (Overload(overload_id, params, result, impl),))


def succeeds(convert: Callable[..., object]) -> Callable[..., bool]:
    """``isX`` of a library's ``x``: true exactly when ``x`` does not fail (upstream's
    own definition of ``isQuantity``, ``isIP``, ``isCIDR``, ``isSemver``)."""

    def test(*args: object) -> bool:
        try:
            convert(*args)
        except LibraryError:
            return False
        return True

    return test
