"""Create-time CEL rules: every ``x-kubernetes-validations`` rule that needs no old object.

The API server runs them after pruning and defaulting (``docs/upstream.md``, "API server"),
at the node that declares them, once per value there: a rule under ``items`` runs for
every item. Rules with ``optionalOldSelf`` also run on create, with ``oldSelf`` empty
(``optionalOldSelf`` in https://kubernetes.io/docs/reference/using-api/cel/).
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath
from trainc.model.schematree import KindSchema
from trainc.schema.cel.cost import CostBudget
from trainc.schema.cel.declared import OLD_SELF, SELF, DeclaredRule
from trainc.schema.cel.engine import ABSENT
from trainc.schema.cel.evaluate import CEL_COST_EXCEEDED, CEL_EVAL_ERROR, RuleRunner
from trainc.schema.cel.values import rule_sites


def check_rules(
    obj: DefaultedObject,
    schema: KindSchema,
    *,
    skip_paths: frozenset[FieldPath] = frozenset(),
    update: bool = False,
    budget: CostBudget | None = None,
) -> list[Diagnostic]:
    """Diagnostics of every create-time rule of ``schema`` on ``obj``'s defaulted data.

    Where a rule's node is at, above or below a path in ``skip_paths`` (structural
    errors), only its violations are kept: an evaluation error there would merely restate
    the structural finding, while a violation (a bad name beside a typo in the spec) is
    news the user needs in the same run.
    ``update`` says that :func:`~trainc.schema.cel.transitions.check_transitions`
    checks this object against a base revision; rules with ``optionalOldSelf`` are then
    left to it, since on update they see the old value where one exists. ``budget`` is
    shared with ``check_transitions`` to charge both to one per-object budget.
    """
    runner = RuleRunner(obj, budget if budget is not None else CostBudget())
    found: list[Diagnostic] = []
    wanted = _create_time_on_update if update else _create_time
    for site in rule_sites(obj.data, schema, wanted, only_read=True):
        values = {SELF: site.value}
        if any(rule.optional for rule in site.rules):
            values[OLD_SELF] = ABSENT
        results = runner.run(site.path, site.rules, values, site.shape)
        if _overlaps(site.path, skip_paths):
            results = [d for d in results if d.code not in _RESTATEMENTS]
        found.extend(results)
        if runner.exhausted:
            break
    return found


# Two named predicates, not a closure per call: a walk's plan is cached per predicate.
def _create_time(rule: DeclaredRule) -> bool:
    return not rule.transition or rule.optional


def _create_time_on_update(rule: DeclaredRule) -> bool:
    return not rule.transition


_RESTATEMENTS = frozenset({CEL_EVAL_ERROR.code, CEL_COST_EXCEEDED.code})


def _overlaps(path: FieldPath, skip_paths: Iterable[FieldPath]) -> bool:
    return any(skip[: len(path)] == path or path[: len(skip)] == skip for skip in skip_paths)
