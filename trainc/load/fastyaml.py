"""Composing YAML with libyaml through PyYAML's C parser: the loader's fast path.

libyaml composes a small manifest in about a thirtieth of the time ruamel.yaml's
pure-Python parser takes, and its nodes carry the same 0-based line and column marks,
so :class:`~trainc.load.convert.Converter` turns them into the same data, positions and
findings. The fast path only answers when it is sure to agree with the ruamel path
(:mod:`trainc.load.ruamelyaml`); otherwise :func:`compose_documents` returns None and
the caller reads the text there, which reports every failure as a finding:

- any parse error (syntax, tabs, control characters, an undefined or redefined anchor,
  text Python cannot encode): the ruamel path has the messages users see;
- a ``%`` directive: kubectl refuses them, and the ruamel path reports where they are;
- text that could nest deeper than :data:`MAX_NESTING`: libyaml's composer recurses on
  the C stack and crashes the process on absurd nesting (100,000 ``[`` do). The ruamel
  path bounds nesting by ``limits.maxDepth`` and reports ``load.too-deep``;
- more documents than ``limits.maxDocuments``: the ruamel path reports
  ``load.too-many-documents`` and reads no further.

Neither path types scalars: the composer here leaves every tag that was not written
empty, and :mod:`trainc.load.scalars` types the text as kubectl's go-yaml v2 does. libyaml
reports the non-specific tag ``!`` (``! 12``, which go-yaml keeps as the string ``"12"``)
like no tag at all, so a plain scalar that starts with a property (``&`` or ``!``) is
looked at in the text (:func:`_has_bare_tag`). This is the only module that imports
PyYAML.
"""

from __future__ import annotations

import re
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no annotations; typed here

from trainc.config.limits import InputLimits
from trainc.load.convert import LOAD_TOO_DEEP, Converter, Node, shared
from trainc.load.documents import Parsed
from trainc.load.scalars import TAG_PREFIX
from trainc.load.source import SourceFile
from trainc.records import dataclass

#: The deepest nesting the fast path lets libyaml's recursive C composer see. One level
#: takes about 300 bytes of C stack, so this stays under 512 KB, the smallest default
#: thread stack of the platforms Python runs on; real manifests nest 10 to 20 levels.
MAX_NESTING = 1_000

try:
    from yaml.cyaml import CParser as _CParser  # type: ignore[import-untyped]  # see above
except ImportError:  # PyYAML built without libyaml: its Python parser is no faster
    _CParser = None
_DIRECTIVE = re.compile("(?:^|[\r\n\x85\u2028\u2029])%")
#: Byte-order marks (libyaml skips them at a line start) and the line breaks NEL, LS and
#: PS (the parsers count lines apart); tabs, which ruamel refuses in more places, are
#: looked for on their own, as is a comment right after a block scalar's header (``|#``,
#: which only libyaml allows).
_UNLIKE_RUAMEL = re.compile("[\ufeff\x85\u2028\u2029]")
_HEADER_COMMENT = re.compile("[|>][-+0-9]*#")


_SEQ = TAG_PREFIX + "seq"
_MAP = TAG_PREFIX + "map"
#: A node property (an anchor or a tag) and what may separate it from the next one.
_PROPERTY = re.compile(r"[&!][^\s,\[\]{}]*")
_SEPARATION = re.compile(r"(?:\s|#[^\n]*)*")
_SCALAR_NODE = yaml.ScalarNode
_SEQUENCE_NODE = yaml.SequenceNode

if _CParser is not None:

    class _Composer(_CParser):  # type: ignore[misc]  # an untyped base
        """libyaml's parser and composer, leaving scalar tags that were not written empty.

        libyaml calls back into :meth:`resolve` for every untagged node and every node
        tagged ``!``; no path-based resolvers are needed, so descending is a no-op.
        """

        def descend_resolver(self, parent: object, index: object) -> None:
            """No path-based resolvers."""

        def ascend_resolver(self) -> None:
            """No path-based resolvers."""

        def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
            """The tag of a node without one (or with ``!``): empty for a scalar, which
            :mod:`trainc.load.scalars` types later."""
            if kind is not _SCALAR_NODE:
                return _SEQ if kind is _SEQUENCE_NODE else _MAP
            return ""


class _Unsure(Exception):  # noqa: N818  # a control-flow signal, caught by parse
    """The ruamel path must read this file: the fast path cannot vouch for a result."""


