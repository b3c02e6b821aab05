"""Object data typed and named the way Kubernetes hands it to CEL rules.

The API server does not give rules the raw JSON (``upstream-semantics.md`` §7.3, and
``k8s.io/apiserver/pkg/cel/common/values.go``):

- item 1: a ``type: number`` value is a double even when YAML wrote ``1``; an integer
  stays an int; int-or-string values stay what they are. ``format: date-time`` values stay
  strings here, unlike on the server: cel-expr-python rejects Python ``datetime`` values
  in data and takes timestamps only as protobuf messages, which trainc does not depend
  on (§7.4). No rule in the Trainer or JobSet CRDs reads a time as a timestamp, and the
  generated schemas have no ``duration`` or ``byte`` formats.
- item 3: object properties are visible under escaped names (:func:`escape`); the keys
  of ``additionalProperties`` maps (labels, annotations) are never escaped.
- item 6: at the root, ``metadata`` shows only ``name`` and ``generateName``.
- properties the schema does not declare are invisible (the defaulting layer has
  already pruned them).

One pass converts a whole object and records the converted value and :class:`Shape` of
every node that declares rules, so each node is converted once however many rules it
has, and no subtree is converted again for the rules of the nodes inside it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from trainc.model.json import FieldPath, JsonValue
from trainc.model.schematree import KindSchema, SchemaNode
from trainc.validate.cel.cost import Shape
from trainc.validate.cel.declared import DeclaredRule, rules_at

#: Words the CEL grammar reserves; Kubernetes escapes a property so named to ``__word__``.
RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
#: The reserved words cel-cpp's parser still rejects after a ``.`` (it accepts the others).
_UNSELECTABLE = frozenset({"true", "false", "null", "in"})

_ESCAPABLE = re.compile(r"[A-Za-z_./-][A-Za-z0-9_./-]*")
_EXPAND = re.compile(r"__|[-./]")
_EXPANSIONS = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_ESCAPE_SEQUENCE = re.compile(r"__[^_]+__")
_UNEXPANSIONS = {"underscores": "__", "dot": ".", "dash": "-", "slash": "/"}
_ROOT_METADATA = ("name", "generateName")


def escape(name: str) -> str | None:
    """The CEL identifier of property ``name``, or None when it has none.

    Kubernetes' ``Escape``: ``__`` → ``__underscores__``, ``.`` → ``__dot__``, ``-`` →
    ``__dash__``, ``/`` → ``__slash__``, a reserved word ``w`` → ``__w__``; a name that
    starts with a digit or holds any other character cannot be selected at all.
    """
    if name in RESERVED:
        return f"__{name}__"
    if name[:1].isdigit() or not _ESCAPABLE.fullmatch(name):
        return None
    return _EXPAND.sub(lambda match: _EXPANSIONS[match.group()], name)


def unescape(identifier: str) -> str:
    """The property name behind a CEL identifier (Kubernetes' ``Unescape``), for messages."""
    if identifier.startswith("__") and identifier[2:-2] in RESERVED:
        return identifier[2:-2]
    return _ESCAPE_SEQUENCE.sub(
        lambda match: _UNEXPANSIONS.get(match.group()[2:-2], match.group()), identifier
    )


@functools.lru_cache(maxsize=4096)
def visible_names(name: str) -> tuple[str, ...]:
    """Keys under which property ``name`` is put in the data CEL sees.

    A reserved word is visible escaped, as Kubernetes declares it, and, unless the
    grammar forbids selecting it, under its own name too: the API server resolves a
    selected field by unescaping it, so ``has(t.metadata.namespace)`` (a JobSet CRD rule)
    works beside ``t.metadata.__namespace__``. A name with no identifier keeps its key, so
    equality still sees it, though no rule can select it.
    """
    escaped = escape(name)
    if escaped is None:
        return (name,)
    if name in RESERVED and name not in _UNSELECTABLE:
        return (escaped, name)
    return (escaped,)


@dataclass(frozen=True, slots=True)
class Site:
    """A node that declares rules: its path, its converted value, and the rules."""

    path: FieldPath
    value: object
    shape: Shape
    rules: tuple[DeclaredRule, ...]


def rule_sites(
    data: JsonValue,
    schema: KindSchema,
    wanted: Callable[[DeclaredRule], bool],
    *,
    canonical: bool = False,
) -> list[Site]:
    """Every node of ``data`` declaring a ``wanted`` rule, parents first.

    With ``canonical``, set lists are sorted and map lists ordered by their keys, at any
    depth, so that plain equality is Kubernetes' list-type-aware equality (§7.3 item 4):
    transition rules compare ``self == oldSelf`` regardless of item order there.
    """
    converter = _Converter(schema, wanted, canonical=canonical)
    converter.convert(data, schema.root, ())
    return [site for site in converter.sites if site is not None]


class _Converter:
    """One conversion pass, collecting sites in document order."""

    def __init__(
        self, schema: KindSchema, wanted: Callable[[DeclaredRule], bool], *, canonical: bool
    ) -> None:
        self.schema = schema
        self.wanted = wanted
        self.canonical = canonical
        self.sites: list[Site | None] = []

    def convert(self, value: JsonValue, node: SchemaNode, path: FieldPath) -> tuple[object, Shape]:
        declared = rules_at(self.schema, node)
        rules = tuple(filter(self.wanted, declared)) if declared else ()
        slot = len(self.sites)
        if rules:
            self.sites.append(None)  # keeps parents before children
        if isinstance(value, dict):
            converted, shape = self._object(value, node, path)
        elif isinstance(value, list):
            converted, shape = self._list(value, node, path)
        else:
            converted, shape = _scalar(value, node)
        if rules:
            self.sites[slot] = Site(path, converted, shape, rules)
        return converted, shape

    def _object(
        self, value: dict[str, JsonValue], node: SchemaNode, path: FieldPath
    ) -> tuple[object, Shape]:
        declared = node.get("properties")
        properties = declared if isinstance(declared, dict) else {}
        is_map = isinstance(node.get("additionalProperties"), dict)
        if not properties and not is_map:
            return value, _untyped_shape(value)
        if not path and isinstance(metadata := value.get("metadata"), dict):
            value = {**value, "metadata": {k: metadata[k] for k in _ROOT_METADATA if k in metadata}}
        converted: dict[str, object] = {}
        shapes: list[Shape] = []
        for key, item in value.items():
            child = self.schema.child(node, key)
            if child is None or (not is_map and key not in properties):
                continue  # an undeclared property: the API server's lookup ignores it
            typed, shape = self.convert(item, child, (*path, key))
            shapes.append(shape)
            for name in (key,) if is_map else visible_names(key):
                converted[name] = typed
        return converted, Shape.of_container(shapes)

    def _list(
        self, value: list[JsonValue], node: SchemaNode, path: FieldPath
    ) -> tuple[object, Shape]:
        item_node = self.schema.child(node, 0)
        if item_node is None:
            return value, _untyped_shape(value)
        items: list[object] = []
        shapes: list[Shape] = []
        for index, item in enumerate(value):
            typed, shape = self.convert(item, item_node, (*path, index))
            items.append(typed)
            shapes.append(shape)
        if self.canonical:
            items = _canonical_order(items, node)
        return items, Shape.of_container(shapes, len(value))


def _scalar(value: JsonValue, node: SchemaNode) -> tuple[object, Shape]:
    if isinstance(value, str):
        return value, Shape(longest_string=len(value))
    if node.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value), Shape()
    return value, Shape()


