from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from trainc.emit.yamlout import dump_yaml
from trainc.model.json import JsonValue


def _load_all(text: str, version: tuple[int, int] = (1, 2)) -> list[JsonValue]:
    """Parse ``text`` as a reader of the given YAML version would.

    ruamel applies a forced version to the first document of a stream only, so YAML 1.1
    documents are parsed one by one (block scalars are indented, so an unindented
    ``---`` line can only be a separator).
    """
    loader = YAML(typ="safe", pure=True)
    if version == (1, 2):
        return list(loader.load_all(text))
    loader.version = version
    return [loader.load(chunk) for chunk in re.split(r"^---\n", text, flags=re.MULTILINE)]


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
    text = dump_yaml([{"key": value, value: "key"}])
    assert _load_all(text, (1, 1)) == [{"key": value, value: "key"}]
    assert _load_all(text) == [{"key": value, value: "key"}]


@pytest.mark.parametrize(
    "value",
    [
        "a: b",
        "  leading spaces",
        "trailing space ",
        "ends with newline\n",
        "two trailing newlines\n\n",
        "\nstarts with a newline",
        "  indented first line\nsecond",
        "carriage\r\nreturn",
        "tab\tinside\n",
        "- looks like a list",
        "# looks like a comment",
        "{flow}",
        "'quoted'",
        '"double"',
        "back\\slash",
        "unicode é ✓\n",
        "next line \x85 and line separator \u2028",
        "control \x00 \x1b \x7f \x80\nsecond line",
        "\ufeffbyte order mark",
        "astral 😀\nline",
        "x" * 300 + " " + "y" * 300,
    ],
)
def test_awkward_strings_round_trip(value: str) -> None:
    assert _load_all(dump_yaml([{"v": value}])) == [{"v": value}]


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


_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=24)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=8,
)


@given(st.lists(st.dictionaries(_text, _json, max_size=4), min_size=1, max_size=2))
def test_any_json_document_round_trips_for_yaml_1_1_and_1_2_readers(
    documents: list[JsonValue],
) -> None:
    text = dump_yaml(documents)
    assert text.endswith("\n")
    assert _load_all(text) == documents
    assert _load_all(text, (1, 1)) == documents


@given(st.dictionaries(_text, _json, min_size=2, max_size=4))
def test_output_does_not_depend_on_insertion_order(document: dict[str, JsonValue]) -> None:
    reversed_document = dict(reversed(list(document.items())))
    assert dump_yaml([reversed_document]) == dump_yaml([document])
