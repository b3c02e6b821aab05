from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.emit.ruamel_oracle import ruamel_resolves
from tests.emit.yamlreaders import read_with_every_reader
from trainc.emit import yamlscalar
from trainc.emit.yamlscalar import (
    KEY_STYLES,
    STRING_STYLES,
    Block,
    double_quoted,
    inline_style,
    resolves_to_non_string,
)

# Characters numbers, timestamps and special words are made of, so that hypothesis
# explores the resolvers' corners rather than random text.
_numeric_text = st.text(st.sampled_from("+-._:0123456789abeEoxXBOTtZ nNyYlu~<= \t"), max_size=12)


@given(_numeric_text)
def test_every_form_ruamel_types_is_quoted(text: str) -> None:
    if ruamel_resolves(text):
        assert resolves_to_non_string(text)


@pytest.mark.parametrize(
    "text",
    [
        # YAML 1.1 booleans and nulls, 1.2 booleans, special floats, merge and value
        *("y", "N", "yes", "No", "ON", "off", "True", "FALSE", "~", "null", "NULL", ""),
        *(".inf", "-.Inf", "+.INF", ".nan", ".NaN", "<<", "="),
        # integers: decimal, 1.1 octal, 1.2 octal, binary, hex, base 60, underscores
        *("0", "-12", "+7", "0755", "0o17", "0b101", "-0b1", "0x1F", "1:20", "-1:20:30"),
        *("1_000", "+_", "-__"),
        # floats: 1.1 and 1.2 spellings, exponents with and without sign or dot
        *("1.5", "1.", "-.5", ".5", "1e3", "1E-3", "1.5e+3", ".5e3", "1:20.5", "1_0.5"),
        # timestamps
        *("2024-01-01", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5"),
        # go-yaml: "_" is dropped everywhere, base prefixes in capitals, short dates
        *("0X1F", "0B101", "0O17", "1_e3", "1e_3", "2024-1-2", "2024-1-2T1:2:3Z"),
    ],
)
def test_strings_some_reader_retypes_are_single_quoted(text: str) -> None:
    assert resolves_to_non_string(text)
    assert inline_style(text) == f"'{text}'"
    for documents in read_with_every_reader(f"'{text}': '{text}'\n").values():
        assert documents == [{text: text}]


@pytest.mark.parametrize(
    "text",
    [
        *("1.2.3", "v1", "8080:80", "0x", "0b", "_1", "e3", ".", "+", "--", "x-", "yes-no"),
        *("a:b", "-foo", ":foo", "?foo", "a#b", "a,b", "a[0]", "a{b}", "it's", "a'"),
        *("nvidia.com/gpu", "Zürich", "😀 中文", "a  b"),
    ],
)
def test_strings_every_reader_takes_as_strings_stay_plain(text: str) -> None:
    assert not resolves_to_non_string(text)
    assert inline_style(text) == text
    for documents in read_with_every_reader(f"{text}: {text}\n").values():
        assert documents == [{text: text}]


@pytest.mark.parametrize(
    ("text", "style"),
    [
        # rule 1: characters YAML cannot carry as text are escaped
        ("\x00", '"\\0"'),
        ("bell\x07", '"bell\\a"'),
        ("esc \x1b", '"esc \\e"'),
        ("del \x7f", '"del \\x7F"'),
        ("c1 \x80", '"c1 \\x80"'),
        ("nel \x85", '"nel \\N"'),
        ("ls \u2028 ps \u2029", '"ls \\L ps \\P"'),
        ("\ufeffbom", '"\\uFEFFbom"'),
        ("\ufffe", '"\\uFFFE"'),
        ('ctl\x01 "q" \\', '"ctl\\x01 \\"q\\" \\\\"'),
        ("crlf\r\nline", '"crlf\\r\\nline"'),
        # rule 3: tabs
        ("a\tb", '"a\\tb"'),
        ("2001-12-14\t21:59:43", '"2001-12-14\\t21:59:43"'),
        # rule 5 violations
        (" leading", "' leading'"),
        ("trailing ", "'trailing '"),
        ("- item", "'- item'"),
        ("-", "'-'"),
        ("?", "'?'"),
        (": x", "': x'"),
        ("a: b", "'a: b'"),
        ("a:", "'a:'"),
        ("a #b", "'a #b'"),
        ("---", "'---'"),
        ("...x", "'...x'"),
        *((f"{char}x", f"'{char}x'") for char in "#,[]{}&*!|>%@`"),
        # rules 6 and 7
        ("'quoted'", "\"'quoted'\""),
        ("a: it's", '"a: it\'s"'),
        ('"double"', "'\"double\"'"),
    ],
)
def test_one_line_styles(text: str, style: str) -> None:
    assert inline_style(text) == style
    assert STRING_STYLES[text] == style


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("a\nb", Block("|-", ("a", "b"))),
        ("a\nb\n", Block("|", ("a", "b"))),
        ("a\n\n", Block("|+", ("a", ""))),
        ("\n", Block("|2+", ("",))),
        ("\na\n", Block("|2", ("", "a"))),
        ("  indented\nnext", Block("|2-", ("  indented", "next"))),
        ("trailing \nspaces  \n", Block("|", ("trailing ", "spaces  "))),
        ("\ttab\n", Block("|2", ("\ttab",))),
        ("# not a comment\n- not an item", Block("|-", ("# not a comment", "- not an item"))),
    ],
)
def test_multi_line_text_is_a_literal_block(text: str, block: Block) -> None:
    assert STRING_STYLES[text] == block


def test_multi_line_text_is_escaped_on_one_line_where_no_block_is_allowed() -> None:
    assert inline_style("a\nb") == '"a\\nb"'


@pytest.mark.parametrize(
    ("key", "style"),
    [
        ("name", "name:"),
        ("on", "'on':"),
        ("", "'':"),
        ("a: b", "'a: b':"),
        ("tab\tkey", '"tab\\tkey":'),
        ("k" * 127, "k" * 127 + ":"),
        ("k" * 128, None),
        ("two\nlines", None),
        ("nel\x85", None),
    ],
)
def test_keys_are_implicit_only_when_short_and_on_one_line(key: str, style: str | None) -> None:
    assert KEY_STYLES[key] == style


@given(st.text())
def test_double_quoted_reads_back_as_any_text(text: str) -> None:
    quoted = double_quoted(text)
    assert "\n" not in quoted
    for documents in read_with_every_reader(f"v: {quoted}\n").values():
        assert documents == [{"v": text}]


def test_memo_stays_bounded_and_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlscalar, "_MEMO_SIZE", 3)
    for text in [f"text-{index}" for index in range(10)] + ["on", "a: b", "x"]:
        assert STRING_STYLES[text] == inline_style(text)
        assert KEY_STYLES[text] == inline_style(text) + ":"
        assert len(STRING_STYLES) <= 3
        assert len(KEY_STYLES) <= 3
