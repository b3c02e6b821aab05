"""The generated JSON Schema of a kind, navigable in step with a document.

Structural checks, defaulting, list-map keys, CEL rules and strategic merge patch all
need "the schema node that governs this value". This module answers that once, following
``$ref`` into the Kubernetes definitions, so each layer walks documents the same way. It
sits in ``model`` because both ``validate`` and ``resolve`` (below it) read the schemas.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.model.schemafiles import SCHEMA_TARGETS
from trainc.records import dataclass
from trainc.resources import data_dir

SchemaNode = Mapping[str, JsonValue]

_EMPTY: SchemaNode = {}


@dataclass(frozen=True, slots=True, eq=False)
class Children:
    """Everything :meth:`KindSchema.child` can answer about one node, worked out once.

    ``properties`` maps each declared property to its node, ``$ref`` resolved (Draft 4
    requires a property's schema to be an object); ``items`` governs list items;
    ``additional`` is the resolved ``additionalProperties`` schema of a map;
    ``preserve_unknown`` is ``x-kubernetes-preserve-unknown-fields``, and ``opaque`` says
    it comes without ``properties``: the value is kept whole; ``other`` governs
    any undeclared key: ``additional``, an empty node when unknown fields are preserved,
    else None. ``defaults`` lists, in declaration order, the properties whose node has a
    ``default``. ``map_keys`` names, for a map-type list (``x-kubernetes-list-map-keys``),
    each key with the default its item schema gives it (None without one), else is None.
    ``node`` is the node itself: holding it keeps its ``id`` from being
    reused while the table is cached.
    """

    node: SchemaNode
    properties: Mapping[str, SchemaNode]
    items: SchemaNode | None
    additional: SchemaNode | None
    preserve_unknown: bool
    opaque: bool
    other: SchemaNode | None
    defaults: tuple[tuple[str, SchemaNode], ...]
    map_keys: tuple[tuple[str, JsonValue], ...] | None

    def get(self, key: str) -> SchemaNode | None:
        """Schema of property ``key`` (declared or not), or None if unknown here."""
        found = self.properties.get(key)
        return found if found is not None else self.other

    def declared(self, key: str) -> SchemaNode | None:
        """Schema of a declared property or map entry ``key``; None for any other key,
        even one kept by ``x-kubernetes-preserve-unknown-fields`` (CEL cannot see it)."""
        found = self.properties.get(key)
        return found if found is not None else self.additional


@dataclass(frozen=True, slots=True, eq=False)
class KindSchema:
    """One kind's JSON Schema with ``$ref`` resolution and child lookup.

    Documents are walked hundreds of times per object (structure, defaults, CEL), so
    each node's :class:`Children` are computed on first use and kept for the life of
    the schema. The table is keyed by node identity; that is safe because every cached
    table holds its node, and the schema (not any object being validated) owns them.
    """

    kind: str
    document: JsonObject
    _tables: dict[int, Children] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def root(self) -> SchemaNode:
        """The schema of the whole object."""
        return self.resolve(self.document)

    def resolve(self, node: SchemaNode) -> SchemaNode:
        """Follow ``$ref`` (``#/definitions/<name>``) until a concrete node is reached."""
        current = node
        while isinstance(ref := current.get("$ref"), str):
            definitions = self.document.get("definitions")
            name = ref.rsplit("/", 1)[-1]
            target = definitions.get(name) if isinstance(definitions, dict) else None
            if not isinstance(target, dict):
                raise KeyError(f"{self.kind} schema: unresolvable $ref {ref}")
            current = target
        return current

    def children(self, node: SchemaNode) -> Children:
        """The child table of ``node``, a node this schema returned (cached)."""
        table = self._tables.get(id(node))
        if table is None:
            table = self._tables[id(node)] = self._table(node)
        return table

    def child(self, node: SchemaNode, key: str | int) -> SchemaNode | None:
        """Schema of ``key`` inside a value governed by ``node``, or None if unknown there;
        a string names a property, or a map entry under ``additionalProperties``."""
        table = self.children(node)
        if isinstance(key, int):
            return table.items
        return table.get(key)

    def node_at(self, path: FieldPath) -> SchemaNode | None:
        """Schema governing the value at ``path``, or None if the path leaves the schema."""
        node: SchemaNode | None = self.root
        for key in path:
            if node is None:
                return None
            node = self.child(node, key)
        return node

    def _table(self, node: SchemaNode) -> Children:
        declared = node.get("properties")
        properties = (
            {key: self.resolve(sub) for key, sub in declared.items() if isinstance(sub, dict)}
            if isinstance(declared, dict)
            else {}
        )
        items = node.get("items")
        extra = node.get("additionalProperties")
        additional = self.resolve(extra) if isinstance(extra, dict) else None
        preserve_unknown = node.get("x-kubernetes-preserve-unknown-fields") is True
        if additional is None and preserve_unknown:
            other: SchemaNode | None = _EMPTY
        else:
            other = additional
        item_node = self.resolve(items) if isinstance(items, dict) else None
        return Children(
            node=node,
            properties=properties,
            items=item_node,
            additional=additional,
            preserve_unknown=preserve_unknown,
            opaque=preserve_unknown and "properties" not in node,
            other=other,
            defaults=tuple((key, sub) for key, sub in properties.items() if "default" in sub),
            map_keys=self._map_keys(node, item_node),
        )

    def _map_keys(
        self, node: SchemaNode, item_node: SchemaNode | None
    ) -> tuple[tuple[str, JsonValue], ...] | None:
        keys = node.get("x-kubernetes-list-map-keys")
        if node.get("x-kubernetes-list-type") != "map" or not isinstance(keys, list):
            return None
        table = self.children(item_node) if item_node is not None else None
        return tuple(
            (str(key), found.get("default") if table and (found := table.get(str(key))) else None)
            for key in keys
        )


_TARGETS = {target.name: target for target in SCHEMA_TARGETS}


def schema_file(name: str, directory: Path | None = None) -> Path:
    """Path of the generated JSON Schema named ``name`` (a kind, ``Config``, ...)."""
    return (directory or data_dir("schemas")) / _TARGETS[name].path


@functools.cache
def load_kind_schema(name: str) -> KindSchema:
    """The generated schema of an input kind (or of the config or policy files), read once."""
    document = json.loads(schema_file(name).read_text(encoding="utf-8"))
    return KindSchema(kind=name, document=document)
