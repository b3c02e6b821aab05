from __future__ import annotations

import pytest

from tests.support.work import WatchedText, python_calls
from trainc.config.limits import InputLimits
from trainc.load import convert, fastyaml
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import Parsed, parse_documents
from trainc.model.json import JsonValue

BILLION_LAUGHS = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n"
    for i in range(9)
)


def parse(text: str, **limits: int) -> Parsed:
    return parse_documents(SourceFile("f.yaml", text), InputLimits(**limits))


def data(text: str) -> JsonValue:
    parsed = parse(text)
    assert parsed.diagnostics == (), parsed.diagnostics
    (document,) = parsed.documents
    return document.data


def found(parsed: Parsed) -> list[tuple[str, int | None, str | None]]:
    return [(d.code, d.line, d.field_path) for d in parsed.diagnostics]


def test_scalars_become_the_json_values_kubectl_sends() -> None:
    # kubectl and Argo CD decode with go-yaml v2: `yes`/`on` are booleans, `010` is octal,
    # `0o17` is Go's octal too, `1e3` is a float (sent as the JSON number 1000) and `1:30`
    # is text.
    converted = data(
        "s: text\nq: '1'\ni: 42\nneg: -0x1F\no: 0o17\nu: 1_000\nf: 1.5\ne: 1e3\nt: true\n"
        "none: ~\nyes_is_a_bool: yes\non_is_a_bool: on\nlead: 010\nclock: 1:30\n"
        "lit: |\n  two\n  lines\nfolded: >\n  one\n  line\n"
    )
    assert converted == {
        "s": "text",
        "q": "1",
        "i": 42,
        "neg": -31,
        "o": 15,
        "u": 1000,
        "f": 1.5,
        "e": 1000.0,
        "t": True,
        "none": None,
        "yes_is_a_bool": True,
        "on_is_a_bool": True,
        "lead": 8,
        "clock": "1:30",
        "lit": "two\nlines\n",
        "folded": "one line\n",
    }
    assert isinstance(converted, dict)
    assert {type(value) for value in converted.values()} == {str, int, float, bool, type(None)}


@pytest.mark.parametrize("directive", ["%YAML 1.2", "%YAML 1.1", "%TAG !e! tag:example.com,2000:"])
def test_directives_are_reported_and_change_no_typing(directive: str) -> None:
    # kubectl cuts the file at `---` before go-yaml parses it, so the directive is left
    # without its document; go-yaml's rules apply to the document all the same.
    # filterwarnings = error: a warning from ruamel would fail this test.
    parsed = parse(f"{directive}\n---\nflag: yes\nlead: 010\nf: !!float 1e3\n")
    assert found(parsed) == [("load.syntax", 1, None)]
    assert "directive" in parsed.diagnostics[0].message
    assert parsed.documents[0].data == {"flag": True, "lead": 8, "f": 1000.0}


def test_tagged_scalars_as_go_yaml_reads_them() -> None:
    # Timestamps stay text; !!binary is decoded; an unknown tag or `!` keeps the text.
    assert data(
        "when: 2001-12-14t21:59:43.10-05:00\nday: 2002-12-14\nblob: !!binary aGVsbG8=\n"
        "custom: !thing value\nforced: !!str 12\nnumber: !!int '7'\nbare: ! 12\n"
        "empty: !\nfloat: !!float 1\nstamp: !!timestamp 2001-12-14\n"
    ) == {
        "when": "2001-12-14t21:59:43.10-05:00",
        "day": "2002-12-14",
        "blob": "hello",
        "custom": "value",
        "forced": "12",
        "number": 7,
        "bare": "12",
        "empty": "",
        "float": 1.0,
        "stamp": "2001-12-14",
    }


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: .inf\n", "json: unsupported value: +Inf"),
        ("a: -.Inf\n", "json: unsupported value: -Inf"),
        ("a: .NaN\n", "json: unsupported value: NaN"),
        ("a: !!float .inf\n", "json: unsupported value: +Inf"),
        ("a: !!null x\n", "cannot decode !!str `x` as a !!null"),
        ("a: !!timestamp 12\n", "cannot decode !!int `12` as a !!timestamp"),
        ("a: !!bool 1\n", "cannot decode !!int `1` as a !!bool"),
        ("a: !!float 18446744073709551615\n", "cannot decode !!int"),
        ("a: !!binary a*b\n", "not valid base64"),
    ],
)
def test_scalars_kubectl_refuses_are_findings_and_keep_their_text(text: str, words: str) -> None:
    parsed = parse(text)
    assert found(parsed) == [("load.syntax", 1, "a")]
    assert words in parsed.diagnostics[0].message
    document = parsed.documents[0].data
    assert isinstance(document, dict)
    assert isinstance(document["a"], str)
    assert parsed.documents[0].refused == {("a",)}


