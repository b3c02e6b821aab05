from __future__ import annotations

import enum
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tests.emit.ruamel_oracle import ruamel_dump
from tests.emit.yamlreaders import READERS, read_with_every_reader
from trainc.emit import yamlscalar
from trainc.emit.yamlout import dump_yaml
from trainc.model.json import JsonValue, get_path

_REPO = Path(__file__).resolve().parents[2]


def _load_all(text: str, version: tuple[int, int] = (1, 2)) -> list[JsonValue]:
    """Parse ``text`` as ruamel's reader of the given YAML version does."""
    return READERS[f"ruamel-{version[0]}.{version[1]}"](text)


def _assert_reads_back(documents: list[JsonValue]) -> str:
    """Dump ``documents``, check every reader gets them back, and return the text."""
    text = dump_yaml(documents)
    assert text.endswith("\n")
    for reader, loaded in read_with_every_reader(text).items():
        assert loaded == documents, reader
    return text


def test_leading_keys_then_alphabetical_at_every_level() -> None:
    text = dump_yaml(
        [
            {
                "status": {},
                "spec": {"zeta": 1, "template": {"spec": {"b": 1}, "metadata": {"name": "x"}}},
                "metadata": {"name": "job", "labels": {"b": "2", "a": "1"}},
                "kind": "TrainJob",
                "apiVersion": "trainer.kubeflow.org/v1alpha1",
                "aardvark": True,
            }
        ]
    )
    assert text == (
        "apiVersion: trainer.kubeflow.org/v1alpha1\n"
        "kind: TrainJob\n"
        "metadata:\n"
        "  labels:\n"
        "    a: '1'\n"
        "    b: '2'\n"
        "  name: job\n"
        "spec:\n"
        "  template:\n"
        "    metadata:\n"
        "      name: x\n"
        "    spec:\n"
        "      b: 1\n"
        "  zeta: 1\n"
        "aardvark: true\n"
        "status: {}\n"
    )


def test_sequences_are_block_style_at_the_parent_indent() -> None:
    assert dump_yaml([{"items": [{"name": "a", "value": None}, [1, 2]]}]) == (
        "items:\n- name: a\n  value: null\n- - 1\n  - 2\n"
    )


def test_multi_line_strings_are_literal_blocks() -> None:
    text = dump_yaml([{"script": "set -e\necho hi\n", "rule": "a ||\nb"}])
    assert text == "rule: |-\n  a ||\n  b\nscript: |\n  set -e\n  echo hi\n"


@pytest.mark.parametrize(
    "value",
    [
        "on",
        "Off",
        "yes",
        "n",
        "0755",
        "1_000",
        "1:20",
        "0x1F",
        ".inf",
        "~",
        "null",
        "",
        "=",
        "2024-01-01",
        "12",
        "1e3",
        "true",
    ],
)
def test_strings_a_yaml_1_1_reader_would_retype_are_quoted(value: str) -> None:
    _assert_reads_back([{"key": value, value: "key", "list": [value]}])


# Strings that break naive emitters: indicators, quotes, escapes, line breaks of every
# kind, whitespace at the edges of lines and of the text, non-ASCII, and length.
_ADVERSARIAL = [
    *("a: b", "a:", "a #b", "a#b", "a:b", "- a", "-", "-a", "? a", "?", "?a", ": a", ":", ":a"),
    *(f"{char}x" for char in "#,[]{}&*!|>'\"%@`"),
    *("---", "--- x", "...", "... x", "%YAML 1.2", "<<", "=", "~", "", " ", "  "),
    *("'quoted'", '"double"', "it's", "a'b\"c", "back\\slash", "\\n"),
    *("  leading spaces", "trailing space ", "tab\tinside", "\ttab first", "tab last\t"),
    *("ends with newline\n", "two trailing newlines\n\n", "\n", "\n\n", "\nstarts with newline"),
    *("  indented first line\nsecond", " \n", "a\n ", "a\n  \n", "a \nb  \n  \n", "x\n\n\ny"),
    *("tab\tinside\n", "\tline\n\tline", "# not a comment\n- not an item\nkey: value"),
    *("carriage\r\nreturn", "cr\r", "next line \x85", "line sep \u2028", "para sep \u2029x\ny"),
    *("control \x00 \x1b \x7f \x80\nsecond line", "\ufeffbyte order mark", "bom\ufeff\nx"),
    *("\ufffe\uffff", "\xa0nbsp\xa0", "unicode é ✓\n", "astral 😀\nline", "中文 キー"),
    *("x" * 300 + " " + "y" * 300, "line\n" * 200, "k" * 2000),
]


