"""The one adapter around the CEL engine (``cel-expr-python``, Google's cel-cpp).

Everything else in trainc sees :class:`Program` and :class:`EvalError`, never the
engine's types, so the engine can be swapped without touching the validation layers.
The environment mirrors what the Kubernetes API server compiles rules with
(https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go):
optional types, sets, strings v2 and two-variable
comprehensions; ``cel.bind`` and cel-cpp's own ``lists`` extension are left out because
Kubernetes does not offer them.

Two engine facts shape this adapter (https://github.com/cel-expr/cel-python): a Python value can
never be a CEL optional, so a variable Kubernetes binds as ``optional`` (``oldSelf`` under
``optionalOldSelf``) is passed as a list of zero or one item and re-wrapped inside the
expression; and cel-cpp stops any one evaluation after :data:`ITERATION_LIMIT`
comprehension iterations, which is reported as such rather than as a broken rule.

Kubernetes' own CEL libraries (quantity, IP, CIDR, URL, regex, lists, semver, format:
:mod:`trainc.schema.cel.library`) are offered by release, as base.go does: an expression
is compiled for a ``release`` and a function that release lacks does not compile. The
engine type-checks a library's own types (``kubernetes.Quantity``, ``net.IP``, ...) as
opaque types but cannot hold a value of one, so every expression is compiled twice over:
type-checked in a *checking* environment that declares the real signatures, then loaded
into a *running* environment whose implementations take those values as tagged maps
(:mod:`trainc.schema.cel.library.values`), one Python function per name and argument
kinds, choosing the overload by the values' tags. Where a function cannot be declared
as upstream declares it, a library rewrites the expression before compiling (the format
library's optionals) or, if it does not compile as written, once more (a list's
``indexOf``, a name the strings extension holds). The signatures left (``string(ip)``,
``sum`` of durations) raise :class:`CelUnsupportedError`, so that callers report the
expression as not evaluated rather than as broken.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from cel_expr_python import cel

from trainc.model.json import JsonValue
from trainc.schema.cel.library import (
    OPAQUE_TYPES,
    PUBLIC_NAMES,
    UNSUPPORTED,
    Library,
    Overload,
    Release,
    libraries_at,
)
from trainc.schema.cel.library.values import is_a

_EXTENSIONS_YAML = """\
extensions:
  - name: optional
  - name: sets
  - name: strings
    version: 2
  - name: two-var-comprehensions
"""


#: Comprehension iterations cel-cpp performs in one evaluation before giving up (its
#: ``comprehension_max_iterations`` default, not configurable through cel-expr-python).
ITERATION_LIMIT: Final = 10_000

_ITERATION_MESSAGE = "Iteration budget exceeded"


class _Absent:
    """Type of :data:`ABSENT`."""

    def __repr__(self) -> str:
        return "ABSENT"


#: Bind an optional variable to this to make it ``optional.none()``.
ABSENT: Final = _Absent()


class CelCompileError(Exception):
    """An expression does not parse or does not type-check in the Kubernetes environment."""


class CelUnsupportedError(CelCompileError):
    """An expression the API server compiles, using a library signature the engine cannot
    declare (``string(ip)``, ``sum`` of durations)."""


#: Compile errors that come from a library signature trainc cannot declare.
_UNDECLARABLE = re.compile(
    r"found no matching overload for 'string' applied to '\((?:net\.IP|net\.CIDR)\)"
    r"|found no matching overload for '(?:sum|min|max)' applied to "
    r"'\(list\((?:google\.protobuf\.Duration|google\.protobuf\.Timestamp)\)"
)


@dataclass(frozen=True, slots=True)
class EvalError:
    """A rule that could not be evaluated (missing field, no such overload, ...).

    Kubernetes treats this as a validation failure with an error message rather than
    the rule's own message, and so does trainc.
    """

    message: str
    iteration_limit: bool = False
    """True when the engine stopped at :data:`ITERATION_LIMIT`: the value is too large for
    cel-cpp, which says nothing about whether the rule holds."""
    unsupported: bool = False
    """True when a library function met a value trainc cannot evaluate as upstream does
    (an RE2 pattern Python reads otherwise): nothing is known of the rule."""


EvalResult = JsonValue | EvalError


@dataclass(frozen=True, slots=True, eq=False)
class Bindings:
    """Variable values handed to the engine once, for any number of evaluations.

    The engine converts a value on its first use and keeps the result; converting a
    large ``self`` dominates evaluation time, so every rule declared at one schema node
    is evaluated against the same bindings.
    """

    _activation: cel.Activation


def bind(values: Mapping[str, object]) -> Bindings:
    """Bindings for ``values``; a value may be :data:`ABSENT` (an optional left empty)."""
    return Bindings(_environments((), None)[1].Activation(data=_with_optionals(values)))


def _with_optionals(values: Mapping[str, object]) -> dict[str, object]:
    """``values`` plus, for each, the zero-or-one item list an optional wrapper reads."""
    data: dict[str, object] = {}
    for name, value in values.items():
        present = value is not ABSENT
        if present:
            data[name] = value
        data[_optional_name(name)] = [value] if present else []
    return data


@dataclass(frozen=True, slots=True, eq=False)
class Program:
    """A compiled expression, reusable for any number of evaluations."""

    expression: str
    variables: tuple[str, ...]
    _compiled: cel.Expression

    def evaluate(self, activation: Mapping[str, object] | Bindings) -> EvalResult:
        """Evaluate with every declared variable bound to plain data.

        ``activation`` is either a mapping, converted on each call, or :func:`bind`'s
        result, converted once.
        """
        try:
            if isinstance(activation, Bindings):
                result = self._compiled.eval(activation=activation._activation)
            else:
                result = self._compiled.eval(data=_with_optionals(activation))
        except RuntimeError as error:  # the engine raises for values it cannot convert
            return _error(str(error))
        try:
            if result.type() == cel.Type.ERROR:
                return _error(str(result.value()))
            value: JsonValue = result.plain_value()
        except TypeError:  # an optional or a type: no Python value stands for it
            return EvalError(f"{UNSUPPORTED} an optional or a type as a value", unsupported=True)
        return value


def _error(message: str) -> EvalError:
    """The engine's error; a library's own (raised in Python) without cel-cpp's status."""
    text = _first_line(message).removeprefix(_LIBRARY_STATUS)
    return EvalError(
        text,
        iteration_limit=_ITERATION_MESSAGE in message,
        unsupported=text.startswith(UNSUPPORTED),
    )


