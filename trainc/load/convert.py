"""Turning ruamel's composed node graph into plain JSON-shaped data plus node positions.

Working on nodes rather than on ruamel's round-trip objects keeps the original text of
timestamps and unknown tags (Kubernetes decodes those as strings), gives every node its
position, and lets aliases be bounded before they are expanded: the composer shares one
node for every use of an anchor, so a billion-laughs file is small as a graph and is
refused by counting, never by building it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MantissaNoDotYAML1_1Warning
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from trainc.diagnostics import Diagnostic, finding
from trainc.load.limits import Limits
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, JsonValue, format_path

_TAG_PREFIX = "tag:yaml.org,2002:"
_STR = _TAG_PREFIX + "str"
_MERGE = _TAG_PREFIX + "merge"

Positions = dict[FieldPath, tuple[int, int]]


def _position(node: Node) -> tuple[int, int]:
    """Where a node starts: 0-based line and column, as Document.positions holds them."""
    mark = node.start_mark
    return (mark.line, mark.column)


def _tag(node: Node) -> str:
    """The resolved tag (``tag:yaml.org,2002:int``); composed nodes always have one."""
    return node.tag or ""


def _yaml_float(constructor: Any, node: Node) -> float:
    """A float scalar; ruamel's warning about ``1e3`` in ``%YAML 1.1`` documents is muted
    because a library must not write to stderr (the value is read correctly anyway)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MantissaNoDotYAML1_1Warning)
        return float(SafeConstructor.construct_yaml_float(constructor, node))


def mark_finding(
    source: SourceFile,
    line0: int,
    column0: int,
    code: str,
    message: str,
    *,
    path: FieldPath = (),
    hint: str | None = None,
) -> Diagnostic:
    """A finding at a 0-based parser position, mapped to the line the user edits."""
    return finding(
        code,
        message,
        file=source.path,
        line=source.user_line(line0 + 1),
        column=column0 + 1,
        field_path=format_path(path) or None,
        hint=hint,
    )


class Rejected(Exception):  # noqa: N818  # a control-flow signal, caught by yamlsrc
    """A document (or, with ``whole_file``, the rest of the file) cannot be converted."""

    def __init__(self, diagnostic: Diagnostic, *, whole_file: bool) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.whole_file = whole_file


