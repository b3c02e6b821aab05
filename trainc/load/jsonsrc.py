"""Reading ``*.json`` manifests as kubectl and Argo CD read them, with positions.

``kubectl apply -f DIR`` reads ``.json`` files next to ``.yaml`` ones, and users fall
back to JSON where ``kubectl get -o yaml`` cannot export a string (control characters).
kubectl decodes a stream that starts with ``{`` with Go's ``encoding/json``
(``YAMLOrJSONDecoder``); Argo CD decodes a ``.json`` file as exactly one JSON value
(``json.NewDecoder(...).Decode`` then ``decoder.More()``: "Only single objects are
allowed in JSON files"). trainc reads the file as JSON too, and reports what either
refuses, as ``load.syntax`` findings at the place:

- any JSON syntax error (Go's wording: ``invalid character ... looking for beginning
  of value``); the values before it are still read;
- more than one value in the file (Argo CD), and a file with none;
- a number that does not fit a float64 (``1e400``: the API machinery cannot decode it).

The values become documents of one :class:`~trainc.load.convert.Converter`, like YAML
documents, so positions (each node's line and column), duplicate keys, the node budget
and the nesting bound work alike. JSON types its own scalars: a string is a string
whatever it says (``"yes"``, ``"08"``), a number without a fraction or an exponent is
an integer and any other a float (``1.0`` as YAML's ``1.0``). A ``\\ud800`` escape,
half a surrogate pair, becomes U+FFFD as Go's decoder makes it.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.load.convert import LOAD_SYNTAX, Converter, Mark, mark_finding, too_deep
from trainc.load.documents import Parsed
from trainc.load.scalars import Resolved, ScalarError, json_number, resolve_plain
from trainc.load.source import LINE_BREAK, SourceFile
from trainc.model.json import FieldPath

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = ("true", "false", "null")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The standard library's string scanner (its C one): (text, index after the quote,
#: strict) to (the string, the index after its closing quote).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]  # not in typeshed


@dataclass(slots=True)
class _Mark:
    """A place in the text, 0-based, as the YAML parsers' marks."""

    index: int
    line: int
    column: int


@dataclass(slots=True, eq=False)
class _Node:
    """A JSON value in the shape :class:`~trainc.load.convert.Node` describes.

    A string has the style ``"``; numbers and literals are plain. No JSON node has a tag.
    """

    id: str
    value: Any
    start_mark: Mark
    end_mark: Mark
    style: str = ""
    tag: str = field(default="")


class _SyntaxError(Exception):  # a control-flow signal, caught by parse
    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.message = message
        self.index = index


class _TooDeep(Exception):  # noqa: N818  # a control-flow signal, caught by parse
    def __init__(self, index: int) -> None:
        super().__init__("too deep")
        self.index = index


def _quote(character: str) -> str:
    """A character as Go's JSON errors quote it: ``'x'``, ``'\\n'``."""
    return "'" + json.dumps(character)[1:-1] + "'" if character != "'" else "'\\''"


