"""The line a finding quotes is the line its number names, whatever characters a value holds.

``str.splitlines()`` also breaks at ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, NEL, LS and PS,
which the YAML parsers do not count as new lines (:mod:`trainc.load.source`): quoting
with it showed a later line under the number. These properties hold for YAML read by
either parser, JSON, and bad UTF-8.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from trainc.config.limits import InputLimits
from trainc.load.reader import decode_input
from trainc.load.source import SourceFile, line_and_column, split_lines
from trainc.load.yamlsrc import parse_documents

#: Characters some splitter takes for a line break and the parsers do not.
NOT_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
#: What may end a line of the file.
BREAKS = st.sampled_from(["\n", "\r\n", "\r"])
#: Characters YAML allows in a double-quoted value, the tricky ones often.
VALUE = st.text(
    st.one_of(st.sampled_from("\x85\u2028\u2029 ab\u00e9\u8bad"), st.characters(codec="utf-8")),
    max_size=8,
).filter(lambda text: all(c.isprintable() or c in "\x85\u2028\u2029" for c in text))


def _yaml(values: list[str], breaks: list[str]) -> str:
    """``k0: "…"`` entries, one a line, each value escaped only where YAML requires."""
    lines = [
        f'k{i}: "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for i, value in enumerate(values)
    ]
    return "".join(line + end for line, end in zip(lines, breaks, strict=True))


@given(
    st.lists(VALUE, min_size=1, max_size=6).flatmap(
        lambda values: st.tuples(
            st.just(values), st.lists(BREAKS, min_size=len(values), max_size=len(values))
        )
    )
)
def test_every_key_is_quoted_from_the_line_reported_for_it(
    case: tuple[list[str], list[str]],
) -> None:
    values, breaks = case
    source = SourceFile("f.yaml", _yaml(values, breaks))
    parsed = parse_documents(source, InputLimits())
    assert parsed.diagnostics == ()
    (document,) = parsed.documents
    assert isinstance(document.data, dict)
    assert list(document.data) == [f"k{i}" for i in range(len(values))]
    for i in range(len(values)):
        found = document.finding((f"k{i}",), "schema.type", "m")
        assert found.line is not None
        assert found.column is not None
        quoted = source.quote(found.line)
        assert quoted is not None
        assert quoted[found.column - 1 :].startswith(f'k{i}: "')


@given(
    st.lists(VALUE, min_size=1, max_size=4),
    st.sampled_from("\v\f\x1c\x1d\x1e"),
    st.data(),
)
def test_a_character_yaml_refuses_is_quoted_where_it_is(
    values: list[str], bad: str, data: st.DataObject
) -> None:
    line = data.draw(st.integers(0, len(values) - 1))
    values[line] += bad
    breaks = data.draw(st.lists(BREAKS, min_size=len(values), max_size=len(values)))
    source = SourceFile("f.yaml", _yaml(values, breaks))
    (finding,) = parse_documents(source, InputLimits()).diagnostics
    assert finding.line is not None
    assert finding.column is not None
    quoted = source.quote(finding.line)
    assert quoted is not None
    assert quoted.startswith(f"k{line}: ")
    assert quoted[finding.column - 1] == bad


@given(st.lists(VALUE, min_size=1, max_size=6), st.data())
def test_json_members_are_quoted_from_their_line(values: list[str], data: st.DataObject) -> None:
    breaks = data.draw(st.lists(BREAKS, min_size=len(values), max_size=len(values)))
    members = [f'"k{i}": {json.dumps(value, ensure_ascii=False)}' for i, value in enumerate(values)]
    text = "{" + "".join(f"{m},{end}" for m, end in zip(members[:-1], breaks, strict=False))
    text += members[-1] + "}" + breaks[-1]
    source = SourceFile("f.json", text)
    (document,) = parse_documents(source, InputLimits()).documents
    for i in range(len(values)):
        found = document.finding((f"k{i}",), "schema.type", "m")
        assert found.line is not None
        quoted = source.quote(found.line)
        assert quoted is not None
        assert f'"k{i}": ' in quoted


@given(st.lists(VALUE, min_size=1, max_size=4), st.data())
def test_bad_utf8_is_reported_at_the_line_that_holds_it(
    values: list[str], data: st.DataObject
) -> None:
    breaks = data.draw(st.lists(BREAKS, min_size=len(values), max_size=len(values)))
    text = _yaml(values, breaks)
    cut = data.draw(st.integers(0, len(text)))
    raw = text[:cut].encode() + b"\xff" + text[cut:].encode()
    finding = decode_input("f.yaml", raw)
    assert not isinstance(finding, str)
    assert finding.line is not None
    assert finding.column is not None
    shown = split_lines(raw.decode("utf-8", errors="replace"))
    assert shown[finding.line - 1][finding.column - 1] == "\ufffd"


def test_split_lines_breaks_only_at_lf_crlf_and_cr() -> None:
    assert split_lines(f"a{NOT_BREAKS}b\r\nc\rd\ne\n") == [f"a{NOT_BREAKS}b", "c", "d", "e"]
    assert split_lines("") == []
    assert split_lines("\n\n") == ["", ""]
    assert line_and_column("a\r\nb\rc\u2028d", 8) == (2, 3)
