"""Which nodes of a kind schema a rule walk visits, worked out once per schema.

An object's walk for CEL rules (:func:`~trainc.schema.cel.values.rule_sites`) needs
to know, at each node, the rules declared there and whether any lies below; and, to
convert no more than needed, what those rules read of ``self`` (:mod:`.reads`). All of
it depends on the schema and on which rules are wanted, never on the object, so it is
computed once and shared by every object of every run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from trainc.model.schematree import KindSchema, SchemaNode
from trainc.schema.cel.declared import SELF, DeclaredRule, rules_by_node
from trainc.schema.cel.reads import Reads, reads, union


class SitePlan:
    """Which nodes of a schema a walk must visit, for one choice of rules.

    ``rules`` holds the wanted rules by declaring node, ``reads`` what each declaring
    node's rules and messages read of ``self``; :meth:`reaches` says whether a node has
    such a rule at or below it. Nodes are keyed by identity, which is stable: the
    schema, kept alive by the plan's cache, owns them.
    """

    def __init__(
        self,
        schema: KindSchema,
        rules: Mapping[int, tuple[DeclaredRule, ...]],
        reads: Mapping[int, Reads],
    ) -> None:
        """A plan over ``schema``; whether a node reaches a rule is found on first use."""
        self.schema = schema
        self.rules = rules
        self.reads = reads
        self._reaches: dict[int, bool] = {}

    def reaches(self, node: SchemaNode) -> bool:
        """True when a wanted rule is declared at ``node`` or anywhere below it.

        Worked out on first use, for the nodes objects actually lead to (a walk asks
        about the children of what it visits), and remembered: a TrainJob touches a
        small part of its schema, whose runtime patches alone hold a pod template.
        """
        found = self._reaches.get(id(node))
        return found if found is not None else self._search(node, set())[0]

    def _search(self, node: SchemaNode, active: set[int]) -> tuple[bool, bool]:
        """(whether ``node`` reaches a rule, whether that answer is final).

        ``$ref`` may in principle make the schema cyclic: a node met again while its
        own search is on (in ``active``) answers "not yet known", and a negative answer
        that depended on one is not remembered. The search that started at it still
        explores everything reachable, so its own answer is exact.
        """
        key = id(node)
        known = self._reaches.get(key)
        if known is not None:
            return known, True
        if key in self.rules:
            self._reaches[key] = True
            return True, True
        if key in active:
            return False, False
        active.add(key)
        table = self.schema.children(node)
        found, final = False, True
        for child in (*table.properties.values(), table.items, table.additional):
            if child is not None:
                child_found, child_final = self._search(child, active)
                if child_found:
                    found = True
                    break
                final = final and child_final
        active.discard(key)
        if found or final:
            self._reaches[key] = found
        return found, found or final


@functools.lru_cache(maxsize=64)
def site_plan(schema: KindSchema, wanted: Callable[[DeclaredRule], bool]) -> SitePlan:
    """The plan of ``schema`` for ``wanted``, worked out once (by the predicate's identity)."""
    rules: dict[int, tuple[DeclaredRule, ...]] = {}
    reads_of: dict[int, Reads] = {}
    for node_id, declared in rules_by_node(schema).items():
        chosen = tuple(filter(wanted, declared))
        if chosen:
            rules[node_id] = chosen
            nothing: Reads = {}
            reads_of[node_id] = functools.reduce(union, map(_rule_reads, chosen), nothing)
    return SitePlan(schema, rules, reads_of)


def _rule_reads(rule: DeclaredRule) -> Reads:
    found = reads(rule.rule, SELF)
    if rule.message_expression is not None:
        found = union(found, reads(rule.message_expression, SELF))
    return found