class Converter:
    """Converts the documents of one file; the node budget is shared by the whole file."""

    def __init__(self, source: SourceFile, limits: Limits, constructor: Any) -> None:
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self._max_depth = limits.max_depth
        self._budget = limits.max_yaml_nodes
        self._remaining = limits.max_yaml_nodes
        self._positions: Positions = {}
        # Scalar tags that need typing; every other tag (timestamp, binary, custom) keeps
        # its text, as Kubernetes' JSON decoding sees it. The base-class methods return
        # plain int/float/bool and follow the document's %YAML version.
        base = SafeConstructor
        self._scalars: dict[str, Callable[[Node], JsonValue]] = {
            _TAG_PREFIX + "null": lambda node: None,
            _TAG_PREFIX + "bool": lambda node: base.construct_yaml_bool(constructor, node),
            _TAG_PREFIX + "int": lambda node: base.construct_yaml_int(constructor, node),
            _TAG_PREFIX + "float": lambda node: _yaml_float(constructor, node),
        }

    def document(self, root: Node, *, aliased: bool) -> tuple[JsonValue, Positions]:
        """Data and positions of one document; raises Rejected when it breaks a bound."""
        if aliased:
            self._check_expansion(root)
        self._positions = {(): _position(root)}
        return self._value(root, (), 1), self._positions

    def _finding(
        self, node: Node, code: str, message: str, path: FieldPath, hint: str | None = None
    ) -> Diagnostic:
        line, column = _position(node)
        return mark_finding(self.source, line, column, code, message, path=path, hint=hint)

    def _over_budget(self, node: Node, path: FieldPath) -> Rejected:
        message = (
            f"the file expands to more than {self._budget} YAML nodes (each use of an alias"
            " counts its whole anchored value); nothing after this point is read"
        )
        return Rejected(self._finding(node, "load.alias-bound", message, path), whole_file=True)

    def _check_expansion(self, root: Node) -> None:
        """Refuse a document whose aliases expand past the budget, without expanding them.

        Sizes are memoised per node, so the pass is linear in the composed graph; an alias
        inside its own anchored value (``&a [*a]``) would expand forever and is refused.
        """
        sizes: dict[int, int] = {}
        active: set[int] = set()

        def size(node: Node) -> int:
            known = sizes.get(id(node))
            if known is not None:
                return known
            if id(node) in active:
                message = "an alias is used inside the value it names, so it never ends"
                finding = self._finding(node, "load.alias-bound", message, ())
                raise Rejected(finding, whole_file=False)
            total = 1
            if isinstance(node, MappingNode):
                active.add(id(node))
                total += sum(size(value) for _, value in node.value)
            elif isinstance(node, SequenceNode):
                active.add(id(node))
                total += sum(size(item) for item in node.value)
            active.discard(id(node))
            if total > self._remaining:
                raise self._over_budget(node, ())
            sizes[id(node)] = total
            return total

        size(root)

    def _value(self, node: Node, path: FieldPath, depth: int) -> JsonValue:
        if depth > self._max_depth:
            message = f"aliases nest the document deeper than {self._max_depth} levels"
            raise Rejected(self._finding(node, "load.too-deep", message, ()), whole_file=False)
        self._remaining -= 1
        if self._remaining < 0:
            raise self._over_budget(node, path)
        if isinstance(node, MappingNode):
            result: JsonObject = {}
            self._fill(node, path, depth, result, merged=False)
            return result
        if isinstance(node, SequenceNode):
            return self._sequence(node, path, depth)
        return self._scalar(node, path)

    def _scalar(self, node: Node, path: FieldPath) -> JsonValue:
        tag = _tag(node)
        if tag == _STR:
            if getattr(node, "style", None) == ">":
                # ruamel marks where a folded scalar was folded with BEL characters (to
                # round-trip the layout); a literal BEL cannot occur in a block scalar.
                return str(node.value).replace("\a", "")
            return str(node.value)
        convert = self._scalars.get(tag)
        if convert is None:
            return str(node.value)
        try:
            return convert(node)
        except (ValueError, KeyError, IndexError):
            message = f"{node.value!r} is not a valid !!{tag.removeprefix(_TAG_PREFIX)}"
            self.diagnostics.append(self._finding(node, "load.syntax", message, path))
            return str(node.value)

    def _sequence(self, node: SequenceNode, path: FieldPath, depth: int) -> JsonValue:
        items: list[JsonValue] = []
        for index, item in enumerate(node.value):
            child = (*path, index)
            self._positions[child] = _position(item)
            items.append(self._value(item, child, depth + 1))
        return items

    def _fill(
        self, node: MappingNode, path: FieldPath, depth: int, result: JsonObject, *, merged: bool
    ) -> None:
        """Add a mapping's entries to ``result``; explicit keys win over ``<<`` merges.

        ``merged`` entries come from an anchored mapping (YAML merge keys, which Kubernetes'
        YAML decoder honours) and never replace a key already present.
        """
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merges.append(value_node)
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            child = (*path, key)
            if key in result:
                if merged:
                    continue
                first = self.source.user_line(self._positions[child][0] + 1)
                message = f"key {key!r} is defined twice (first on line {first}); the last wins"
                self.diagnostics.append(
                    self._finding(key_node, "load.duplicate-key", message, child)
                )
            self._positions[child] = _position(key_node)
            result[key] = self._value(value_node, child, depth + 1)
        for merge in merges:
            sources = merge.value if isinstance(merge, SequenceNode) else [merge]
            for source in sources:
                if isinstance(source, MappingNode):
                    self._fill(source, path, depth, result, merged=True)
                else:
                    message = "a merge key (<<) takes a mapping or a list of mappings"
                    self.diagnostics.append(self._finding(source, "load.syntax", message, path))

    def _key(self, node: Node, path: FieldPath) -> str | None:
        """The key as a string; a non-string key is reported (Kubernetes needs JSON keys)."""
        if isinstance(node, ScalarNode):
            text = str(node.value)
            if node.tag != _STR:
                kind = _tag(node).removeprefix(_TAG_PREFIX)
                message = f"mapping key {text!r} is read as {kind}, but keys must be strings"
                hint = f'quote it: "{text}"' if text else "give the entry a key"
                self.diagnostics.append(
                    self._finding(node, "load.non-string-key", message, path, hint)
                )
            return text
        kind = "mapping" if isinstance(node, MappingNode) else "sequence"
        message = f"a {kind} is used as a mapping key, but keys must be strings; entry skipped"
        self.diagnostics.append(self._finding(node, "load.non-string-key", message, path))
        return None
