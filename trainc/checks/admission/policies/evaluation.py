"""One policy evaluated against one request, with one binding's parameter object.

``validator.Validate`` in
https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go,
on the CEL filter of ``k8s.io/apiserver/pkg/admission/plugin/cel`` and the match
conditions of ``webhook/matchconditions/matcher.go``:

- matchConditions first: one false and the policy does not apply; otherwise an error in
  any of them (several joined as ``[a, b]``) denies under ``failurePolicy: Fail`` and
  skips the policy under ``Ignore``;
- each validation: an error denies (``Fail``) or admits (``Ignore``) with
  ``expression 'E' resulted in error: …``; any result but ``true`` denies, with the
  messageExpression's string (trimmed, single-line, non-empty), else ``message``, else
  ``failed expression: E``, and the validation's ``reason`` (``Invalid`` by default);
- variables are computed when read: one that fails makes the expressions reading it fail
  with ``composited variable "N" fails to evaluate: …``;
- auditAnnotations: a string publishes it (trimmed; empty excludes it), null excludes it,
  another type or an error is an error (excluded under ``Ignore``).

Evaluation goes through trainc's one CEL adapter (:mod:`trainc.schema.cel.engine`), and
cost through its estimate (:mod:`trainc.schema.cel.cost`). The API server meters actual
cost and stops an expression at ``PerCallLimit`` and a policy's validations at
``RuntimeCELCostBudget`` (its matchConditions at ``RuntimeCELCostBudgetMatchConditions``);
an estimate is an upper bound, so an expression estimated over a limit is reported as not
evaluated rather than as a refusal. So is one stopped by the engine's iteration limit, one
reading ``authorizer`` (:mod:`.libraries`), and one using a Kubernetes CEL library
signature or value trainc cannot evaluate as upstream (``string(ip)``, an RE2 pattern
Python's ``re`` reads otherwise). Expressions are compiled with the libraries of the
cluster's release (``kubernetes.version``): one calling a function that release lacks
does not compile, and fails as it does on that API server. A messageExpression
result over ``MaxEvaluatedMessageExpressionSizeBytes`` falls back like an unusable one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from trainc.checks.admission.pod_security.message import go_quote
from trainc.checks.admission.policies.libraries import uses_authorizer
from trainc.checks.admission.policies.model import FAIL, IGNORE, Policy
from trainc.checks.admission.resource_lists import aggregate
from trainc.model.json import JsonObject, JsonValue
from trainc.schema.cel.cost import PER_CALL_LIMIT, PER_OBJECT_BUDGET, Shape, estimate, tokens
from trainc.schema.cel.engine import (
    CelCompileError,
    CelUnsupportedError,
    EvalError,
    Program,
    compile_expression,
)
from trainc.schema.cel.library.declare import Release
from trainc.schema.cel.sizes import untyped_sizes

#: The variables every policy expression is compiled with.
VARIABLES: tuple[str, ...] = (
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "variables",
    "authorizer",
)

#: The API server's budget for a binding's matchConditions, apart from its validations'
#: (``RuntimeCELCostBudgetMatchConditions`` in ``k8s.io/apiserver/pkg/apis/cel/config.go``).
MATCH_CONDITIONS_BUDGET = 2_500_000

#: Longest messageExpression result kept, in bytes (``MaxEvaluatedMessageExpressionSizeBytes``).
MAX_MESSAGE_BYTES = 5 * 1024

#: A validation's ``reason`` when it sets none.
INVALID = "Invalid"

ADMIT = "Admit"
DENY = "Deny"

PUBLISH = "Publish"
EXCLUDE = "Exclude"
ERROR = "Error"

#: cel-cpp's runtime errors that have a cel-go counterpart, in cel-go's words.
_GO_ERRORS: tuple[tuple[str, str], ...] = (
    ('NOT_FOUND: Key not found in map : "', "no such key: "),
    ("INVALID_ARGUMENT: divide by zero", "division by zero"),
    ("INVALID_ARGUMENT: modulus by zero", "modulus by zero"),
)


@dataclass(frozen=True, slots=True)
class Decision:
    """One validation's (or the match conditions') outcome."""

    action: str
    message: str = ""
    reason: str = ""
    error: bool = False
    """True when the decision comes from an error rather than a false validation."""


@dataclass(frozen=True, slots=True)
class AuditAnnotation:
    """One auditAnnotation's outcome: published value, excluded, or an error."""

    key: str
    action: str
    value: str = ""
    error: str = ""