def test_refused_scalars_are_marked_where_they_stand_and_nowhere_else() -> None:
    parsed = parse("a: [1, .inf]\nb: {c: .nan, d: x}\n---\ne: 1\n")
    assert [document.refused for document in parsed.documents] == [
        {("a", 1), ("b", "c")},
        frozenset(),
    ]


def test_explicit_tag_that_does_not_fit_the_value() -> None:
    parsed = parse("a: 1\nb: !!int twelve\n")
    assert found(parsed) == [("load.syntax", 2, "b")]
    assert parsed.documents[0].data == {"a": 1, "b": "twelve"}


def test_every_node_has_a_position() -> None:
    (document,) = parse("---\nspec:\n  list:\n    - a\n    - {x: 1}\n  empty: []\n").documents
    assert dict(document.positions) == {
        (): (1, 0),
        ("spec",): (1, 0),
        ("spec", "list"): (2, 2),
        ("spec", "list", 0): (3, 6),
        ("spec", "list", 1): (4, 6),
        ("spec", "list", 1, "x"): (4, 7),
        ("spec", "empty"): (5, 2),
    }


def test_duplicate_key_names_the_first_line_and_the_last_wins() -> None:
    parsed = parse("metadata:\n  name: a\n  labels: {}\n  name: b\n")
    assert found(parsed) == [("load.duplicate-key", 4, "metadata.name")]
    assert "'name'" in parsed.diagnostics[0].message
    assert "first on line 2" in parsed.diagnostics[0].message
    assert parsed.documents[0].data == {"metadata": {"name": "b", "labels": {}}}


def test_non_string_keys_are_errors_with_the_key_kubectl_sends() -> None:
    # kubectl turns 0x10 into "16", off into "false" and 1.5 into "1.5"; it refuses a null
    # or an unsigned 64-bit key, whose text trainc keeps.
    parsed = parse(
        "1: a\nnull: b\ntrue: c\n? [x]\n: d\nok: e\n0x10: f\noff: g\n1.5: h\n"
        "18446744073709551615: i\n"
    )
    assert found(parsed) == [
        ("load.non-string-key", line, None) for line in (1, 2, 3, 4, 7, 8, 9, 10)
    ]
    assert parsed.diagnostics[0].hint == 'quote it: "1"'
    assert "sends it as the key '16'" in parsed.diagnostics[4].message
    assert "refuses the file" in parsed.diagnostics[1].message
    assert parsed.documents[0].data == {
        "1": "a",
        "null": "b",
        "true": "c",
        "ok": "e",
        "16": "f",
        "false": "g",
        "1.5": "h",
        "18446744073709551615": "i",
    }


def test_merge_keys_fill_in_without_overriding() -> None:
    converted = data(
        "base: &base {image: a, cpu: 1}\nmore: &more {cpu: 2, gpu: 1}\n"
        "job:\n  <<: [*base, *more]\n  image: b\n"
    )
    assert isinstance(converted, dict)
    assert converted["job"] == {"image": "b", "cpu": 1, "gpu": 1}


def test_merge_keys_apply_where_they_stand_as_go_yaml_does() -> None:
    # go-yaml v2 sets a merge's keys where the `<<` stands: it replaces an earlier key
    # (kubectl sends a: 2 here), a later key replaces it, and a list's first map wins.
    converted = data("a: 1\n<<: [{a: 2, b: 3}, {b: 4, c: 5}]\nc: 6\n")
    assert converted == {"a": 2, "b": 3, "c": 6}


def test_merge_of_a_scalar_is_reported() -> None:
    assert found(parse("a:\n  <<: 3\n  b: 1\n")) == [("load.syntax", 2, "a")]


def test_aliases_expand_to_independent_copies() -> None:
    converted = data("a: &x {k: [1]}\nb: *x\n")
    assert isinstance(converted, dict)
    assert converted == {"a": {"k": [1]}, "b": {"k": [1]}}
    assert converted["a"] is not converted["b"]


def test_billion_laughs_is_refused_without_expanding_it() -> None:
    # The composed graph has about 100 nodes; its expansion 9**10, past the budget of
    # 1,000,000 nodes. Sizes are computed on the graph, each node once: a few hundred
    # calls into the converter, where expanding up to the budget would take a million.
    with python_calls("trainc/load/convert.py", limit=1_000):
        parsed = parse(BILLION_LAUGHS)
    assert found(parsed) == [("load.alias-bound", 7, None)]
    assert parsed.documents == ()