@pytest.mark.parametrize("value", _ADVERSARIAL)
def test_adversarial_strings_read_back_as_values_keys_and_items(value: str) -> None:
    document: JsonValue = {"v": value, value: [value, {value: value}], "z": {"w": value}}
    text = _assert_reads_back([document, {"next": value}])
    assert text == ruamel_dump([document, {"next": value}])


def test_long_lines_are_never_folded() -> None:
    rule = "self.a == 'x' && " * 40
    assert f"rule: {rule.rstrip()!s}" in dump_yaml([{"rule": rule.rstrip()}])


def test_shared_objects_are_written_out_not_aliased() -> None:
    shared: JsonValue = {"type": "string"}
    text = dump_yaml([{"a": shared, "b": shared}])
    assert "&" not in text
    assert "*" not in text
    assert text == "a:\n  type: string\nb:\n  type: string\n"


def test_documents_are_separated_and_end_with_a_newline() -> None:
    text = dump_yaml([{"a": 1}, {"b": 2}])
    assert text == "a: 1\n---\nb: 2\n"
    assert _load_all(text) == [{"a": 1}, {"b": 2}]


def test_unicode_is_written_as_utf8_text() -> None:
    assert dump_yaml([{"name": "Zürich"}]) == "name: Zürich\n"


_special_text = st.text(
    st.sampled_from(
        list(" -?:#,[]{}&*!|>'\"%@`\t\n\r.0123456789eExo_+~yYnN<=\\\x85\u2028\ufeffé😀")
    ),
    max_size=12,
)
_text = (
    st.text(st.characters(exclude_categories=["Cs"]), max_size=24)
    | _special_text
    | st.sampled_from(sorted(yamlscalar._SPECIAL_WORDS))
)
# Floats whose shortest repr has a dot; ``1e+17`` is where the emitter and ruamel differ.
_float = st.floats(allow_nan=False).filter(lambda value: "." in repr(value) or math.isinf(value))
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _float | _text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=8,
)
_documents = st.lists(st.dictionaries(_text, _json, max_size=4), min_size=1, max_size=3)


@given(_documents)
def test_any_json_document_reads_back_with_every_yaml_1_1_and_1_2_reader(
    documents: list[JsonValue],
) -> None:
    _assert_reads_back(documents)


@given(_documents)
def test_any_json_document_is_written_as_ruamel_wrote_it(documents: list[JsonValue]) -> None:
    assert dump_yaml(documents) == ruamel_dump(documents)


@given(st.lists(_json, min_size=1, max_size=3))
def test_scalar_and_sequence_documents_read_back(documents: list[JsonValue]) -> None:
    _assert_reads_back(documents)


@given(st.dictionaries(_text, _json, min_size=2, max_size=4))
def test_output_does_not_depend_on_insertion_order(document: dict[str, JsonValue]) -> None:
    reversed_document = dict(reversed(list(document.items())))
    assert dump_yaml([reversed_document]) == dump_yaml([document])