@dataclass(frozen=True, slots=True)
class Result:
    """What a policy decided on a request; ``not_evaluated`` says why it could not."""

    decisions: tuple[Decision, ...] = ()
    annotations: tuple[AuditAnnotation, ...] = ()
    not_evaluated: str = ""


@dataclass(frozen=True, slots=True)
class Inputs:
    """The CEL variables of one evaluation, besides ``variables`` and ``authorizer``."""

    obj: JsonObject | None
    old: JsonObject | None
    request: JsonObject
    params: JsonObject | None
    namespace: JsonObject | None
    release: Release | None = None
    """The cluster's Kubernetes release: which CEL libraries the expressions may call."""
    shape: Shape = field(init=False)

    def __post_init__(self) -> None:
        values: list[JsonValue] = [self.obj, self.old, self.request, self.params, self.namespace]
        object.__setattr__(self, "shape", Shape(*untyped_sizes(values)))

    def activation(self, variables: Mapping[str, JsonValue]) -> dict[str, object]:
        """The activation, with the variables computed so far."""
        return {
            "object": self.obj,
            "oldObject": self.old,
            "request": self.request,
            "params": self.params,
            "namespaceObject": self.namespace,
            "variables": dict(variables),
            "authorizer": None,
        }


def expressions(policy: Policy) -> list[str]:
    """Every CEL expression of ``policy``."""
    return [
        *(c.expression for c in policy.match_conditions),
        *(v.expression for v in policy.variables),
        *(v.expression for v in policy.validations),
        *(v.message_expression for v in policy.validations if v.message_expression),
        *(a.expression for a in policy.audit_annotations),
    ]


def unevaluable(policy: Policy, release: Release | None) -> str:
    """Why ``policy`` cannot be evaluated offline at all, or empty."""
    written = expressions(policy)
    if uses_authorizer(written):
        return "its expressions use `authorizer`, which only the cluster can answer"
    for expression in written:
        try:
            compile_expression(expression, VARIABLES, release=release)
        except CelUnsupportedError as error:
            return (
                f"`{expression}` uses a Kubernetes CEL library signature trainc's engine "
                f"cannot declare: {_first_line(str(error))}"
            )
        except CelCompileError:
            continue
    return ""


def _first_line(message: str) -> str:
    return message.split("\n", 1)[0]


def _compile(expression: str, release: Release | None) -> Program | None:
    try:
        return compile_expression(expression, VARIABLES, release=release)
    except CelCompileError:
        return None


def compile_error(expression: str, release: Release | None = None) -> str:
    """``compilation error: …`` when ``expression`` does not compile at ``release``, else
    empty; also empty for a library signature trainc cannot declare, which compiles on the
    API server (:func:`unevaluable` says so)."""
    try:
        compile_expression(expression, VARIABLES, release=release)
    except CelUnsupportedError:
        return ""
    except CelCompileError as error:
        return f"compilation error: {error}"
    return ""


def go_error(message: str) -> str:
    """An engine error in cel-go's words where they are known."""
    for engine, go in _GO_ERRORS:
        if message.startswith(engine):
            return go + message.removeprefix(engine).removesuffix('"')
    return message


def _referenced_variables(expression: str) -> set[str]:
    found = tokens(expression)
    return {
        found[index + 2][1]
        for index in range(len(found) - 2)
        if found[index] == ("word", "variables") and found[index + 1] == ("op", ".")
    }


class _TooCostlyError(Exception):
    """An expression's estimated cost is over a limit: the verdict is not known."""


class _UnsupportedError(Exception):
    """A library met a value trainc cannot evaluate as upstream: the verdict is not known."""


