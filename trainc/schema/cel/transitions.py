"""Transition rules (those reading ``oldSelf``) of an object against its base revision.

The API server runs a transition rule on update only, and only where the old object has
a value at the correlated path (https://kubernetes.io/docs/reference/using-api/cel/,
transition rules): object
properties correlate by name, items of ``x-kubernetes-list-type: map`` lists by their
keys, and items of ``atomic`` and ``set`` lists not at all, so rules below them never
run. Both values are canonical (sets sorted, map lists ordered by key), which makes
``self == oldSelf`` the list-type-aware equality Kubernetes uses. Rules with
``optionalOldSelf`` run at every node, with ``oldSelf`` empty where nothing correlates.
"""

from __future__ import annotations

import json

from trainc.diagnostics import Diagnostic
from trainc.model.json import FieldPath, JsonValue
from trainc.model.schematree import KindSchema
from trainc.schema.cel.changes import describe_change
from trainc.schema.cel.cost import CostBudget
from trainc.schema.cel.declared import OLD_SELF, SELF, DeclaredRule
from trainc.schema.cel.engine import ABSENT
from trainc.schema.cel.evaluate import RuleRunner
from trainc.schema.cel.subject import Subject
from trainc.schema.cel.values import Site, rule_sites


def check_transitions(
    new: Subject,
    old: Subject,
    schema: KindSchema,
    *,
    budget: CostBudget | None = None,
    fix: str | None = None,
) -> list[Diagnostic]:
    """Diagnostics of every transition rule of ``schema``, ``old`` → ``new``.

    ``old`` is the same object at the base revision (or as deployed); findings are
    ``new``'s. Pass the ``budget`` given to :func:`~trainc.schema.cel.rules.check_rules`
    to charge both to one per-object budget. ``fix`` says how to make a refused change
    instead; the hint of each refusal carries it after the change.
    """
    sites = rule_sites(new.data, schema, _is_transition, canonical=True)
    if not sites:
        return []
    old_sites = {
        site.path: site for site in rule_sites(old.data, schema, _is_transition, canonical=True)
    }
    correlate = _Correlation(schema, new.data, old.data)
    runner = RuleRunner(new, budget if budget is not None else CostBudget())
    found: list[Diagnostic] = []
    for site in sites:
        old_path = correlate.old_path(site.path)
        previous = old_sites.get(old_path) if old_path is not None else None
        found.extend(_check_site(runner, site, previous, fix))
        if runner.exhausted:
            break
    return found


def _is_transition(rule: DeclaredRule) -> bool:
    return rule.transition


def _check_site(
    runner: RuleRunner, site: Site, previous: Site | None, fix: str | None
) -> list[Diagnostic]:
    if previous is None:
        rules = tuple(rule for rule in site.rules if rule.optional)
        return runner.run(site.path, rules, {SELF: site.value, OLD_SELF: ABSENT}, site.shape)

    def change() -> str:
        described = describe_change(previous.value, site.value, site.path)
        return described if fix is None else f"{described}; {fix}"

    return runner.run(
        site.path,
        site.rules,
        {SELF: site.value, OLD_SELF: previous.value},
        site.shape.plus(previous.shape),
        change=change,
    )


class _Correlation:
    """Maps a path in the new object to the path of the same value in the old one."""

    def __init__(self, schema: KindSchema, new: JsonValue, old: JsonValue) -> None:
        self.schema = schema
        self.new = new
        self.old = old
        self._indexes: dict[FieldPath, dict[tuple[str, ...], int]] = {}

    def old_path(self, path: FieldPath) -> FieldPath | None:
        """The old path correlated with ``path``, or None where Kubernetes correlates none."""
        node = self.schema.root
        new, old = self.new, self.old
        steps: list[str | int] = []
        for key in path:
            if isinstance(key, str):
                if not isinstance(old, dict) or not isinstance(new, dict) or key not in old:
                    return None
                step: str | int = key
                new, old = new[key], old[key]
            else:
                keys = node.get("x-kubernetes-list-map-keys")
                if node.get("x-kubernetes-list-type") != "map" or not isinstance(keys, list):
                    return None
                if not isinstance(old, list) or not isinstance(new, list):
                    return None
                found = self._index(tuple(steps), old, keys).get(_identity(new[key], keys))
                if found is None:
                    return None
                step = found
                new, old = new[key], old[found]
            steps.append(step)
            node = self.schema.child(node, key) or {}
        return tuple(steps)

    def _index(
        self, path: FieldPath, items: list[JsonValue], keys: list[JsonValue]
    ) -> dict[tuple[str, ...], int]:
        """Old map-list items by key, built once per list (the first item wins, like a map)."""
        if path not in self._indexes:
            index: dict[tuple[str, ...], int] = {}
            for position, item in enumerate(items):
                index.setdefault(_identity(item, keys), position)
            self._indexes[path] = index
        return self._indexes[path]


def _identity(item: JsonValue, keys: list[JsonValue]) -> tuple[str, ...]:
    """An item's map keys; an absent key has its default already (both objects are defaulted)."""
    if not isinstance(item, dict):
        return ()
    return tuple(json.dumps(item.get(str(key)), sort_keys=True) for key in keys)
