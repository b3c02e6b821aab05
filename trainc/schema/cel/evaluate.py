"""Evaluating the rules of one schema node and turning each outcome into a diagnostic.

Shared by create-time rules and transition rules, so both report the same way, as the
API server does (https://kubernetes.io/docs/reference/using-api/cel/): a false rule fails
with its
``messageExpression`` result (when that is a usable string) or its ``message``, at the
node or at its ``fieldPath``; a rule that errors fails with the error instead; a rule
over the cost limits is not evaluated at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import FieldPath, get_path
from trainc.model.patterns import described_in_rule
from trainc.schema.cel.cost import PER_CALL_LIMIT, PER_OBJECT_BUDGET, CostBudget, Shape, estimate
from trainc.schema.cel.declared import DeclaredRule
from trainc.schema.cel.engine import ITERATION_LIMIT, Bindings, EvalError, EvalResult, bind
from trainc.schema.cel.subject import Subject

CEL_EVAL_ERROR = Rule(
    "cel.eval-error",
    Severity.ERROR,
    "a validation rule could not be evaluated",
)

CEL_COST_EXCEEDED = Rule(
    "cel.cost-exceeded",
    Severity.ERROR,
    "a validation rule would exceed the API server's cost budget",
)


_FIELD_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


class RuleRunner:
    """Evaluates rules of one object, charging all of them to one cost budget.

    A budget already overdrawn (by an earlier runner sharing it) runs nothing: the
    exhaustion was reported where it happened.
    """

    def __init__(self, obj: Subject, budget: CostBudget) -> None:
        self.obj = obj
        self.budget = budget
        self.exhausted = budget.remaining < 0

    def run(
        self,
        path: FieldPath,
        rules: Sequence[DeclaredRule],
        values: Mapping[str, object],
        shape: Shape,
        *,
        change: Callable[[], str] | None = None,
    ) -> list[Diagnostic]:
        """Diagnostics of ``rules`` declared at ``path`` with ``values`` bound.

        ``shape`` is that of the bound values, for the cost estimate; ``change`` describes
        how the value changed, for the hint of a failed transition rule. Once the object's
        budget is spent, this and every later call report nothing more (:attr:`exhausted`).
        """
        bindings = bind(values)
        found: list[Diagnostic] = []
        for rule in rules:
            if self.exhausted:
                break
            cost = estimate(rule.rule, shape)
            if cost > PER_CALL_LIMIT:
                found.append(self._too_costly(path, rule, cost, shape))
            elif not self.budget.charge(cost):
                self.exhausted = True
                found.append(self._budget_spent(path, rule))
            else:
                found.extend(self._verdict(path, rule, bindings, shape, change))
        return found

    def _verdict(
        self,
        path: FieldPath,
        rule: DeclaredRule,
        bindings: Bindings,
        shape: Shape,
        change: Callable[[], str] | None,
    ) -> list[Diagnostic]:
        result = rule.program.evaluate(bindings)
        if result is True:
            return []
        if isinstance(result, EvalError):
            return [self._eval_error(path, rule, result)]
        if result is not False:
            problem = EvalError(f"returned {result!r}, not a boolean")
            return [self._eval_error(path, rule, problem)]
        detail = self._message(rule, bindings, shape)
        hint = _failed_rule_hint(rule)
        if change is not None:
            hint = f"{change()}; {hint}"
        return [self.obj.finding(self._location(path, rule), rule.code, detail, hint=hint)]

    def _message(self, rule: DeclaredRule, bindings: Bindings, shape: Shape) -> str:
        """``messageExpression``'s result when it is a one-line string, else ``message``.

        Like the API server, an erroring, empty or multi-line result falls back to the
        static message; the expression's cost is charged like any evaluation.
        """
        program = rule.message_program
        if program is not None:
            cost = estimate(program.expression, shape)
            if cost <= PER_CALL_LIMIT and self.budget.charge(cost):
                text = _usable(program.evaluate(bindings))
                if text is not None:
                    return text
        return rule.message or f"failed rule: {rule.rule}"

    def _location(self, path: FieldPath, rule: DeclaredRule) -> FieldPath:
        """The rule's ``fieldPath`` below ``path`` when the object has a value there."""
        relative = _parse_field_path(rule.field_path) if rule.field_path else None
        if relative and get_path(self.obj.data, (*path, *relative)) is not None:
            return (*path, *relative)
        return path

    def _eval_error(self, path: FieldPath, rule: DeclaredRule, error: EvalError) -> Diagnostic:
        if error.iteration_limit:
            message = (
                f"{rule.label} needs more than {ITERATION_LIMIT:,} comprehension iterations "
                "on this value, more than trainc's CEL engine (cel-cpp) performs; it could "
                "not be checked offline"
            )
            return self.obj.finding(
                path, CEL_COST_EXCEEDED.code, message, hint=f"rule: {rule.rule}"
            )
        message = f"{rule.label} could not be evaluated: {error.message}"
        return self.obj.finding(path, CEL_EVAL_ERROR.code, message, hint=f"rule: {rule.rule}")

    def _too_costly(
        self, path: FieldPath, rule: DeclaredRule, cost: int, shape: Shape
    ) -> Diagnostic:
        message = (
            f"{rule.label} would cost up to {cost:,} units on this value, over the API "
            f"server's limit of {PER_CALL_LIMIT:,} per rule; it was not evaluated"
        )
        hint = f"the value has {shape.describe()}; rule: {rule.rule}"
        return self.obj.finding(path, CEL_COST_EXCEEDED.code, message, hint=hint)

    def _budget_spent(self, path: FieldPath, rule: DeclaredRule) -> Diagnostic:
        message = (
            f"the object's validation rules would cost more than the API server's budget of "
            f"{PER_OBJECT_BUDGET:,} units per object; {rule.label} and later rules were not "
            "evaluated"
        )
        return self.obj.finding(path, CEL_COST_EXCEEDED.code, message, hint=f"rule: {rule.rule}")


def _failed_rule_hint(rule: DeclaredRule) -> str:
    """What the value must look like, when the rule tests formats :mod:`trainc.model.patterns`
    describes in words; otherwise the rule itself."""
    formats = described_in_rule(rule.rule)
    if formats:
        return "; ".join(text_pattern.explained for text_pattern in formats)
    return f"rule: {rule.rule}"


def _usable(result: EvalResult) -> str | None:
    if isinstance(result, str) and result.strip() and "\n" not in result:
        return result
    return None


def _parse_field_path(text: str) -> FieldPath | None:
    """Steps of a rule's ``fieldPath`` (``.a.b``, ``['a.b']``); None when malformed.

    Kubernetes allows only property steps there, no list indexes.
    """
    steps: list[str | int] = []
    position = 0
    for match in _FIELD_PATH_STEP.finditer(text):
        if match.start() != position:
            return None
        steps.append(match.group(1) if match.group(1) is not None else match.group(2))
        position = match.end()
    return tuple(steps) if position == len(text) and steps else None
