"""Turning a composed YAML node graph into plain JSON-shaped data plus node positions.

The nodes come from either parser, libyaml through PyYAML (:mod:`trainc.load.fastyaml`)
or ruamel.yaml (:mod:`trainc.load.ruamelyaml`); both share one shape (:class:`Node`), so
this one converter gives both paths the same data, positions and findings. The parsers
do not type scalars: a node carries its text, its explicit tag and its style, and
:mod:`trainc.load.scalars` types it as kubectl's go-yaml v2 does, up to the JSON value
the API server decodes. Mappings follow go-yaml too: a merge key (``<<``) sets the keys
of the mappings it names where it stands (an earlier key of the same name is replaced,
a later one replaces it; in a list of mappings the first one wins), and a non-string key
becomes the string kubectl makes of it, with a finding.

Working on nodes rather than on constructed objects gives every node its position, and
lets aliases be bounded before they are expanded: a composer shares one node for every
use of an anchor, so a billion-laughs file is small as a graph and is refused by
counting, never by building it.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Protocol, TypeVar

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, Rule, Severity, counted, finding
from trainc.load.documents import Document, Parsed
from trainc.load.scalars import (
    Resolved,
    ScalarError,
    is_merge,
    json_value,
    key_text,
    kind_noun,
    resolve_scalar,
)
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, JsonValue, format_path

LOAD_SYNTAX = Rule(
    "load.syntax",
    Severity.ERROR,
    "the file is not well-formed YAML or JSON, or holds a value kubectl cannot send",
)

LOAD_DUPLICATE_KEY = Rule(
    "load.duplicate-key",
    Severity.ERROR,
    "a mapping has the same key twice",
)

LOAD_NON_STRING_KEY = Rule(
    "load.non-string-key",
    Severity.ERROR,
    "a mapping key is not a string (Kubernetes objects are JSON)",
)

LOAD_ALIAS_BOUND = Rule(
    "load.alias-bound",
    Severity.ERROR,
    "anchors and aliases expand beyond the configured bound",
)

LOAD_TOO_DEEP = Rule(
    "load.too-deep",
    Severity.ERROR,
    "the document nests deeper than the configured bound",
)

LOAD_TOO_MANY_DOCUMENTS = Rule(
    "load.too-many-documents",
    Severity.ERROR,
    "the file holds more YAML documents than the bound",
)


#: What a ``\ud800`` escape decodes to: half a UTF-16 pair, no Unicode character.
_SURROGATE = re.compile("[\ud800-\udfff]")

Positions = dict[FieldPath, tuple[int, int]]
_Tuple = TypeVar("_Tuple", bound=tuple[object, ...])

#: One object for each equal position and field path: thousands of TrainJobs repeat the
#: same paths (``spec.trainer.image``) at the same places, and holding one tuple each
#: would be most of the loader's memory. Bounded, so hostile input cannot grow it.
_SHARED: dict[tuple[object, ...], tuple[object, ...]] = {}
_SHARED_LIMIT = 1 << 18


def shared(value: _Tuple) -> _Tuple:
    """``value``, or the equal tuple already held; equal tuples are interchangeable."""
    found = _SHARED.get(value)
    if found is not None:
        return found  # type: ignore[return-value]  # equal to value, so of its type
    if len(_SHARED) < _SHARED_LIMIT:
        _SHARED[value] = value
    return value


class Mark(Protocol):
    """A place in the text: both parsers count from 0, in characters."""

    index: int
    line: int
    column: int


class Node(Protocol):
    """A composed node as PyYAML and ruamel.yaml both build it.

    ``id`` is ``"scalar"``, ``"sequence"`` or ``"mapping"``; ``value`` is the scalar's
    text, the list of items, or the list of (key, value) node pairs. A scalar's ``tag``
    is its explicit tag as written (in full: ``tag:yaml.org,2002:int``, ``!``, ``!x``),
    empty when it has none (each adapter says how it tells the two apart); its
    ``style`` is empty or None for a plain scalar. An alias is the anchored node itself,
    so a graph can share nodes.
    """

    id: str
    tag: str
    value: Any
    start_mark: Mark
    end_mark: Mark


def _text(node: Node) -> str:
    """A scalar's text; ruamel marks where a folded scalar was folded with BEL characters
    (to round-trip the layout), which are dropped: a literal BEL cannot occur in YAML."""
    text = str(node.value)
    return text.replace("\a", "") if getattr(node, "style", None) == ">" else text


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


def too_deep(source: SourceFile, max_depth: int, line: int, column: int) -> Diagnostic:
    """``load.too-deep`` at a 0-based parser position: the rest of the document is lost."""
    message = f"the document nests deeper than {counted(max_depth, 'level')}; the rest is not read"
    return mark_finding(source, line, column, LOAD_TOO_DEEP.code, message)


class Rejected(Exception):  # noqa: N818  # a control-flow signal, caught by Converter.add
    """A document (or, with ``whole_file``, the rest of the file) cannot be converted."""

    def __init__(self, diagnostic: Diagnostic, *, whole_file: bool) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.whole_file = whole_file


class Converter:
    """Converts the documents of one file; the node budget is shared by the whole file.

    A parser adapter feeds each composed document to :meth:`add` and appends its own
    failures to ``diagnostics``; :meth:`parsed` is the file's result.
    """

    def __init__(self, source: SourceFile, limits: InputLimits) -> None:
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self._documents: list[Document] = []
        self._findings: dict[int, tuple[Diagnostic, ...]] = {}
        self._max_depth = limits.max_depth
        self._max_documents = limits.max_documents
        self._budget = limits.max_yaml_nodes
        self._remaining = limits.max_yaml_nodes
        self._positions: Positions = {}
        self._refused: list[FieldPath] = []

    def add(
        self, index: int, root: Node, *, aliased: bool, findings: tuple[Diagnostic, ...] = ()
    ) -> bool:
        """Convert the ``index``-th document of the stream; False: stop reading the file.

        ``aliased`` says whether the document uses an alias (only then can it expand past
        its size); ``findings`` are the parser's own about the document (its directives),
        kept with the document's. A document that is empty (a bare ``---``) or null is
        skipped, but keeps its index, so that ``Document.index`` counts what a reader
        counts by ``---`` separators. The document past ``limits.max_documents`` (empty
        ones count) ends the file with a finding.
        """
        if index >= self._max_documents:
            message = (
                f"the file holds more than {self._max_documents} YAML documents; "
                "nothing after this point is read"
            )
            hint = "split the file, or raise limits.maxDocuments in trainc.yaml"
            self.diagnostics.append(
                self._finding(root, LOAD_TOO_MANY_DOCUMENTS.code, message, (), hint)
            )
            return False
        before = len(self.diagnostics)
        self.diagnostics.extend(findings)
        try:
            if aliased:
                self._check_expansion(root)
            self._positions = {(): (0, 0)}  # the root's place comes first; set below
            self._refused = []
            data = self._value(root, (), 1)
        except Rejected as rejected:
            self.diagnostics.append(rejected.diagnostic)
            return not rejected.whole_file
        except RecursionError:  # aliases expanding past what the stack holds
            line, column = self._locate(root)
            self.diagnostics.append(too_deep(self.source, self._max_depth, line, column))
            return True
        if data is not None:
            self._positions[()] = self._locate(root)
            refused = frozenset(self._refused)
            self._documents.append(Document(self.source, index, data, self._positions, refused))
            self._findings[index] = tuple(self.diagnostics[before:])
        return True

    def parsed(self) -> Parsed:
        """The documents converted so far and every finding about the file."""
        return Parsed(tuple(self._documents), tuple(self.diagnostics), self._findings)

    def _locate(self, node: Node) -> tuple[int, int]:
        """Where a node starts: 0-based line and column, as Document.positions holds them."""
        mark = node.start_mark
        return shared((mark.line, mark.column))

    def _explicit_tag(self, node: Node) -> str | None:
        """A scalar's tag as written (``!`` included), or None when it has none."""
        return node.tag or None

    def _typed(self, node: Node, path: FieldPath) -> tuple[str, Resolved | ScalarError]:
        """A scalar's text and what go-yaml makes of it (the ScalarError if it fails)."""
        text = self._string(node, path)
        plain = not getattr(node, "style", None)
        try:
            return text, resolve_scalar(self._explicit_tag(node), text, plain=plain)
        except ScalarError as error:
            return text, error

    def _finding(
        self, node: Node, code: str, message: str, path: FieldPath, hint: str | None = None
    ) -> Diagnostic:
        line, column = self._locate(node)
        return mark_finding(self.source, line, column, code, message, path=path, hint=hint)

    def _over_budget(self, node: Node, path: FieldPath) -> Rejected:
        message = (
            f"the file expands to more than {self._budget} YAML nodes (each use of an alias"
            " counts its whole anchored value); nothing after this point is read"
        )
        return Rejected(self._finding(node, LOAD_ALIAS_BOUND.code, message, path), whole_file=True)

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
                finding = self._finding(node, LOAD_ALIAS_BOUND.code, message, ())
                raise Rejected(finding, whole_file=False)
            total = 1
            if node.id == "mapping":
                active.add(id(node))
                total += sum(size(value) for _, value in node.value)
            elif node.id == "sequence":
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
            message = f"aliases nest the document deeper than {counted(self._max_depth, 'level')}"
            raise Rejected(self._finding(node, LOAD_TOO_DEEP.code, message, ()), whole_file=False)
        self._remaining -= 1
        if self._remaining < 0:
            raise self._over_budget(node, path)
        kind = node.id
        if kind == "mapping":
            result: JsonObject = {}
            self._fill(node, path, depth, result, merged=False)
            return result
        if kind == "sequence":
            return self._sequence(node, path, depth)
        return self._scalar(node, path)

    def _string(self, node: Node, path: FieldPath) -> str:
        """A scalar's text, with surrogates replaced by U+FFFD and reported.

        ruamel reads the escapes ``"\\ud800"`` as surrogates, which are no characters:
        libyaml and go-yaml (kubectl) refuse them, and no UTF-8 text can hold them.
        """
        text = _text(node)
        found = _SURROGATE.search(text)
        if found is None:
            return text
        message = (
            f"\\u{ord(found.group()):04x} escapes half of a UTF-16 surrogate pair, "
            "which is not a Unicode character"
        )
        hint = "write the character itself, or one \\U escape (\\U0001F600)"
        self.diagnostics.append(self._finding(node, LOAD_SYNTAX.code, message, path, hint))
        return _SURROGATE.sub("\ufffd", text)

    def _scalar(self, node: Node, path: FieldPath) -> JsonValue:
        """The JSON value kubectl sends for a scalar; where kubectl fails, its text and a
        finding (a mistyped explicit tag, bad base64, NaN or an infinity)."""
        text, resolved = self._typed(node, path)
        try:
            if isinstance(resolved, ScalarError):
                raise resolved
            return json_value(resolved, text)
        except ScalarError as error:
            self.diagnostics.append(
                self._finding(node, LOAD_SYNTAX.code, str(error), path, error.hint)
            )
            self._refused.append(path)
            return text

    def _sequence(self, node: Node, path: FieldPath, depth: int) -> JsonValue:
        items: list[JsonValue] = []
        for index, item in enumerate(node.value):
            child = shared((*path, index))
            self._positions[child] = self._locate(item)
            items.append(self._value(item, child, depth + 1))
        return items

    def _is_merge(self, node: Node) -> bool:
        """Whether a mapping key is go-yaml's merge key (``<<``, plain or tagged)."""
        if node.id != "scalar" or node.value != "<<":
            return False
        plain = not getattr(node, "style", None)
        return is_merge(self._explicit_tag(node), str(node.value), plain=plain)

    def _fill(
        self, node: Node, path: FieldPath, depth: int, result: JsonObject, *, merged: bool
    ) -> None:
        """Add a mapping's entries to ``result`` in order, as go-yaml v2 sets them.

        A merge key (``<<``, which Kubernetes' YAML decoder honours) sets the entries of
        the mappings it names where it stands: it replaces an earlier key of the same
        name and a later key replaces it. ``merged`` is True while filling from such a
        mapping, whose own repeated keys are reported where it is defined.
        """
        explicit: set[str] = set()
        for key_node, value_node in node.value:
            if self._is_merge(key_node):
                self._merge(value_node, path, depth, result)
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            child = shared((*path, key))
            if key in explicit and not merged:
                first = self.source.user_line(self._positions[child][0] + 1)
                message = f"key {key!r} is defined twice (first on line {first}); the last wins"
                self.diagnostics.append(
                    self._finding(key_node, LOAD_DUPLICATE_KEY.code, message, child)
                )
            explicit.add(key)
            self._positions[child] = self._locate(key_node)
            result[key] = self._value(value_node, child, depth + 1)

    def _merge(self, node: Node, path: FieldPath, depth: int, result: JsonObject) -> None:
        """The value of a merge key: a mapping, or a list of them of which the first wins
        (go-yaml merges the list from its end)."""
        sources = reversed(node.value) if node.id == "sequence" else [node]
        for source in sources:
            if source.id == "mapping":
                self._fill(source, path, depth, result, merged=True)
            else:
                message = "a merge key (<<) takes a mapping or a list of mappings"
                self.diagnostics.append(self._finding(source, LOAD_SYNTAX.code, message, path))

    def _key(self, node: Node, path: FieldPath) -> str | None:
        """The key as kubectl sends it; a key that is not a string is reported.

        kubectl turns an integer, boolean or float key into its text (``on`` becomes
        ``"true"``, ``0x10`` ``"16"``) and refuses a null or unsigned 64-bit one; trainc
        takes the key kubectl sends, or the text where kubectl refuses, and reports both
        (Kubernetes objects are JSON, whose keys are strings).
        """
        if node.id == "scalar":
            text, resolved = self._typed(node, path)
            if isinstance(resolved, ScalarError):
                self.diagnostics.append(
                    self._finding(node, LOAD_SYNTAX.code, str(resolved), path, resolved.hint)
                )
                return sys.intern(text)
            kind = resolved.kind
            if kind in ("str", "timestamp", "merge"):
                return sys.intern(str(resolved.value))
            sent = key_text(resolved)
            noun = kind_noun(kind)
            if sent is None:
                message = (
                    f"mapping key {text!r} is read as {noun}, of which kubectl cannot make "
                    "a JSON key: it refuses the file"
                )
            else:
                message = (
                    f"mapping key {text!r} is read as {noun}, not a string: kubectl sends "
                    f"it as the key {sent!r}"
                )
            hint = f'quote it: "{text}"' if text else "give the entry a key"
            self.diagnostics.append(
                self._finding(node, LOAD_NON_STRING_KEY.code, message, path, hint)
            )
            return sys.intern(sent if sent is not None else text)
        kind = "mapping" if node.id == "mapping" else "sequence"
        message = f"a {kind} is used as a mapping key, but keys must be strings; entry skipped"
        self.diagnostics.append(self._finding(node, LOAD_NON_STRING_KEY.code, message, path))
        return None