def test_node_budget_is_per_file_and_stops_the_file() -> None:
    document = "a: &a [1, 2, 3]\nb: [*a, *a]\n"  # 1 + 4 + 1 + 2 * 4 = 14 nodes
    parsed = parse(f"{document}---\n{document}---\n{document}---\nc: 1\n", max_yaml_nodes=30)
    assert [d.index for d in parsed.documents] == [0, 1]
    # The third document's anchored list (line 7) no longer fits the 2 nodes left.
    assert found(parsed) == [("load.alias-bound", 7, None)]


def test_plain_documents_count_against_the_budget_too() -> None:
    parsed = parse("a: [1, 2, 3]\n---\nb: [4, 5, 6]\n", max_yaml_nodes=6)  # 5 + 5 nodes
    assert [d.index for d in parsed.documents] == [0]
    assert found(parsed) == [("load.alias-bound", 3, "b")]


def test_document_bound_counts_empty_documents_and_stops_the_file() -> None:
    parsed = parse("a: 1\n---\n---\nb: 2\n---\nc: 3\n---\nd: 4\n", max_documents=3)
    assert [d.data for d in parsed.documents] == [{"a": 1}, {"b": 2}]
    assert found(parsed) == [("load.too-many-documents", 6, None)]
    assert parsed.diagnostics[0].message == (
        "the file holds more than 3 YAML documents; nothing after this point is read"
    )


class _PlainComposer(fastyaml._Composer):
    """libyaml takes exact str objects only: it gets the watched text's plain copy."""

    def __init__(self, text: str) -> None:
        super().__init__(str(text))


@pytest.mark.parametrize("document", ["", "a: 1\n", "a: &x 1\nb: *x\n"])
def test_the_text_is_read_a_fixed_number_of_times_whatever_the_documents(
    monkeypatch: pytest.MonkeyPatch, document: str
) -> None:
    # A search of the whole text per document (`"*" in text` for each one) made 400,000
    # documents take 20 s: whole-text passes must not grow with the documents. Ten times
    # the documents tell a count that grows from one that does not as well as a hundred.
    monkeypatch.setattr(fastyaml, "_Composer", _PlainComposer)
    passes = []
    for documents in (1_000, 10_000):
        text = WatchedText(f"---\n{document}" * documents)
        parsed = parse_documents(SourceFile("f.yaml", text), InputLimits(max_documents=documents))
        assert parsed.diagnostics == ()
        assert len(parsed.documents) == (documents if document else 0)
        passes.append(text.passes)
    assert passes[0] == passes[1]
    assert passes[0]["__contains__"] >= 1  # the watch sees the parser's searches


def test_the_document_bound_stops_a_file_of_bare_separators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fastyaml, "_Composer", _PlainComposer)
    text = WatchedText("---\n" * 400_000)  # 1.6 MB, under the default file size bound
    assert found(parse_documents(SourceFile("f.yaml", text), InputLimits())) == [
        ("load.too-many-documents", 10_002, None)
    ]
    assert sum(text.passes.values()) < 20


def test_recursive_alias_is_refused() -> None:
    parsed = parse("ok: 1\n---\na: &a [x, *a]\n---\nb: 2\n")
    assert [d.data for d in parsed.documents] == [{"ok": 1}, {"b": 2}]
    assert found(parsed) == [("load.alias-bound", 3, None)]


def test_aliases_cannot_nest_past_the_depth_bound() -> None:
    text = "a: &a [[[1]]]\nb: &b [[[*a]]]\nc: [[[*b]]]\n"
    parsed = parse(text, max_depth=8)
    assert found(parsed) == [("load.too-deep", 1, None)]
    assert parse(text, max_depth=11).diagnostics == ()


def test_equal_paths_and_positions_are_held_once_and_the_table_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = parse("a: {b: 1}\n").documents[0]
    second = parse("a: {b: 2}\n").documents[0]
    (path_one, place_one), (path_two, place_two) = (
        next((p, pos) for p, pos in doc.positions.items() if p == ("a", "b"))
        for doc in (first, second)
    )
    assert path_one is path_two
    assert place_one is place_two
    monkeypatch.setattr(convert, "_SHARED", {})
    monkeypatch.setattr(convert, "_SHARED_LIMIT", 2)
    values = [convert.shared((n, n)) for n in range(5)]
    assert values == [(n, n) for n in range(5)]
    assert len(convert._SHARED) == 2
