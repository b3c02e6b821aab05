"""The CEL rules a kind schema declares at one node, as the tests look them up."""

from __future__ import annotations

from trainc.model.schematree import KindSchema, SchemaNode
from trainc.schema.cel.declared import DeclaredRule, rules_by_node


def rules_at(schema: KindSchema, node: SchemaNode) -> tuple[DeclaredRule, ...]:
    """Rules declared at ``node``, a node of ``schema`` as :meth:`KindSchema.child` returns it."""
    return rules_by_node(schema).get(id(node), ())
