"""Each character of a string value found where the file writes it, in every YAML style."""

from __future__ import annotations

import io

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from trainc.config.limits import InputLimits
from trainc.load.documents import Document
from trainc.load.source import Position, SourceFile, split_lines
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import get_path

PATH = ("spec", "validations", 0, "expression")


def _document(text: str) -> Document:
    return parse_documents(SourceFile("policy.yaml", text), InputLimits()).documents[0]


def _expression(document: Document) -> str:
    value = get_path(document.data, PATH)
    assert isinstance(value, str)
    return value


def _char_at(text: str, position: Position) -> str:
    """The character at ``position``; "" just past a line's end, where a folded break is."""
    line = split_lines(text)[position.line - 1]
    assert position.column <= len(line) + 1
    return line[position.column - 1 : position.column]


def _spots(value: str) -> list[tuple[int, int, str]]:
    """Every (line, column, character) of ``value``, 1-based as CEL numbers them."""
    return [
        (number, index + 1, char)
        for number, line in enumerate(value.split("\n"), start=1)
        for index, char in enumerate(line)
    ]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        # Plain, with a comment after it.
        ("    - expression: a &&& b  # why\n", (3, 23)),
        # Double-quoted: the column moves by the quote and by each escape before the spot.
        ('    - expression: "\\"q\\" &&& b"\n', (3, 28)),
        # Single-quoted, a doubled quote standing for one character.
        ("    - expression: 'it''s &&& b'\n", (3, 28)),
        # Folded over lines: the spot is on the block's second line.
        ("    - expression: >-\n        has(a) &&\n        b &&& c\n", (5, 13)),
        # Literal, on its more-indented second line.
        ("    - expression: |\n        has(a) &&\n          b &&& c\n", (5, 15)),
    ],
)
def test_the_third_ampersand_is_found_where_it_is_written(
    item: str, expected: tuple[int, int]
) -> None:
    text = "spec:\n  validations:\n" + item
    document = _document(text)
    value = _expression(document)
    offset = value.index("&&&") + 2
    line = value[:offset].count("\n") + 1
    column = offset - (value.rfind("\n", 0, offset) + 1) + 1
    position = document.locate_in_value(PATH, line, column)
    assert (position.line, position.column) == expected
    assert _char_at(text, position) == "&"


_STYLES = {
    "plain": str,
    "double": DoubleQuotedScalarString,
    "single": SingleQuotedScalarString,
    "literal": LiteralScalarString,
    "folded": FoldedScalarString,
}


@given(
    value=st.text(
        alphabet=st.sampled_from(list("ab =&|'\"\\#:-\n\té")), min_size=1, max_size=60
    ).filter(lambda text: text.strip() != ""),
    style=st.sampled_from(sorted(_STYLES)),
    width=st.integers(min_value=8, max_value=80),
)
# A tab alone on a folded block's first line: that line is text, not an empty line.
@example(value="\t\n :", style="folded", width=8)
def test_every_character_of_a_dumped_value_is_found_in_the_file(
    value: str, style: str, width: int
) -> None:
    yaml = YAML()
    yaml.width = width
    stream = io.StringIO()
    yaml.dump({"spec": {"validations": [{"expression": _STYLES[style](value)}]}}, stream)
    text = stream.getvalue()
    document = _document(text)
    parsed = _expression(document)
    key = document.locate(PATH)
    # The dumper picks a quoted style when the one asked for cannot hold the value.
    quoted = text.split("expression: ", 1)[1][:1] in ("'", '"')
    for line, column, char in _spots(parsed):
        position = document.locate_in_value(PATH, line, column)
        assert position != key  # every form the dumper writes is read, none falls back
        written = _char_at(text, position)
        if written in ("", " ") and char in " \n":
            continue  # a line break folded into a space, or an empty line into a break
        assert written == char or (quoted and written in "\\'")


def test_a_value_written_elsewhere_keeps_the_fields_own_place() -> None:
    text = "defs:\n  x: &x a &&& b\nspec:\n  validations:\n    - expression: *x\n"
    document = _document(text)
    assert document.locate_in_value(PATH, 1, 4) == document.locate(PATH) == Position(5, 7)
