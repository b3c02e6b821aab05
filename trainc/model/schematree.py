"""The generated JSON Schema of a kind, navigable in step with a document.

Structural checks, defaulting, list-map keys, CEL rules and strategic merge patch all
need "the schema node that governs this value". This module answers that once, following
``$ref`` into the Kubernetes definitions, so each layer walks documents the same way. It
sits in ``model`` because both ``validate`` and ``resolve`` (below it) read the schemas.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.model.schemafiles import SCHEMA_TARGETS
from trainc.resources import data_dir

SchemaNode = Mapping[str, JsonValue]

_EMPTY: SchemaNode = {}


@dataclass(frozen=True, slots=True, eq=False)
class KindSchema:
    """One kind's JSON Schema with ``$ref`` resolution and child lookup."""

    kind: str
    document: JsonObject

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

    def child(self, node: SchemaNode, key: str | int) -> SchemaNode | None:
        """Schema of ``key`` inside a value governed by ``node``, or None if unknown there.

        Integers index lists (``items``); strings name properties, or map entries when
        the object has ``additionalProperties`` as a schema.
        """
        if isinstance(key, int):
            items = node.get("items")
            return self.resolve(items) if isinstance(items, dict) else None
        properties = node.get("properties")
        if isinstance(properties, dict) and isinstance(sub := properties.get(key), dict):
            return self.resolve(sub)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            return self.resolve(extra)
        if node.get("x-kubernetes-preserve-unknown-fields") is True:
            return _EMPTY
        return None

    def node_at(self, path: FieldPath) -> SchemaNode | None:
        """Schema governing the value at ``path``, or None if the path leaves the schema."""
        node: SchemaNode | None = self.root
        for key in path:
            if node is None:
                return None
            node = self.child(node, key)
        return node


def walk(
    schema: KindSchema, value: JsonValue, node: SchemaNode | None = None, path: FieldPath = ()
) -> Iterator[tuple[FieldPath, JsonValue, SchemaNode]]:
    """Every value in ``value`` with its schema node, parents before children.

    Values the schema does not describe (unknown fields) are skipped with their subtree:
    the structural layer reports them, and no later layer should reason about them.
    """
    stack: list[tuple[FieldPath, JsonValue, SchemaNode]] = [
        (path, value, node if node is not None else schema.root)
    ]
    while stack:
        current_path, current, current_node = stack.pop()
        yield current_path, current, current_node
        children: list[tuple[FieldPath, JsonValue, SchemaNode]] = []
        if isinstance(current, dict):
            for key, child_value in current.items():
                child_node = schema.child(current_node, key)
                if child_node is not None:
                    children.append(((*current_path, key), child_value, child_node))
        elif isinstance(current, list):
            item_node = schema.child(current_node, 0)
            if item_node is not None:
                children.extend(
                    ((*current_path, index), item, item_node) for index, item in enumerate(current)
                )
        stack.extend(reversed(children))


_TARGETS = {target.name: target for target in SCHEMA_TARGETS}


def schema_file(name: str, directory: Path | None = None) -> Path:
    """Path of the generated JSON Schema named ``name`` (a kind, ``Config``, ...)."""
    return (directory or data_dir("schemas")) / _TARGETS[name].path


@functools.cache
def load_kind_schema(name: str) -> KindSchema:
    """The generated schema of an input kind (or of the config or policy files), read once."""
    document = json.loads(schema_file(name).read_text(encoding="utf-8"))
    return KindSchema(kind=name, document=document)
