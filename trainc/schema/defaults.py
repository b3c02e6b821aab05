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
    """``value`` without null-valued mapping entries, at any depth.

    None of trainc's schemas marks a field nullable, so every null is dropped, as the
    API server drops them for non-nullable fields. Data without a null (nearly every
    object, and every object trainc builds) is returned as it is, not copied: callers
    only read the result, and :func:`apply_defaults` makes the copy they keep.
    """
    return _without_nulls(value) if _holds_null(value) else value


def _holds_null(value: JsonValue) -> bool:
    if isinstance(value, dict):
        for item in value.values():
            if item is None or (isinstance(item, dict | list) and _holds_null(item)):
                return True
    elif isinstance(value, list):
        return any(isinstance(item, dict | list) and _holds_null(item) for item in value)
    return False


def _without_nulls(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {
            key: _without_nulls(item) if isinstance(item, dict | list) else item
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, list):
        return [_without_nulls(item) if isinstance(item, dict | list) else item for item in value]
    return value


def apply_defaults(value: JsonValue, schema: KindSchema) -> JsonValue:
    """A copy of null-free ``value`` with unknown fields pruned and defaults applied.

    The copy shares no dict or list with ``value`` or with the schema's defaults, so
    later stages may change it freely.
    """
    return _default(value, schema.children(schema.root), schema)


def _default(value: JsonValue, table: Children, schema: KindSchema) -> JsonValue:
    # Runs over every node of every object; the child tables are looked up inline.
    if table.opaque:
        return copy_json(value)
    if isinstance(value, dict):
        properties, other, children = table.properties, table.other, schema.children
        result: dict[str, JsonValue] = {}
        for key, item in value.items():
            child = properties.get(key, other)
            if child is None:
                continue  # pruned: the schema does not know the field
            if isinstance(item, dict | list):
                result[key] = _default(item, children(child), schema)
            else:
                result[key] = item
        for key, child in table.defaults:
            if key not in result:
                result[key] = _default(child["default"], children(child), schema)
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