class _Converter(Converter):
    """The shared converter, declining where libyaml places a node unlike ruamel.

    An empty node (``key:`` with no value, a bare ``-``) has no text, so each parser
    places it somewhere of its own: libyaml right after the indicator before it, ruamel
    at the next token. A node with an anchor or a tag starts at them for libyaml, after
    them for ruamel. Such a place is needed only for a list item or a key, or for a
    finding about the node, all rare in manifests.
    """

    def __init__(self, source: SourceFile, limits: InputLimits) -> None:
        super().__init__(source, limits)
        self._text = source.text

    def _locate(self, node: Node) -> tuple[int, int]:
        mark = node.start_mark
        if mark.index == node.end_mark.index or self._text[mark.index] in "&!":
            raise _Unsure
        return shared((mark.line, mark.column))

    def _explicit_tag(self, node: Node) -> str | None:
        """The written tag; libyaml starts a node at its properties, so a bare ``!`` among
        them is found in the text (only plain scalars need it: any other untagged
        scalar is a string whatever its tag is)."""
        tag: str = node.tag
        if tag:
            return tag
        index = node.start_mark.index
        if self._text[index : index + 1] in ("&", "!") and not getattr(node, "style", None):
            return "!" if _has_bare_tag(self._text, index) else None
        return None


def _has_bare_tag(text: str, index: int) -> bool:
    """Whether the properties of the node starting at ``index`` include the tag ``!``."""
    for _ in range(2):  # an anchor and a tag at most
        found = _PROPERTY.match(text, index)
        if found is None:
            return False
        if found.group() == "!":
            return True
        gap = _SEPARATION.match(text, found.end())
        index = gap.end() if gap is not None else found.end()
    return False


def parse(source: SourceFile, limits: InputLimits) -> Parsed | None:
    """The documents of ``source`` as the ruamel path reads them, or None to decline.

    A document nested deeper than ``limits.max_depth`` is reported by ruamel's composer
    at the node where it stops reading, so such a file is declined; the converter's own
    ``load.too-deep`` (aliases expanding too deep) declines it too, to leave every
    depth finding to one place.
    """
    text = source.text
    bound = nesting_bound(text)
    if _CParser is None or bound > MAX_NESTING or _declined(text):
        return None
    roots = _compose(text, limits.max_documents)
    if roots is None:
        return None
    if bound > limits.max_depth and _composed_depth(roots) > limits.max_depth:
        return None
    converter = _Converter(source, limits)
    has_alias = "*" in text  # once: a search of the whole text per document is quadratic
    try:
        for index, root in enumerate(roots):
            aliased = has_alias and _uses_alias(root)
            if not converter.add(index, root, aliased=aliased):
                break
    except _Unsure:
        return None
    parsed = converter.parsed()
    if any(diagnostic.code == LOAD_TOO_DEEP.code for diagnostic in parsed.diagnostics):
        return None
    return parsed


def _compose(text: str, max_documents: int) -> list[Node] | None:
    """The root node of every document of ``text``, empty ones included, or None.

    Every root is composed before any is converted, so a parse error late in the file
    declines the whole file. So does a document past ``max_documents``, as soon as it
    is composed: ruamel's path reads no further than the bound and reports it.
    """
    try:
        composer = _Composer(text)  # encodes the text as UTF-8 for libyaml
    except UnicodeEncodeError:  # a lone surrogate, e.g. from a "\ud800" template value
        return None
    try:
        roots: list[Node] = []
        while composer.check_node():
            roots.append(composer.get_node())
            if len(roots) > max_documents:
                return None
    except yaml.YAMLError:
        return None
    finally:
        composer.dispose()
    if any(getattr(root, "style", None) in ("|", ">") for root in roots):
        return None  # ruamel lets a top-level block scalar's lines start in column 0
    return roots


def _declined(text: str) -> bool:
    """Whether the text has a directive or a character libyaml reads unlike ruamel."""
    return "\t" in text or _read_unlike_ruamel(text)


def _read_unlike_ruamel(text: str) -> bool:
    """Whether the text has a directive or a character, other than a tab, that libyaml
    reads unlike ruamel. ruamel refuses a tab in a few places libyaml accepts: findings
    that matter for the documents trainc reads, never for a file read by its heads
    alone (:func:`heads`: documents trainc skips whatever they hold)."""
    # Each search runs only when a cheap test (in C, O(1) for ASCII text) says it might hit.
    if not text.isascii() and _UNLIKE_RUAMEL.search(text) is not None:
        return True
    if "%" in text and _DIRECTIVE.search(text) is not None:
        return True
    return "#" in text and ("|" in text or ">" in text) and _HEADER_COMMENT.search(text) is not None


