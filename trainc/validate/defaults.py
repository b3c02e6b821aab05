"""Structural defaulting and pruning, as the API server applies them before CEL rules run.

Order matters and follows the API server (``upstream-semantics.md`` §7.1): nulls in
non-nullable fields are dropped first, unknown fields are pruned, and schema defaults
fill in absent fields, parents before children, so that ``has()`` in a rule and the
compiler's reads see exactly what the server would store.
"""

from __future__ import annotations

import copy

from trainc.model.json import JsonValue
from trainc.model.schematree import KindSchema, SchemaNode


def drop_nulls(value: JsonValue) -> JsonValue:
    """A copy of ``value`` without null-valued mapping entries, at any depth.

    None of trainc's schemas marks a field nullable, so every null is dropped, as the
    API server drops them for non-nullable fields.
    """
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value]
    return value


def apply_defaults(value: JsonValue, schema: KindSchema) -> JsonValue:
    """A copy of null-free ``value`` with unknown fields pruned and defaults applied."""
    return _default(value, schema.root, schema)


def _default(value: JsonValue, node: SchemaNode, schema: KindSchema) -> JsonValue:
    if node.get("x-kubernetes-preserve-unknown-fields") is True and "properties" not in node:
        return copy.deepcopy(value)
    if isinstance(value, dict):
        return _default_object(value, node, schema)
    if isinstance(value, list):
        item_node = schema.child(node, 0)
        if item_node is None:
            return copy.deepcopy(value)
        return [_default(item, item_node, schema) for item in value]
    return value


def _default_object(value: dict[str, JsonValue], node: SchemaNode, schema: KindSchema) -> JsonValue:
    result: dict[str, JsonValue] = {}
    for key, item in value.items():
        child = schema.child(node, key)
        if child is not None:
            result[key] = _default(item, child, schema)
    properties = node.get("properties")
    if isinstance(properties, dict):
        for key in properties:
            if key in result:
                continue
            child = schema.child(node, key)
            if child is not None and "default" in child:
                result[key] = _default(copy.deepcopy(child["default"]), child, schema)
    return result
