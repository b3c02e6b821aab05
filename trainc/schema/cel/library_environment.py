"""Kubernetes' CEL libraries declared to the engine (the second half of the adapter
:mod:`trainc.schema.cel.engine`), for an expression that names them.

The engine type-checks a library's own types (``kubernetes.Quantity``, ``net.IP``, ...)
as opaque types but cannot hold a value of one, so such an expression is compiled twice
over: type-checked in a *checking* environment that declares the real signatures, then
loaded into a *running* environment whose implementations take those values as tagged
maps (:mod:`trainc.schema.cel.library.values`), one Python function per name and argument
kinds, choosing the overload by the values' tags. Where a function cannot be declared as
upstream declares it, a library rewrites the expression before compiling (the format
library's optionals) or, if it does not compile as written, once more (a list's
``indexOf``, a name the strings extension holds). The signatures left (``string(ip)``,
``sum`` of durations) raise :class:`~trainc.schema.cel.engine.CelUnsupportedError`, so
that callers report the expression as not evaluated rather than as broken.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from cel_expr_python import cel

from trainc.schema.cel.engine import CelCompileError, CelUnsupportedError, compile_message
from trainc.schema.cel.library.declare import Library, Overload, Release
from trainc.schema.cel.library.offered import PUBLIC_NAMES, libraries_at
from trainc.schema.cel.library.values import OPAQUE_TYPES, is_a

#: Compile errors that come from a library signature trainc cannot declare.
_UNDECLARABLE = re.compile(
    r"found no matching overload for 'string' applied to '\((?:net\.IP|net\.CIDR)\)"
    r"|found no matching overload for '(?:sum|min|max)' applied to "
    r"'\(list\((?:google\.protobuf\.Duration|google\.protobuf\.Timestamp)\)"
)


@functools.cache
def _environments(config: cel.EnvConfig, release: Release | None) -> tuple[cel.Env, cel.Env]:
    """The checking and the running environment of ``config`` at ``release``."""
    libraries = libraries_at(release)
    checking = cel.NewEnv(config=config, functions=_checking_declarations(libraries))
    running = cel.NewEnv(config=config, functions=_running_declarations(libraries))
    return checking, running


def compile_with_libraries(
    expression: str, config: cel.EnvConfig, release: Release | None
) -> cel.Expression:
    """``expression`` type-checked with the libraries' real signatures, then loaded into
    the environment that runs their implementations on tagged values."""
    checking, running = _environments(config, release)
    for library in libraries_at(release):
        if library.rewrite is not None:
            expression = library.rewrite(expression)
    try:
        checked = checking.compile(expression)
    except RuntimeError as error:
        checked = _compile_fallback(checking, expression, release)
        if checked is None:
            message = _public_names(compile_message(str(error)))
            if _UNDECLARABLE.search(message):
                raise CelUnsupportedError(message) from error
            raise CelCompileError(message) from error
    return running.deserialize(checked.serialize())


def _compile_fallback(
    checking: cel.Env, expression: str, release: Release | None
) -> cel.Expression | None:
    """``expression`` compiled after the libraries' fallback rewrites, if that compiles."""
    rewritten = expression
    for library in libraries_at(release):
        if library.fallback is not None:
            rewritten = library.fallback(rewritten)
    if rewritten == expression:
        return None
    try:
        return checking.compile(rewritten)
    except RuntimeError:
        return None


def _by_name(libraries: Sequence[Library]) -> dict[str, list[Overload]]:
    """Every overload by function name: two libraries may share one (``ip``, ``compareTo``)."""
    named: dict[str, list[Overload]] = defaultdict(list)
    for library in libraries:
        for function in library.functions:
            named[function.name].extend(function.overloads)
    return named


def _checking_declarations(libraries: Sequence[Library]) -> list[cel.FunctionDecl]:
    return [
        cel.FunctionDecl(
            name,
            [
                cel.Overload(
                    overload.id,
                    _checking_type(overload.result),
                    [_checking_type(param) for param in overload.params],
                    is_member=overload.member,
                )
                for overload in overloads
            ],
        )
        for name, overloads in sorted(_by_name(libraries).items())
    ]


_PRIMITIVES = {
    "bool": cel.Type.BOOL,
    "bytes": cel.Type.BYTES,
    "double": cel.Type.DOUBLE,
    "duration": cel.Type.DURATION,
    "dyn": cel.Type.DYN,
    "int": cel.Type.INT,
    "string": cel.Type.STRING,
    "timestamp": cel.Type.TIMESTAMP,
    "uint": cel.Type.UINT,
}


def _checking_type(signature: str) -> cel.Type:
    """The engine's type for a library signature: ``list(int)``, ``map(string, list(string))``."""
    if signature in OPAQUE_TYPES:
        return cel.Type.AbstractType(signature)
    if signature.startswith("list("):
        return cel.Type.List(_checking_type(signature[5:-1]))
    if signature.startswith("map("):
        key, _, value = signature[4:-1].partition(", ")
        return cel.Type.Map(_checking_type(key), _checking_type(value))
    return _PRIMITIVES[signature]


def _running_declarations(libraries: Sequence[Library]) -> list[cel.FunctionDecl]:
    """One implementation per name, receiver style and argument kinds, as cel-cpp dispatches."""
    declarations = []
    for name, overloads in sorted(_by_name(libraries).items()):
        groups: dict[tuple[bool, tuple[str, ...]], list[Overload]] = defaultdict(list)
        for overload in overloads:
            for kinds in itertools.product(*(_kinds(param) for param in overload.params)):
                groups[overload.member, kinds].append(overload)
        declarations.append(
            cel.FunctionDecl(
                name,
                [
                    cel.Overload(
                        f"{group[0].id}({', '.join(kinds)})",
                        cel.Type.DYN,
                        [_KINDS[kind] for kind in kinds],
                        is_member=member,
                        impl=_dispatch(group),
                    )
                    for (member, kinds), group in groups.items()
                ],
            )
        )
    return declarations


def _kinds(signature: str) -> tuple[str, ...]:
    """The runtime kinds a value of ``signature`` may have in the running environment
    (cel-cpp dispatches on them; its ``dyn`` matches no argument at run time)."""
    if signature in OPAQUE_TYPES or signature.startswith("map("):
        return ("map",)
    if signature.startswith("list("):
        return ("list",)
    if signature == "dyn":
        return tuple(kind for kind in _KINDS if kind != "dyn")
    return (signature,)


_KINDS = {**_PRIMITIVES, "list": cel.Type.LIST, "map": cel.Type.MAP, "null": cel.Type.NULL}


def _dispatch(overloads: Sequence[Overload]) -> Callable[..., object]:
    """The implementation of the first overload whose library-typed arguments carry its tags."""
    if len(overloads) == 1:
        return overloads[0].impl

    def call(*args: object) -> object:
        for overload in overloads:
            if all(
                is_a(arg, param)
                for arg, param in zip(args, overload.params, strict=True)
                if param in OPAQUE_TYPES
            ):
                return overload.impl(*args)
        return overloads[0].impl(*args)

    return call


def _public_names(message: str) -> str:
    """``message`` with the names the rewrites gave functions back to upstream's."""
    for private, public in PUBLIC_NAMES.items():
        message = message.replace(private, public)
    return message
