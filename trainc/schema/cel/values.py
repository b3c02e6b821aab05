"""Object data typed and named the way Kubernetes hands it to CEL rules.

The API server does not give rules the raw JSON (``docs/upstream.md``, "API server", and
``k8s.io/apiserver/pkg/cel/common/values.go``):

- typing: a ``type: number`` value is a double even when YAML wrote ``1``; an integer
  stays an int; int-or-string values stay what they are. ``format: date-time`` values stay
  strings here, unlike on the server: cel-expr-python rejects Python ``datetime`` values
  in data and takes timestamps only as protobuf messages, which trainc does not depend
  on. No rule in the Trainer or JobSet CRDs reads a time as a timestamp, and the
  generated schemas have no ``duration`` or ``byte`` formats.
- names: object properties are visible under escaped names (:func:`escape`); the keys
  of ``additionalProperties`` maps (labels, annotations) are never escaped.
- metadata: at the root, ``metadata`` shows only ``name`` and ``generateName``.
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
from typing import Final

from trainc.model.json import FieldPath, JsonValue
from trainc.model.schematree import KindSchema, SchemaNode
from trainc.records import dataclass
from trainc.schema.cel.cost import Shape
from trainc.schema.cel.declared import DeclaredRule
from trainc.schema.cel.plan import SitePlan, site_plan
from trainc.schema.cel.reads import ITEMS, Reads, union
from trainc.schema.cel.sizes import NO_SIZES, Sizes, measure, scalar_sizes, untyped_sizes

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
    """A node that declares rules: its path, its converted value, and the rules.

    ``shape`` is always that of the whole value, whatever part of it ``value`` holds.
    """

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
    only_read: bool = False,
) -> list[Site]:
    """Every node of ``data`` declaring a ``wanted`` rule, parents first.

    With ``canonical``, set lists are sorted and map lists ordered by their keys, at any
    depth, so that plain equality is Kubernetes' list-type-aware equality:
    transition rules compare ``self == oldSelf`` regardless of item order there.
    With ``only_read``, a site's value holds only what its rules read of ``self``
    (:mod:`.reads`), which gives the same results for a fraction of the conversion; its
    shape is still that of the whole value. Subtrees that hold no site and lie in no
    site's value are never visited.
    """
    plan = site_plan(schema, wanted)
    if not plan.reaches(schema.root):
        return []
    walker = _Walker(schema, plan, canonical=canonical, only_read=only_read)
    walker.visit(data, schema.root, (), _UNUSED, inside=False)
    return [site for site in walker.sites if site is not None]


class _Unused:
    """Type of :data:`_UNUSED`."""


#: The value at a node is in no site's value (only its shape may count).
_UNUSED: Final = _Unused()

#: What a walk needs of a value: nothing (:data:`_UNUSED`), the whole (None), some fields.
_Need = Reads | _Unused


class _Walker:
    """One pass over an object, collecting sites in document order.

    Every node inside a site is measured, since a site's shape covers its whole value;
    only what some site's rules read is converted.
    """

    def __init__(
        self, schema: KindSchema, plan: SitePlan, *, canonical: bool, only_read: bool
    ) -> None:
        self.schema = schema
        self.plan = plan
        self.canonical = canonical
        self.only_read = only_read
        self.sites: list[Site | None] = []

    def visit(
        self, value: JsonValue, node: SchemaNode, path: FieldPath, need: _Need, *, inside: bool
    ) -> tuple[object, Sizes]:
        """(converted value, sizes) of ``value``; the sizes only ``inside`` a site.

        The converted value is :data:`_UNUSED` when nothing ``need``s it.
        """
        rules = self.plan.rules.get(id(node))
        slot = len(self.sites)
        if rules:
            self.sites.append(None)  # keeps parents before children
            own = self.plan.reads[id(node)] if self.only_read else None
            need = own if isinstance(need, _Unused) else union(need, own)
            inside = True
        if isinstance(value, dict):
            converted, sizes = self._object(value, node, path, need, inside=inside)
        elif isinstance(value, list):
            converted, sizes = self._list(value, node, path, need, inside=inside)
        else:
            converted = _UNUSED if isinstance(need, _Unused) else _scalar(value, node)
            sizes = scalar_sizes(value)
        if rules:
            self.sites[slot] = Site(path, converted, Shape(*sizes), rules)
        return converted, sizes

    def _object(
        self,
        value: dict[str, JsonValue],
        node: SchemaNode,
        path: FieldPath,
        need: _Need,
        *,
        inside: bool,
    ) -> tuple[object, Sizes]:
        table = self.schema.children(node)
        if not table.properties and table.additional is None:
            return (_UNUSED if isinstance(need, _Unused) else value), untyped_sizes(value)
        if not path and isinstance(metadata := value.get("metadata"), dict):
            value = {**value, "metadata": {k: metadata[k] for k in _ROOT_METADATA if k in metadata}}
        if isinstance(need, Mapping) and ITEMS in need:
            need = None  # a comprehension over an object's keys: not followed
        unused = isinstance(need, _Unused)
        converted: dict[str, object] = {}
        nodes, lists, strings = 1, 0, 0
        properties, additional = table.properties, table.additional
        for key, item in value.items():
            child = properties.get(key, additional)  # ``table.declared(key)``, inline
            if child is None:
                continue  # an undeclared property: the API server's lookup ignores it
            if unused:
                _, sizes = self._child(item, child, path, key, _UNUSED, inside=inside)
            else:
                names = (key,) if table.additional is not None else visible_names(key)
                typed, sizes = self._child(
                    item, child, path, key, _below(need, names), inside=inside
                )
                if typed is not _UNUSED:
                    for name in names:
                        converted[name] = typed
            nodes += sizes[0]
            lists = max(lists, sizes[1])
            strings = max(strings, sizes[2])
        return (_UNUSED if unused else converted), (nodes, lists, strings)

    def _list(
        self,
        value: list[JsonValue],
        node: SchemaNode,
        path: FieldPath,
        need: _Need,
        *,
        inside: bool,
    ) -> tuple[object, Sizes]:
        item_node = self.schema.children(node).items
        if item_node is None:
            return (_UNUSED if isinstance(need, _Unused) else value), untyped_sizes(value)
        # Fields selected from a list itself (no comprehension) fail whatever it holds,
        # so only ITEMS says what is read of the items; without it, they are read whole.
        item_need = need.get(ITEMS) if isinstance(need, Mapping) else need
        items: list[object] = []
        nodes, lists, strings = 1, len(value), 0
        for index, item in enumerate(value):
            typed, sizes = self._child(item, item_node, path, index, item_need, inside=inside)
            items.append(typed)
            nodes += sizes[0]
            lists = max(lists, sizes[1])
            strings = max(strings, sizes[2])
        if isinstance(need, _Unused):
            return _UNUSED, (nodes, lists, strings)
        if self.canonical:
            items = _canonical_order(items, node)
        return items, (nodes, lists, strings)

    def _child(
        self,
        value: JsonValue,
        node: SchemaNode,
        path: FieldPath,
        key: str | int,
        need: _Need,
        *,
        inside: bool,
    ) -> tuple[object, Sizes]:
        """The (value, sizes) of ``path`` + ``key``, only measured when no site is involved."""
        if isinstance(need, _Unused) and not self.plan.reaches(node):
            return _UNUSED, measure(value, node, self.schema) if inside else NO_SIZES
        return self.visit(value, node, (*path, key), need, inside=inside)


def _below(need: _Need, names: tuple[str, ...]) -> _Need:
    """What is needed of a property visible under ``names``, given what its object needs."""
    if need is None or isinstance(need, _Unused):
        return need
    matched = [need[name] for name in names if name in need]
    return functools.reduce(union, matched) if matched else _UNUSED


def _scalar(value: JsonValue, node: SchemaNode) -> object:
    if node.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


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
