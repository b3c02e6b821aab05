"""Evaluating compiled policies against the objects of a run, as an admission check would.

The order is a ValidatingAdmissionPolicy's: match constraints (kinds), then every
matchCondition, then variables in order, then each validation. A false validation is
a violation (``policy.<name>``); an expression that errors or returns a non-bool is
``policy.eval-error``. With the default failurePolicy ``Fail`` a VAP enforces errors
through the same validationActions as violations, so both take the policy's severity.

A TrainJob whose runtime is not found (or has errors) has null ``runtime`` and
``resolved``. A policy that reads them unguarded would fail with CEL's words about a
null (``Applying SELECT to non-message type``) at a TrainJob that is not at fault: its
errors are dropped, and one ``policy.not-evaluated`` warning per TrainJob names the
policies left out and why. The runtime's own finding fails the run; a policy that
guards itself (``resolved != null``) is evaluated as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject
from trainc.model.kinds import TRAINJOB
from trainc.policy.compile import CompiledPolicy, CompiledValidation, NamedProgram
from trainc.policy.summary import ResolvedSummary, summarize
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.cel.engine import EvalError, EvalResult
from trainc.schema.cel.reads import Reads, is_read, project

POLICY_EVAL_ERROR = Rule(
    "policy.eval-error",
    Severity.ERROR,
    "a policy expression could not be evaluated",
)

POLICY_NOT_EVALUATED = Rule(
    "policy.not-evaluated",
    Severity.WARNING,
    "policies reading runtime or resolved were skipped: the TrainJob's runtime is unusable",
)


Activation = dict[str, object]
_EVAL_ERROR = POLICY_EVAL_ERROR.code
#: A matchCondition that errored or returned a non-bool, with what it returned.
_Failure = tuple[NamedProgram, EvalResult]


def evaluate_policies(
    policies: Sequence[CompiledPolicy],
    obj: DefaultedObject,
    *,
    runtime: DefaultedObject | None,
    resolved: ResolvedJob | None,
) -> list[Diagnostic]:
    """Every violation and evaluation error of ``policies`` on ``obj``.

    An object with structural errors is skipped: the schema layer already fails the run,
    and rules reading mistyped fields would only add noise.
    """
    matching = [p for p in policies if obj.kind in p.kinds]
    if not matching or not obj.schema_valid:
        return []
    usable = runtime if runtime is not None and runtime.schema_valid else None
    variables = _Variables(obj, usable, resolved)
    without_runtime = obj.kind == TRAINJOB.kind and usable is None
    diagnostics: list[Diagnostic] = []
    skipped: list[str] = []
    for policy in matching:
        found = list(_check(policy, obj, variables.activation(policy.reads)))
        if without_runtime and _reads_runtime(policy) and any(d.code == _EVAL_ERROR for d in found):
            skipped.append(policy.name)
            found = [d for d in found if d.code != _EVAL_ERROR]
        diagnostics.extend(found)
    if skipped:
        diagnostics.append(_not_evaluated(obj, skipped, found=runtime is not None))
    return diagnostics


def _reads_runtime(policy: CompiledPolicy) -> bool:
    """Whether an expression of ``policy`` reads ``runtime`` or ``resolved``."""
    return is_read(policy.reads["runtime"]) or is_read(policy.reads["resolved"])


def _not_evaluated(obj: DefaultedObject, names: Sequence[str], *, found: bool) -> Diagnostic:
    """The one finding that says which policies a runtime-less TrainJob was spared."""
    why = "has errors" if found else "was not found"
    if len(names) == 1:
        which = f"policy {names[0]} was not evaluated on this TrainJob: it reads"
    else:
        which = f"policies {', '.join(names)} were not evaluated on this TrainJob: they read"
    return obj.finding(
        ("spec", "runtimeRef"),
        POLICY_NOT_EVALUATED.code,
        f"{which} `runtime` or `resolved`, which are null because the TrainJob's runtime {why}",
        hint="fix the runtime as its own finding says; a policy meant to skip TrainJobs "
        "without a runtime guards itself with the matchCondition `resolved != null`",
    )


class _Variables:
    """``object``, ``oldObject``, ``runtime`` and ``resolved`` for one object.

    ``oldObject`` is null until ``--base`` supplies old objects. ``runtime`` and
    ``resolved`` are null for runtimes, and for TrainJobs whose runtime does not resolve
    or has structural errors (the cross-object layer reports why). Each variable holds
    only what a policy's expressions read of it (:func:`~trainc.schema.cel.reads.project`):
    converting a whole runtime for an expression that reads a label would dominate the
    evaluation. The summary is computed once, and only when some policy reads it.
    """

    def __init__(
        self, obj: DefaultedObject, runtime: DefaultedObject | None, resolved: ResolvedJob | None
    ) -> None:
        self._obj = obj
        self._runtime = runtime
        self._resolved_job = resolved
        self._summary: ResolvedSummary | None = None

    def activation(self, reads: Mapping[str, Reads]) -> Activation:
        """The variables as a policy reading ``reads`` sees them."""
        runtime = self._runtime
        if runtime is None:
            return {"object": project(self._obj.data, reads["object"]), **_NO_RUNTIME}
        return {
            "object": project(self._obj.data, reads["object"]),
            "oldObject": None,
            "runtime": project(runtime.data, reads["runtime"]),
            "resolved": self._resolved() if is_read(reads["resolved"]) else None,
        }

    def _resolved(self) -> ResolvedSummary | None:
        if self._summary is None and self._resolved_job is not None:
            self._summary = summarize(self._resolved_job)
        return self._summary


_NO_RUNTIME: Activation = {"oldObject": None, "runtime": None, "resolved": None}


def _check(policy: CompiledPolicy, obj: DefaultedObject, base: Activation) -> Iterator[Diagnostic]:
    values: JsonObject = {}
    activation: Activation = {**base, "params": policy.params, "variables": values}
    matched = _match(policy, activation)
    if isinstance(matched, tuple):
        condition, result = matched
        yield _eval_error(policy, obj, f"matchCondition {condition.name!r}", condition, result)
        return
    if not matched:
        return
    for variable in policy.variables:
        result = variable.program.evaluate(activation)
        if isinstance(result, EvalError):
            # Stricter than a VAP's lazy variables: report the broken variable once,
            # where it is defined, rather than on every validation that reads it.
            yield _eval_error(policy, obj, f"variable {variable.name!r}", variable, result)
            return
        values[variable.name] = result
    for validation in policy.validations:
        yield from _validate(policy, obj, validation, activation)


def _match(policy: CompiledPolicy, activation: Activation) -> bool | _Failure:
    """True when all matchConditions hold, False when one is false, else the first error.

    As in a VAP, a false condition wins over an error: the policy does not apply.
    """
    results = [(c, c.program.evaluate(activation)) for c in policy.match_conditions]
    if any(result is False for _, result in results):
        return False
    return next(((c, result) for c, result in results if result is not True), True)


def _validate(
    policy: CompiledPolicy,
    obj: DefaultedObject,
    validation: CompiledValidation,
    activation: Mapping[str, object],
) -> Iterator[Diagnostic]:
    result = validation.program.evaluate(activation)
    if result is True:
        return
    if result is not False:
        what = f"validation {validation.index}"
        yield _eval_error(policy, obj, what, validation, result, path=validation.object_path)
        return
    yield obj.finding(
        validation.object_path,
        policy.code,
        _message(validation, activation),
        severity=policy.severity,
    )


def _message(validation: CompiledValidation, activation: Mapping[str, object]) -> str:
    """The messageExpression's string when it yields a usable one, else the message.

    A VAP falls back the same way when messageExpression errors, is not a string, is
    empty, or spans lines.
    """
    if validation.message_program is not None:
        text = validation.message_program.evaluate(activation)
        if isinstance(text, str) and text.strip() and "\n" not in text:
            return text.strip()
    return validation.message


def _eval_error(
    policy: CompiledPolicy,
    obj: DefaultedObject,
    what: str,
    source: NamedProgram | CompiledValidation,
    result: EvalResult,
    *,
    path: FieldPath = (),
) -> Diagnostic:
    if isinstance(result, EvalError):
        problem = f"could not be evaluated: {result.message}"
    else:
        problem = f"returned {type(result).__name__} {result!r} instead of a bool"
    return obj.finding(
        path,
        _EVAL_ERROR,
        f"policy {policy.name}: {what} `{source.program.expression}` {problem}",
        severity=policy.severity,
    )