class _Evaluator:
    """Evaluates the expressions of one policy on one set of inputs, charging one budget."""

    def __init__(self, policy: Policy, inputs: Inputs) -> None:
        self.policy = policy
        self.inputs = inputs
        self.budget = PER_OBJECT_BUDGET
        self.condition_budget = MATCH_CONDITIONS_BUDGET
        self.declared = {v.name: v.expression for v in policy.variables}
        self.values: dict[str, JsonValue] = {}
        self.failed: dict[str, str] = {}
        self.pending: set[str] = set()

    def run(self, expression: str, *, condition: bool = False) -> JsonValue | _Error:
        """The expression's value, or its error worded as upstream words it.

        The variables it reads are computed first, once each, as the API server's lazy
        ``variables`` map does. Raises :class:`_TooCostlyError` when the estimate is over a
        limit, and when the engine stops at its iteration limit.
        """
        referenced = _referenced_variables(expression)
        self._compute(referenced)
        for name in sorted(referenced & set(self.failed)):
            failed = f"composited variable {go_quote(name)} fails to evaluate: {self.failed[name]}"
            return _Error(f"expression '{expression}' resulted in error: {failed}")
        release = self.inputs.release
        program = _compile(expression, release)
        if program is None:
            return _Error(compile_error(expression, release))
        cost = estimate(expression, self.inputs.shape)
        if condition:
            self.condition_budget -= cost
        else:
            self.budget -= cost
        if cost > PER_CALL_LIMIT or min(self.budget, self.condition_budget) < 0:
            raise _TooCostlyError(expression)
        result = program.evaluate(self.inputs.activation(self.values))
        if isinstance(result, EvalError):
            if result.iteration_limit:
                raise _TooCostlyError(expression)
            if result.unsupported:
                raise _UnsupportedError(f"`{expression}`: {result.message}")
            return _Error(
                f"expression '{expression}' resulted in error: {go_error(result.message)}"
            )
        return result

    def _compute(self, names: set[str]) -> None:
        """Compute the declared variables among ``names`` not yet computed."""
        for name in sorted(names):
            if name in self.values or name in self.failed or name in self.pending:
                continue
            expression = self.declared.get(name)
            if expression is None:
                continue
            self.pending.add(name)
            value = self.run(expression)
            self.pending.discard(name)
            if isinstance(value, _Error):
                prefix = f"expression '{expression}' resulted in error: "
                self.failed[name] = value.message.removeprefix(prefix)
            else:
                self.values[name] = value


@dataclass(frozen=True, slots=True)
class _Error:
    message: str


def _on_error(failure_policy: str) -> str:
    return ADMIT if failure_policy == IGNORE else DENY


def validate(policy: Policy, inputs: Inputs) -> Result:
    """``policy``'s decisions on ``inputs``, as ``validator.Validate`` makes them."""
    evaluator = _Evaluator(policy, inputs)
    try:
        return _validate(policy, evaluator)
    except _TooCostlyError as costly:
        return Result(
            not_evaluated=f"the cost of `{costly}` may exceed the API server's CEL cost limits"
        )
    except _UnsupportedError as unsupported:
        return Result(not_evaluated=str(unsupported))


def _validate(policy: Policy, evaluator: _Evaluator) -> Result:
    failure = policy.failure_policy
    errors: list[str] = []
    for condition in policy.match_conditions:
        value = evaluator.run(condition.expression, condition=True)
        if isinstance(value, _Error):
            errors.append(value.message)
        elif value is False:
            return Result()
    if errors:
        if failure != FAIL:
            return Result()
        return Result((Decision(DENY, aggregate(errors), error=True),))
    decisions = [_decide(evaluator, index) for index in range(len(policy.validations))]
    annotations = [_annotate(evaluator, index) for index in range(len(policy.audit_annotations))]
    return Result(tuple(decisions), tuple(annotations))


def _decide(evaluator: _Evaluator, index: int) -> Decision:
    policy = evaluator.policy
    validation = policy.validations[index]
    value = evaluator.run(validation.expression)
    if isinstance(value, _Error):
        return Decision(_on_error(policy.failure_policy), value.message, error=True)
    if value is True:
        return Decision(ADMIT)
    message = ""
    if validation.message_expression:
        text = evaluator.run(validation.message_expression)
        if isinstance(text, str):
            message = text.strip()
            if len(message.encode()) > MAX_MESSAGE_BYTES or "\n" in message:
                message = ""
    if not message and validation.message:
        message = validation.message.strip()
    if not message:
        message = f"failed expression: {validation.expression.strip()}"
    return Decision(DENY, message, validation.reason or INVALID)


_CEL_TYPES = {bool: "bool", int: "int", float: "double", list: "list", dict: "map", bytes: "bytes"}


def _annotate(evaluator: _Evaluator, index: int) -> AuditAnnotation:
    policy = evaluator.policy
    annotation = policy.audit_annotations[index]
    on_error = EXCLUDE if policy.failure_policy == IGNORE else ERROR
    value = evaluator.run(annotation.expression)
    if isinstance(value, _Error):
        return AuditAnnotation(annotation.name, on_error, error=value.message)
    if value is None:
        return AuditAnnotation(annotation.name, EXCLUDE)
    if isinstance(value, str):
        published = value.strip()
        return AuditAnnotation(annotation.name, PUBLISH if published else EXCLUDE, published)
    type_name = _CEL_TYPES.get(type(value), type(value).__name__)
    return AuditAnnotation(
        annotation.name,
        ERROR,
        error=f"valueExpression '{annotation.expression}' resulted in unsupported return type: "
        f"{type_name}. Return type must be either string or null.",
    )