def _untyped_shape(value: JsonValue) -> Shape:
    """Shape of data the schema leaves open (``x-kubernetes-preserve-unknown-fields``)."""
    if isinstance(value, dict):
        return Shape.of_container(_untyped_shape(item) for item in value.values())
    if isinstance(value, list):
        return Shape.of_container((_untyped_shape(item) for item in value), len(value))
    return Shape(longest_string=len(value)) if isinstance(value, str) else Shape()


def _canonical_order(items: list[object], node: SchemaNode) -> list[object]:
    """Items of a set or map list in a fixed order; other lists keep theirs."""
    list_type = node.get("x-kubernetes-list-type")
    if list_type == "set":
        return sorted(items, key=_order_key)
    keys = node.get("x-kubernetes-list-map-keys")
    if list_type == "map" and isinstance(keys, list):
        names = [visible_names(str(key))[0] for key in keys]
        return sorted(items, key=lambda item: tuple(_order_key(_get(item, n)) for n in names))
    return items


def _get(item: object, name: str) -> object:
    """A map-list key of an item; absent keys were given their default by the defaulting layer."""
    return item.get(name) if isinstance(item, Mapping) else None


def _order_key(value: object) -> tuple[int, float | str]:
    """A total order over converted values: by kind, then by value."""
    if value is None:
        return (0, "")
    if isinstance(value, bool):
        return (1, float(value))
    if isinstance(value, int | float):
        return (2, value)
    if isinstance(value, str):
        return (3, value)
    return (4, json.dumps(value, sort_keys=True, default=repr))
