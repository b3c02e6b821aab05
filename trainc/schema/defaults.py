"""The one walk that makes an object what the API server stores, and what it checks on the way.

Order follows the API server (``docs/upstream.md``, "API server"): nulls in non-nullable
fields are dropped first, unknown fields are pruned, and schema defaults fill in absent
fields, parents before children, so that ``has()`` in a rule and the compiler's reads
see exactly what the server would store. Two structural checks that JSON Schema cannot
express ride on the same walk: integer formats, and duplicate keys in map-type lists.

Every input object and every object compile emits goes through here, so dropping nulls,
checking, pruning and defaulting are one pass over the data, sharing each node's schema
lookup, instead of a pass each; jsonschema-rs' own pass is the only other one.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.diagnostics import Rule, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, PathChain, chain_path, format_path
from trainc.model.schematree import Children, KindSchema, SchemaNode
from trainc.records import dataclass

SCHEMA_DUPLICATE_LIST_KEY = Rule(
    "schema.duplicate-list-key",
    Severity.ERROR,
    "a map-type list holds two items with the same key",
)

SCHEMA_INT_RANGE = Rule(
    "schema.int-range",
    Severity.ERROR,
    "an integer does not fit the field's integer format",
)

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


@dataclass(frozen=True, slots=True)
class SchemaFinding:
    """A structural problem at a path, independent of which file holds the document."""

    code: str
    path: FieldPath
    message: str
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class Stored:
    """What the walk makes of an object.

    ``null_free`` is the object without nulls (the object itself when it holds none),
    what the schema check judges; ``defaulted`` is a copy of it with unknown fields
    pruned and defaults applied, sharing no dict or list with the input or the schema,
    so later stages may change it freely; ``findings`` are the integer-format and
    list-key problems, in document order.
    """

    null_free: JsonValue
    defaulted: JsonValue
    findings: list[SchemaFinding]


def store(value: JsonValue, schema: KindSchema) -> Stored:
    """``value`` as the API server would store it under ``schema``, and what the walk found."""
    walk = _Walk(schema)
    defaulted = walk.value(value, schema.root, None)
    null_free = _without_nulls(value) if walk.saw_null else value
    return Stored(null_free, defaulted, walk.found)


def apply_defaults(value: JsonValue, schema: KindSchema) -> JsonValue:
    """A copy of ``value`` without nulls, unknown fields pruned and defaults applied."""
    return store(value, schema).defaulted


def drop_nulls(value: JsonValue) -> JsonValue:
    """``value`` without null-valued mapping entries, at any depth.

    None of trainc's schemas marks a field nullable, so every null is dropped, as the
    API server drops them for non-nullable fields. Data without a null (nearly every
    object, and every object trainc builds) is returned as it is, not copied: callers
    only read the result.
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


class _Walk:
    """One pass over an object, parents before children, in document order.

    It runs over every node of every object, so the path is kept as a chain of
    ``(parent, key)`` pairs, made into a :data:`FieldPath` only for a finding, and the
    child tables are read inline. Nulls are left out of the copy as they are met; a
    subtree the schema prunes is only scanned for them, since the schema check sees the
    object without its nulls, pruned fields included.
    """

    __slots__ = ("found", "saw_null", "schema")

    def __init__(self, schema: KindSchema) -> None:
        self.schema = schema
        self.found: list[SchemaFinding] = []
        self.saw_null = False

    def value(self, value: JsonValue, node: SchemaNode, chain: PathChain) -> JsonValue:
        """The stored copy of ``value``, governed by ``node`` at ``chain``."""
        if isinstance(value, dict):
            return self._object(value, node, chain)
        if isinstance(value, list):
            return self._list(value, node, chain)
        if isinstance(value, int) and not isinstance(value, bool):
            self._check_int(chain, value, node)
        return value

    def _object(self, value: JsonObject, node: SchemaNode, chain: PathChain) -> JsonObject:
        table = self.schema.children(node)
        copied = self._mapping(value, table, chain)
        if table.opaque:
            # Kept whole, though checked as the schema describes its entries.
            return _without_nulls(value)  # type: ignore[return-value]  # a mapping stays one
        for key, child in table.defaults:
            if key not in copied:
                copied[key] = _Walk(self.schema).value(child["default"], child, None)
        return copied

    def _mapping(self, value: JsonObject, table: Children, chain: PathChain) -> JsonObject:
        properties, other = table.properties, table.other
        result: JsonObject = {}
        for key, item in value.items():
            if item is None:
                self.saw_null = True
                continue
            child = properties.get(key, other)
            if child is None:
                # Pruned: the schema does not know the field.
                if isinstance(item, dict | list) and _holds_null(item):
                    self.saw_null = True
            elif isinstance(item, str):
                result[key] = item  # most values: nothing to check
            elif isinstance(item, dict):
                result[key] = self._object(item, child, (chain, key))
            elif isinstance(item, list):
                result[key] = self._list(item, child, (chain, key))
            else:
                if isinstance(item, int) and not isinstance(item, bool):
                    self._check_int((chain, key), item, child)
                result[key] = item
        return result

    def _list(self, value: list[JsonValue], node: SchemaNode, chain: PathChain) -> JsonValue:
        table = self.schema.children(node)
        if table.map_keys is not None and len(value) > 1:
            self.found.extend(_duplicate_keys(chain, value, table.map_keys))
        items = table.items
        if items is None:
            if _holds_null(value):
                self.saw_null = True
            return _without_nulls(value)
        copied = [
            item if isinstance(item, str) else self.value(item, items, (chain, index))
            for index, item in enumerate(value)
        ]
        return _without_nulls(value) if table.opaque else copied

    def _check_int(self, chain: PathChain, value: int, node: SchemaNode) -> None:
        low, high = _INT_RANGES.get(str(node.get("format")), _INT_RANGES["int64"])
        if not low <= value <= high:
            path = chain_path(chain)
            self.found.append(
                SchemaFinding(
                    SCHEMA_INT_RANGE.code,
                    path,
                    f"{format_path(path)} is {value}, outside the "
                    f"{node.get('format', 'int64')} range [{low}, {high}]",
                )
            )


def _duplicate_keys(
    chain: PathChain, items: list[JsonValue], keys: tuple[tuple[str, JsonValue], ...]
) -> Iterator[SchemaFinding]:
    """Items of a map-type list that repeat an earlier item's keys.

    A key an item leaves out is its default (the server fills it in); a null key is
    dropped before the server sees it, so its default stands in too.
    """
    seen: dict[tuple[JsonValue, ...], int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        identity = tuple(
            given if (given := item.get(name)) is not None else default for name, default in keys
        )
        if any(isinstance(value, dict | list) for value in identity):
            continue  # a key that is no scalar has its type finding; it identifies nothing
        if identity in seen:
            path = chain_path(chain)
            shown = ", ".join(
                f"{name}={value!r}" for (name, _), value in zip(keys, identity, strict=True)
            )
            yield SchemaFinding(
                SCHEMA_DUPLICATE_LIST_KEY.code,
                (*path, index),
                f"{format_path(path)}[{index}] repeats {shown} of item {seen[identity]}; "
                "items of this list are merged by key, so each key must be unique",
            )
        else:
            seen[identity] = index
