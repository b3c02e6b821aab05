"""Structural defaulting and pruning, as the API server applies them before CEL rules run.

Order matters and follows the API server (``docs/upstream.md``, "API server"): nulls in
non-nullable fields are dropped first, unknown fields are pruned, and schema defaults
fill in absent fields, parents before children, so that ``has()`` in a rule and the
compiler's reads see exactly what the server would store.
"""

from __future__ import annotations

from trainc.model.json import JsonValue, copy_json
from trainc.model.schematree import Children, KindSchema


def drop_nulls(value: JsonValue) -> JsonValue:
    """A copy of ``value`` without null-valued mapping entries, at any depth.

    None of trainc's schemas marks a field nullable, so every null is dropped, as the
    API server drops them for non-nullable fields.
    """
    if isinstance(value, dict):
        return {
            key: drop_nulls(item) if isinstance(item, dict | list) else item
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, list):
        return [drop_nulls(item) if isinstance(item, dict | list) else item for item in value]
    return value


def apply_defaults(value: JsonValue, schema: KindSchema) -> JsonValue:
    """A copy of null-free ``value`` with unknown fields pruned and defaults applied.

    The copy shares no dict or list with ``value`` or with the schema's defaults, so
    later stages may change it freely.
    """
    return _default(value, schema.children(schema.root), schema)


def _default(value: JsonValue, table: Children, schema: KindSchema) -> JsonValue:
    if table.opaque:
        return copy_json(value)
    if isinstance(value, dict):
        result: dict[str, JsonValue] = {}
        for key, item in value.items():
            child = table.get(key)
            if child is None:
                continue  # pruned: the schema does not know the field
            if isinstance(item, dict | list):
                result[key] = _default(item, schema.children(child), schema)
            else:
                result[key] = item
        for key, child in table.defaults:
            if key not in result:
                result[key] = _default(child["default"], schema.children(child), schema)
        return result
    if isinstance(value, list):
        if table.items is None:
            return copy_json(value)
        items = schema.children(table.items)
        return [
            _default(item, items, schema) if isinstance(item, dict | list) else item
            for item in value
        ]
    return value