#: cel-cpp's status for an exception raised by a Python function.
_LIBRARY_STATUS = "UNKNOWN: "


def _first_line(message: str) -> str:
    return message.strip().split("\n", 1)[0] if message.strip() else "evaluation failed"


@functools.cache
def _environments(variables: tuple[str, ...], release: Release | None) -> tuple[cel.Env, cel.Env]:
    """The checking and the running environment for ``variables`` at ``release``."""
    declarations = "".join(f"  - name: {name}\n    type_name: dyn\n" for name in variables)
    variables_yaml = "variables:\n" + declarations if declarations else ""
    config = cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML + variables_yaml)
    libraries = libraries_at(release)
    checking = cel.NewEnv(config=config, functions=_checking_declarations(libraries))
    running = cel.NewEnv(config=config, functions=_running_declarations(libraries))
    return checking, running


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


@functools.cache
def compile_expression(
    expression: str,
    variables: Sequence[str],
    *,
    optional: Sequence[str] = (),
    release: Release | None = None,
) -> Program:
    """Compile ``expression`` with the given dynamically typed variables in scope.

    ``release`` chooses the Kubernetes libraries in scope (None: all trainc offers).

    Variables named in ``optional`` (also listed in ``variables``) are optionals, as
    Kubernetes binds ``oldSelf`` for ``optionalOldSelf`` rules: bound to a value they
    are ``optional.of(value)``, bound to :data:`ABSENT` they are ``optional.none()``.
    Compilation is cached per (expression, variables, optional): a repository reuses
    the same dozens of rules across thousands of objects.
    """
    names = tuple(variables)
    compiled = _compile(expression, names, release)
    if optional:
        wrapped = _wrap_optionals(expression, tuple(optional))
        plain = tuple(n for n in names if n not in optional)
        compiled = _compile(wrapped, plain + tuple(_optional_name(n) for n in optional), release)
    return Program(expression=expression, variables=names, _compiled=compiled)


def _compile(
    expression: str, variables: tuple[str, ...], release: Release | None
) -> cel.Expression:
    checking, running = _environments(variables, release)
    for library in libraries_at(release):
        if library.rewrite is not None:
            expression = library.rewrite(expression)
    try:
        checked = checking.compile(expression)
    except RuntimeError as error:
        checked = _compile_fallback(checking, expression, release)
        if checked is None:
            message = _compile_message(str(error))
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


def _optional_name(variable: str) -> str:
    return f"__trainc_optional_{variable}__"


def _wrap_optionals(expression: str, optional: tuple[str, ...]) -> str:
    """``expression`` with each optional variable re-bound from its zero-or-one list.

    A one-item ``map`` binds a comprehension variable, the Kubernetes environment's only
    binding construct (it has no ``cel.bind``). The line breaks keep a trailing ``//``
    comment in the rule from swallowing the closing parenthesis.
    """
    wrapped = expression
    for name in optional:
        hidden = _optional_name(name)
        wrapped = (
            f"[size({hidden}) == 0 ? optional.none() : optional.of({hidden}[0])]"
            f".map({name}, (\n{wrapped}\n))[0]"
        )
    return wrapped


def _compile_message(raw: str) -> str:
    """cel-cpp's message without its status prefix, keeping the caret excerpt."""
    text = raw.strip()
    for prefix in ("INVALID_ARGUMENT: ", "ERROR: "):
        text = text.removeprefix(prefix)
    for private, public in PUBLIC_NAMES.items():
        text = text.replace(private, public)
    return text.replace(" [INVALID_ARGUMENT]", "")


def references(expression: str, variable: str, variables: Sequence[str]) -> bool:
    """True when ``expression`` uses ``variable``: it fails to compile without it.

    This is how transition rules (those reading ``oldSelf``) are told apart, exactly as
    the API server decides which rules need an old object.
    """
    others = tuple(name for name in variables if name != variable)
    try:
        compile_expression(expression, others)
    except CelCompileError:
        try:
            compile_expression(expression, tuple(variables))
        except CelCompileError:
            return False
        return True
    return False