def _composed_depth(roots: list[Node]) -> int:
    """How deep the composed nodes nest, as ruamel's composer counts (a root is 1).

    An alias counts as one node where it is used: the walk goes in document order, so it
    meets every anchored node first where it is defined, and goes into it only there.
    """
    deepest = 0
    seen: set[int] = set()
    stack = [(root, 1) for root in reversed(roots)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.id == "sequence":
            stack.extend((item, depth + 1) for item in reversed(node.value))
        elif node.id == "mapping":
            for key, value in reversed(node.value):
                stack.extend(((value, depth + 1), (key, depth + 1)))
    return deepest


def nesting_bound(text: str) -> int:
    """An upper bound on how deep any node of ``text`` nests (a top-level scalar is 1).

    Every collection in a chain of nested ones needs a character of its own: ``[`` or
    ``{`` for a flow collection, ``-`` for a block sequence, ``:`` or ``?`` for a block
    mapping. That count grows with the file, so a long file is also bounded by its
    longest line: a nested block collection starts in a column right of its parent's,
    or, for a sequence under a mapping key, in the same column, so block collections nest
    at most two per column. Flow collections hold no block ones. Both counts run in C.
    """
    flow = text.count("[") + text.count("{")
    indicators = flow + text.count("-") + text.count(":") + text.count("?")
    if indicators < MAX_NESTING:
        return indicators + 1
    longest = max(map(len, text.split("\n")))
    return min(indicators, flow + 2 * longest) + 1


def _uses_alias(root: Node) -> bool:
    """Whether the document under ``root`` uses an alias (``*name``) anywhere.

    An alias is its anchored node itself, so it is used exactly when some node is
    reached twice; :func:`parse` walks only when the text has a ``*`` at all.
    """
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if node.id == "sequence":
            stack.extend(node.value)
        elif node.id == "mapping":
            for pair in node.value:
                stack.extend(pair)
    return False


#: Where a head's scalar sits: a top-level key, or a key of a top-level mapping.
HeadPath = tuple[str, ...]
#: How many keys deep a head records values.
HEAD_DEPTH = 2


@dataclass(frozen=True, slots=True)
class Head:
    """A document's root as libyaml's parser sees it, without composing its nodes.

    ``values`` holds the plain text of every scalar at most two keys deep (``kind``,
    ``metadata.name``), and None for a collection there; ``line`` and ``column`` are the
    0-based start of the root, as the composed paths report it.
    """

    index: int
    line: int
    column: int
    mapping: bool
    values: dict[HeadPath, str | None]


@dataclass(slots=True)
class _Frame:
    """An open collection while scanning events: its path (None below a sequence, whose
    items no head records) and, in a mapping, the key whose value comes next."""

    path: HeadPath | None
    mapping: bool
    key: str | None = None


def heads(text: str, limits: InputLimits) -> list[Head] | None:
    """The head of every non-empty document of ``text``, from libyaml's events alone.

    Parsing events costs a small part of composing nodes, and composing is what makes
    a file of large CustomResourceDefinitions slow. None when the composed result could
    differ (:func:`parse` would decline, an alias, a tag or a complex key, more than the
    limits allow) or the text is not valid YAML: the caller then parses the file fully,
    which reports every finding.
    """
    if _CParser is None or _read_unlike_ruamel(text):
        return None
    try:
        parser = _CParser(text)
    except UnicodeEncodeError:
        return None
    try:
        return _scan(parser, limits)
    except (yaml.YAMLError, _Unsure):
        return None
    finally:
        parser.dispose()


def _scan(parser: Any, limits: InputLimits) -> list[Head] | None:
    """The heads of the events ``parser`` yields; see :func:`heads`."""
    found: list[Head] = []
    stack: list[_Frame] = []
    index = -1
    events = 0
    while parser.check_event():
        event = parser.get_event()
        events += 1
        if isinstance(event, yaml.DocumentStartEvent):
            index += 1
            if index >= limits.max_documents:
                return None
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
        elif isinstance(event, yaml.AliasEvent) or getattr(event, "tag", None) is not None:
            return None
        elif isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            path = _place(event, stack, found, index)
            if not isinstance(event, yaml.ScalarEvent):
                stack.append(_Frame(path, isinstance(event, yaml.MappingStartEvent)))
            if len(stack) > limits.max_depth or 2 * events > limits.max_yaml_nodes:
                return None
    return found


def _place(event: Any, stack: list[_Frame], found: list[Head], index: int) -> HeadPath | None:
    """Record ``event`` (a node) where it stands, and return the path of its children.

    Raises :class:`_Unsure` for a key that is not a plain scalar: only composing tells
    what such a key is."""
    if not stack:
        scalar = isinstance(event, yaml.ScalarEvent)
        if not (scalar and event.value == "" and event.implicit[0]):  # not an empty document
            mark = event.start_mark
            mapping = isinstance(event, yaml.MappingStartEvent)
            found.append(Head(index, mark.line, mark.column, mapping, {}))
        return ()
    frame = stack[-1]
    if frame.mapping and frame.key is None:
        if not isinstance(event, yaml.ScalarEvent):
            raise _Unsure
        frame.key = event.value
        return None
    path = None if frame.path is None or frame.key is None else (*frame.path, frame.key)
    frame.key = None
    if path is not None and len(path) <= HEAD_DEPTH:
        found[-1].values[path] = event.value if isinstance(event, yaml.ScalarEvent) else None
    return path
