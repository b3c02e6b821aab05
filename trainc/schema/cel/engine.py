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
is compiled for a ``release`` and a function that release lacks does not compile. Only an
expression that names one of their functions is compiled with them
(:mod:`trainc.schema.cel.library_environment`, imported then): declarations of functions
an expression does not name cannot change how it compiles, and every other expression
keeps CEL's environment alone, one compilation and no library imported.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Final

from cel_expr_python import cel

from trainc.model.json import JsonValue
from trainc.records import dataclass
from trainc.schema.cel.cost import tokens
from trainc.schema.cel.library import NAMES
from trainc.schema.cel.library.declare import UNSUPPORTED, Release

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
    return Bindings(_environment(()).Activation(data=_with_optionals(values)))


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
def _config(variables: tuple[str, ...]) -> cel.EnvConfig:
    """CEL's extensions as Kubernetes offers them, with ``variables`` typed ``dyn``."""
    declarations = "".join(f"  - name: {name}\n    type_name: dyn\n" for name in variables)
    variables_yaml = "variables:\n" + declarations if declarations else ""
    return cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML + variables_yaml)


@functools.cache
def _environment(variables: tuple[str, ...]) -> cel.Env:
    """The environment of an expression that names no library function."""
    return cel.NewEnv(config=_config(variables))


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
    if _names_a_library(expression):
        # Imported here: most expressions (every CRD rule trainc ships) name no library,
        # and the hook path should not pay for building their declarations.
        from trainc.schema.cel.library_environment import compile_with_libraries  # noqa: PLC0415

        return compile_with_libraries(expression, _config(variables), release)
    try:
        return _environment(variables).compile(expression)
    except RuntimeError as error:
        raise CelCompileError(compile_message(str(error))) from error


def _names_a_library(expression: str) -> bool:
    """Whether a word of ``expression`` (outside its string literals) names a library
    function: without one, declaring the libraries cannot change how it compiles."""
    return any(kind == "word" and text in NAMES for kind, text in tokens(expression))


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


def compile_message(raw: str) -> str:
    """cel-cpp's message without its status prefix, keeping the caret excerpt."""
    text = raw.strip()
    for prefix in ("INVALID_ARGUMENT: ", "ERROR: "):
        text = text.removeprefix(prefix)
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