class _Reader:
    """One pass over the text: values with their marks, iteratively (no recursion)."""

    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.max_depth = max_depth
        self._line_starts = [0, *(match.end() for match in LINE_BREAK.finditer(text))]

    def mark(self, index: int) -> _Mark:
        line = bisect.bisect_right(self._line_starts, index) - 1
        return _Mark(index, line, index - self._line_starts[line])

    def skip(self, index: int) -> int:
        found = _WHITESPACE.match(self.text, index)
        return found.end() if found is not None else index

    def values(self) -> Iterator[tuple[_Node, int]]:
        """Every top-level value and where it starts; raises at the first error."""
        index = self.skip(0)
        while index < len(self.text):
            node, end = self._value(index)
            yield node, index
            index = self.skip(end)

    def _value(self, index: int) -> tuple[_Node, int]:
        """The value at ``index`` (no whitespace before it) and where it ends."""
        stack: list[tuple[_Node, _Node | None]] = []  # open collections, each's pending key
        while True:
            node, index = self._start(index, stack)
            while node is not None:  # complete: attach it, closing what it completes
                if not stack:
                    return node, index
                node, index = self._attach(node, index, stack)

    def _start(
        self, index: int, stack: list[tuple[_Node, _Node | None]]
    ) -> tuple[_Node | None, int]:
        """The value starting at ``index`` if it is complete (a scalar, an empty
        collection); None once a collection is open and its first item follows."""
        if len(stack) + 1 > self.max_depth:
            raise _TooDeep(index)
        if index >= len(self.text):
            raise _SyntaxError("unexpected end of JSON input", index)
        character = self.text[index]
        if character not in "{[":
            return self._scalar(index)
        kind = "mapping" if character == "{" else "sequence"
        node = _Node(kind, [], self.mark(index), self.mark(index))
        index = self.skip(index + 1)
        if self.text[index : index + 1] == ("}" if kind == "mapping" else "]"):
            node.end_mark = self.mark(index + 1)
            return node, index + 1
        key = None
        if kind == "mapping":
            key = self._key(index)
            index = self._after_key(key)
        stack.append((node, key))
        return None, index

    def _attach(
        self, node: _Node, index: int, stack: list[tuple[_Node, _Node | None]]
    ) -> tuple[_Node | None, int]:
        """Add a complete value to the innermost open collection: that collection when
        this closes it, None when another item follows."""
        parent, key = stack[-1]
        parent.value.append((key, node) if parent.id == "mapping" else node)
        index = self.skip(index)
        following = self.text[index : index + 1]
        if following == ",":
            index = self.skip(index + 1)
            if parent.id == "mapping":
                key = self._key(index)
                stack[-1] = (parent, key)
                index = self._after_key(key)
            return None, index
        if following == ("}" if parent.id == "mapping" else "]"):
            parent.end_mark = self.mark(index + 1)
            stack.pop()
            return parent, index + 1
        if not following:
            raise _SyntaxError("unexpected end of JSON input", index)
        where = "object key:value pair" if parent.id == "mapping" else "array element"
        raise _SyntaxError(f"invalid character {_quote(following)} after {where}", index)

    def _key(self, index: int) -> _Node:
        if self.text[index : index + 1] != '"':
            if index >= len(self.text):
                raise _SyntaxError("unexpected end of JSON input", index)
            found = _quote(self.text[index])
            raise _SyntaxError(
                f"invalid character {found} looking for beginning of object key string", index
            )
        node, _ = self._scalar(index)
        return node

    def _after_key(self, key: _Node) -> int:
        """Past the key, its colon and the whitespace before the value."""
        index = self.skip(key.end_mark.index)
        if self.text[index : index + 1] != ":":
            if index >= len(self.text):
                raise _SyntaxError("unexpected end of JSON input", index)
            raise _SyntaxError(
                f"invalid character {_quote(self.text[index])} after object key", index
            )
        return self.skip(index + 1)

    def _scalar(self, index: int) -> tuple[_Node, int]:
        text = self.text
        character = text[index]
        if character == '"':
            try:
                value, end = _scanstring(text, index + 1, True)  # noqa: FBT003  # strict
            except json.JSONDecodeError as error:
                raise _SyntaxError(_string_error(text, error), error.pos) from None
            value = _SURROGATE.sub("\ufffd", value)
            return _Node("scalar", value, self.mark(index), self.mark(end), style='"'), end
        number = _NUMBER.match(text, index)
        if number is not None:
            end = number.end()
            return _Node("scalar", number.group(), self.mark(index), self.mark(end)), end
        for literal in _LITERALS:
            if text.startswith(literal, index):
                end = index + len(literal)
                return _Node("scalar", literal, self.mark(index), self.mark(end)), end
        raise _SyntaxError(
            f"invalid character {_quote(character)} looking for beginning of value", index
        )


def _string_error(text: str, error: json.JSONDecodeError) -> str:
    """A string's error in Go's words."""
    if error.msg.startswith("Unterminated"):
        return "unexpected end of JSON input"
    found = _quote(text[error.pos : error.pos + 1] or " ")
    if "escape" in error.msg:
        return f"invalid character {found} in string escape code"
    return f"invalid character {found} in string literal"


class _JsonConverter(Converter):
    """The shared converter, typing scalars by JSON's rules rather than YAML's."""

    def _typed(self, node: Any, path: FieldPath) -> tuple[str, Resolved | ScalarError]:
        text = str(node.value)
        if node.style:
            return text, Resolved("str", text)
        if text in _LITERALS:
            return text, resolve_plain(text)
        try:
            number = json_number(text)
        except ScalarError as error:
            return text, error
        return text, Resolved("int" if isinstance(number, int) else "float", number)


def parse_json(source: SourceFile, limits: InputLimits) -> Parsed:
    """The values of a ``.json`` file as documents, and what kubectl or Argo CD refuse."""
    reader = _Reader(source.text, limits.max_depth)
    converter = _JsonConverter(source, limits)
    diagnostics = converter.diagnostics
    count = 0
    try:
        for node, start in reader.values():
            if count == 1:
                diagnostics.append(_finding(source, reader.mark(start), _MULTIPLE))
            if not converter.add(count, node, aliased=False):
                break
            count += 1
    except _SyntaxError as error:
        diagnostics.append(_finding(source, reader.mark(error.index), error.message))
    except _TooDeep as error:
        mark = reader.mark(error.index)
        diagnostics.append(too_deep(source, limits.max_depth, mark.line, mark.column))
    else:
        if count == 0:
            diagnostics.append(_finding(source, reader.mark(len(source.text)), _EMPTY))
    return converter.parsed()


_MULTIPLE = (
    "a second JSON value: Argo CD reads exactly one object from a .json file "
    "(Found multiple objects ... Only single objects are allowed in JSON files)"
)
_EMPTY = "the file holds no JSON value: Argo CD refuses it (unexpected end of JSON input)"


def _finding(source: SourceFile, mark: _Mark, message: str) -> Diagnostic:
    hint = (
        "put each object in a file of its own, or use a List"
        if message is _MULTIPLE
        else "kubectl and Argo CD read .json files as strict JSON: no comments or trailing "
        "commas; a file that is no manifest (tsconfig.json, editor settings) belongs in "
        "inputs.exclude of trainc.yaml"
    )
    return mark_finding(source, mark.line, mark.column, LOAD_SYNTAX.code, message, hint=hint)