@given(_documents)
def test_output_does_not_depend_on_what_was_written_before(documents: list[JsonValue]) -> None:
    warm = dump_yaml(documents)
    yamlscalar.STRING_STYLES.clear()
    yamlscalar.KEY_STYLES.clear()
    assert dump_yaml(documents) == warm


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (1e17, "1.0e+17"),
        (1.5e-7, "1.5e-07"),
        (5e-324, "5.0e-324"),
        (float("inf"), ".inf"),
        (float("-inf"), "-.inf"),
        (12345678901234567890, "12345678901234567890"),
        (-3, "-3"),
        (True, "true"),
        (None, "null"),
    ],
)
def test_numbers_read_back_with_their_type(value: JsonValue, text: str) -> None:
    assert dump_yaml([{"x": value}]) == f"x: {text}\n"
    for reader, loaded in read_with_every_reader(f"x: {text}\n").items():
        assert loaded == [{"x": value}], reader
        assert [type(get_path(document, ["x"])) for document in loaded] == [type(value)], reader


def test_nan_is_written_as_yaml_nan() -> None:
    text = dump_yaml([{"x": float("nan")}])
    assert text == "x: .nan\n"
    for reader, loaded in read_with_every_reader(text).items():
        (number,) = [get_path(document, ["x"]) for document in loaded]
        assert isinstance(number, float), reader
        assert math.isnan(number), reader


def test_keys_that_cannot_be_implicit_are_explicit_entries() -> None:
    long_key = "k" * 130
    text = _assert_reads_back(
        [{long_key: {"a": [1, {"b": "x\ny"}]}, "two\nlines": [], "w" * 128: "v"}]
    )
    assert text == (
        f"? {long_key}\n"
        ": a:\n"
        "  - 1\n"
        "  - b: |-\n"
        "      x\n"
        "      y\n"
        "? |-\n"
        "  two\n"
        "  lines\n"
        ": []\n"
        f"? {'w' * 128}\n"
        ": v\n"
    )


def test_a_keep_chomped_block_at_the_end_of_a_document_is_closed() -> None:
    text = _assert_reads_back([{"a": "x\n\n"}, {"b": ["y\n\n"]}, {"c": "z\n\n", "d": 1}])
    assert text == "a: |+\n  x\n\n...\n---\nb:\n- |+\n  y\n\n...\n---\nc: |+\n  z\n\nd: 1\n"


def test_literal_blocks_are_indented_past_their_key_or_indicator() -> None:
    document: JsonValue = {"a": [[" x\ny"], {"b": "\nz"}]}
    assert _assert_reads_back([document]) == "a:\n- - |2-\n     x\n    y\n- b: |2-\n\n    z\n"


def test_deep_nesting_reads_back() -> None:
    document: JsonValue = "leaf"
    for depth in range(60):
        document = {"k": document} if depth % 2 else [document, "x"]
    _assert_reads_back([{"root": document}])


def test_types_outside_json_are_rejected() -> None:
    with pytest.raises(TypeError, match="bytes"):
        dump_yaml([{"a": b"x"}])  # type: ignore[dict-item]


@pytest.mark.parametrize("path", sorted((_REPO / "schemas" / "crds").glob("*.yaml")), ids=str)
def test_generated_crds_are_written_again_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert dump_yaml(list(YAML(typ="safe", pure=True).load_all(text))) == text


@pytest.mark.parametrize(
    "path", sorted((_REPO / "examples" / "rendered").rglob("*.yaml")), ids=lambda p: p.name
)
def test_rendered_examples_are_written_again_byte_for_byte(path: Path) -> None:
    header, _, text = path.read_text(encoding="utf-8").partition("\n")
    assert header.startswith("# Generated by trainc")
    assert dump_yaml(list(YAML(typ="safe", pure=True).load_all(text))) == text


def test_subclasses_of_json_types_are_written_as_their_base_type() -> None:
    class Word(enum.StrEnum):
        ON = "on"
        NAME = "name"

    class Count(enum.IntEnum):
        THREE = 3

    document: JsonValue = {Word.NAME: [Word.ON, Count.THREE, {Word.ON: True}]}
    assert dump_yaml([document]) == "name:\n- 'on'\n- 3\n- 'on': true\n"
