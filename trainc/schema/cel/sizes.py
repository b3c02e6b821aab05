"""The size of data as the cost model counts it (:class:`~.cost.Shape`), without converting it.

A site's shape covers its whole value even when its rules read a few fields of it
(:mod:`.reads`); these functions add up the same counts as the conversion walk, over
the same nodes (declared properties, map entries, list items, open data whole), as
plain tuples: they run over most of every object.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from trainc.model.json import JsonValue
from trainc.model.schematree import KindSchema, SchemaNode

#: (nodes, longest list, longest string): a :class:`~.cost.Shape` while it is added up.
Sizes: TypeAlias = tuple[int, int, int]

#: The sizes of something not measured.
NO_SIZES: Final = (0, 0, 0)


def measure(value: JsonValue, node: SchemaNode, schema: KindSchema) -> Sizes:
    """Sizes of ``value`` under ``node``, counting what the converted value would hold."""
    if isinstance(value, dict):
        return _measure_object(value, node, schema)
    if isinstance(value, list):
        item_node = schema.children(node).items
        if item_node is None:
            return untyped_sizes(value)
        nodes, lists, strings = 1, len(value), 0
        for item in value:
            sizes = measure(item, item_node, schema)
            nodes += sizes[0]
            lists = max(lists, sizes[1])
            strings = max(strings, sizes[2])
        return nodes, lists, strings
    return scalar_sizes(value)


def _measure_object(value: dict[str, JsonValue], node: SchemaNode, schema: KindSchema) -> Sizes:
    table = schema.children(node)
    properties, additional = table.properties, table.additional
    if not properties and additional is None:
        return untyped_sizes(value)
    nodes, lists, strings = 1, 0, 0
    for key, item in value.items():
        # What ``table.declared(key)`` answers, inline: this runs for most nodes.
        child = properties.get(key, additional)
        if child is None:
            continue
        if isinstance(item, dict | list):
            sizes = measure(item, child, schema)
            nodes += sizes[0]
            lists = max(lists, sizes[1])
            strings = max(strings, sizes[2])
        else:
            nodes += 1
            if isinstance(item, str) and len(item) > strings:
                strings = len(item)
    return nodes, lists, strings


def scalar_sizes(value: JsonValue) -> Sizes:
    """Sizes of a scalar: one node, and its length when it is a string."""
    return (1, 0, len(value)) if isinstance(value, str) else (1, 0, 0)


def untyped_sizes(value: JsonValue) -> Sizes:
    """Sizes of data the schema leaves open (``x-kubernetes-preserve-unknown-fields``)."""
    if isinstance(value, dict | list):
        nodes, strings = 1, 0
        lists = len(value) if isinstance(value, list) else 0
        for item in value.values() if isinstance(value, dict) else value:
            sizes = untyped_sizes(item)
            nodes += sizes[0]
            lists = max(lists, sizes[1])
            strings = max(strings, sizes[2])
        return nodes, lists, strings
    return scalar_sizes(value)
