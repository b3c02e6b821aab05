from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.load.files import TRAINJOB, config, write
from trainc.config.limits import InputLimits
from trainc.load.inputs import load_inputs
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import Parsed, parse_documents
from trainc.model.json import JsonValue


def parse(text: str, *, path: str = "f.json", **limits: int) -> Parsed:
    return parse_documents(SourceFile(path, text), InputLimits(**limits))


def found(parsed: Parsed) -> list[tuple[str, int | None, int | None]]:
    return [(d.code, d.line, d.column) for d in parsed.diagnostics]


_CHARACTERS = st.characters(
    min_codepoint=32, max_codepoint=0x2FFF, exclude_categories=("Cs", "Cc", "Zl", "Zp")
)
_TEXT = st.text(_CHARACTERS, max_size=6)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
    st.sampled_from(["yes", "08", "1:30", "~", "<<", ".inf", "0o17", ""]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


@given(st.dictionaries(_TEXT, _VALUES, max_size=4), st.sampled_from([None, 0, 2]))
def test_json_reads_as_its_yaml_reading_where_yaml_agrees(
    data: JsonValue, indent: int | None
) -> None:
    # JSON is YAML: a .json file and the same text as .yaml give the same data and
    # positions, since go-yaml reads a JSON string as a string and a JSON number as the
    # same number (the API machinery's decoding applies to both).
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    as_json = parse(text)
    as_yaml = parse(text, path="f.yaml")
    assert as_json.diagnostics == ()
    assert as_yaml.diagnostics == ()
    assert [d.data for d in as_json.documents] == [d.data for d in as_yaml.documents]
    assert [dict(d.positions) for d in as_json.documents] == [
        dict(d.positions) for d in as_yaml.documents
    ]


def test_json_types_its_own_scalars() -> None:
    (document,) = parse(
        '{"yes": "yes", "zero8": "08", "one": 1.0, "k": 1e3, "half": 0.5,'
        ' "big": 9223372036854775808, "t": true, "n": null, "half-pair": "\\ud800",'
        ' "pair": "\\ud83d\\ude00"}'
    ).documents
    assert document.data == {
        "yes": "yes",
        "zero8": "08",
        "one": 1.0,
        "k": 1000.0,
        "half": 0.5,
        "big": 2**63,
        "t": True,
        "n": None,
        "half-pair": "\ufffd",
        "pair": "😀",
    }


def test_every_node_has_its_position() -> None:
    (document,) = parse(
        '{\n  "spec": {\n    "list": ["a", {"x": 1}],\n    "empty": []\n  }\n}\n'
    ).documents
    assert dict(document.positions) == {
        (): (0, 0),
        ("spec",): (1, 2),
        ("spec", "list"): (2, 4),
        ("spec", "list", 0): (2, 13),
        ("spec", "list", 1): (2, 18),
        ("spec", "list", 1, "x"): (2, 19),
        ("spec", "empty"): (3, 4),
    }


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ('{"a": 1,}', (1, 9), "looking for beginning of object key string"),
        ('{\n  // a comment\n  "a": 1\n}', (2, 3), "looking for beginning of object key"),
        ("{'a': 1}", (1, 2), "beginning of object key string"),
        ('{"a": NaN}', (1, 7), "looking for beginning of value"),
        ('{"a": 1} x', (1, 10), "looking for beginning of value"),
        ('{"a": 01}', (1, 8), "after object key:value pair"),
        ('{"a" 1}', (1, 6), "after object key"),
        ('["a" "b"]', (1, 6), "after array element"),
        ('{"a": "x\ty"}', (1, 9), "in string literal"),
        ('{"a": "\\q"}', (1, 8), "in string escape code"),
        ('{"a": ', (1, 7), "unexpected end of JSON input"),
        ('{"a": 1e400}', (1, 7), "cannot unmarshal number 1e400"),
        ("", (1, 1), "holds no JSON value"),
        (" \n ", (2, 2), "holds no JSON value"),
        ('{"a": 1}\n{"b": 2}', (2, 1), "Only single objects are allowed in JSON files"),
    ],
)
def test_what_kubectl_or_argo_cd_refuses_is_a_finding_at_its_place(
    text: str, where: tuple[int, int], words: str
) -> None:
    parsed = parse(text)
    assert [(code, line, column) for code, line, column in found(parsed)] == [
        ("load.syntax", *where)
    ]
    assert words in parsed.diagnostics[0].message


def test_values_before_a_syntax_error_are_read() -> None:
    parsed = parse('{"a": 1}\n{"b": }')
    assert [d.data for d in parsed.documents] == [{"a": 1}]
    assert [code for code, *_ in found(parsed)] == ["load.syntax"]


def test_duplicate_keys_and_bounds_are_the_converters() -> None:
    assert found(parse('{"a": 1,\n "a": 2}')) == [("load.duplicate-key", 2, 2)]
    assert found(parse("[[[[1]]]]", max_depth=4)) == [("load.too-deep", 1, 5)]
    assert [d.data for d in parse("[[[1]]]", max_depth=4).documents] == [[[[1]]]]
    assert found(parse("[1, 2, 3]", max_yaml_nodes=3))[0][0] == "load.alias-bound"


def test_absurd_nesting_is_refused_without_recursion() -> None:
    parsed = parse("[" * 200_000 + "]" * 200_000)
    assert found(parsed) == [("load.too-deep", 1, 101)]


def test_a_json_trainjob_loads_with_its_positions(tmp_path: Path) -> None:
    manifest = json.dumps(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "from-json", "namespace": "team"},
            "spec": {"runtimeRef": {"name": "torch"}},
        },
        indent=2,
    )
    write(tmp_path, "jobs/job.json", manifest)
    write(tmp_path, "jobs/job.yaml", TRAINJOB.format(name="from-yaml"))
    write(tmp_path, "package.json", '{"name": "not a manifest"}')
    everything = config(tmp_path, include=("**/*.yaml", "**/*.json"))
    result = load_inputs([tmp_path], config=everything)
    assert [d.code for d in result.diagnostics] == ["load.ignored-document"]  # package.json
    assert [(obj.path, obj.name) for obj in result.objects] == [
        ("jobs/job.json", "from-json"),
        ("jobs/job.yaml", "from-yaml"),
    ]
    position = result.objects[0].document.locate(("spec", "runtimeRef", "name"))
    assert (position.line, position.column) == (10, 7)
    # A .json file named on the command line is read whatever the include globs say.
    named = load_inputs([tmp_path / "jobs" / "job.json"], config=config(tmp_path))
    assert [obj.name for obj in named.objects] == ["from-json"]
