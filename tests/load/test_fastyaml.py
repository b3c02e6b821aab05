from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tests.load.yamltext import token_soup, yaml_streams
from trainc.config.limits import InputLimits
from trainc.load import fastyaml
from trainc.load.convert import Converter
from trainc.load.documents import Parsed
from trainc.load.ruamelyaml import read_stream
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

MANIFEST = """\
# A TrainJob as people write them: comments, flow lists, block scalars, anchors.
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: "résumé-train"
  labels: {team: vision, tier: 'gold'}
  annotations:
    note: >-
      folded
      text
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 4
    command: [torchrun, train.py]
    args:
      - --epochs=90
      - "--lr=0.1"
    env:
    - name: SCRIPT
      value: |
        set -e
        python train.py  # not a comment
    resourcesPerNode:
      limits: {nvidia.com/gpu: 4, cpu: 1.5, memory: 8Gi}
  suspend: no
---
kind: Other
base: &base {cpu: 1, gpu: 2}
copy: *base
merged:
  <<: *base
  gpu: 8
"""


def ruamel_path(text: str, limits: InputLimits) -> Parsed:
    converter = Converter(SourceFile("f.yaml", text), limits)
    read_stream(converter, limits)
    return converter.parsed()


def fast_path(text: str, limits: InputLimits) -> Parsed | None:
    return fastyaml.parse(SourceFile("f.yaml", text), limits)


def outcome(parsed: Parsed) -> object:
    """Everything a caller can see; repr tells 1 from 1.0 and True, and nan equals nan."""
    documents = [(d.index, repr(d.data), list(d.positions.items())) for d in parsed.documents]
    return documents, parsed.diagnostics, dict(parsed.findings)


def assert_alike(text: str, limits: InputLimits) -> bool:
    """The fast path, where it answers, reads ``text`` exactly as the ruamel path does."""
    fast = fast_path(text, limits)
    if fast is None:
        return False
    assert outcome(fast) == outcome(ruamel_path(text, limits))
    return True


LIMITS = st.sampled_from(
    [
        InputLimits(),
        InputLimits(max_yaml_nodes=12),
        InputLimits(max_depth=4),
        InputLimits(max_documents=2),
    ]
)


@given(yaml_streams(), LIMITS)
def test_generated_streams_read_alike(text: str, limits: InputLimits) -> None:
    assert_alike(text, limits)


@given(token_soup, LIMITS)
def test_malformed_streams_read_alike(text: str, limits: InputLimits) -> None:
    assert_alike(text, limits)


def test_a_typical_manifest_takes_the_fast_path() -> None:
    assert assert_alike(MANIFEST, InputLimits())
    parsed = parse_documents(SourceFile("f.yaml", MANIFEST), InputLimits())
    assert [d.index for d in parsed.documents] == [0, 1]
    other = parsed.documents[1].data
    assert isinstance(other, dict)
    assert other["merged"] == {"cpu": 1, "gpu": 8}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # kubectl and Argo CD decode with go-yaml v2 (sigs.k8s.io/yaml): its resolve map
        # has y/n and on/off booleans, ParseInt(text without "_", 0, 64) reads 010 and
        # 0o17 as octal, yamlStyleFloat takes 1e3 (a float, sent as the number 1000), and
        # there is no base 60. PyYAML reads y, n and 1e3 as text and ruamel reads 1:20 as
        # 80: neither path resolves tags itself any more; trainc.load.scalars does.
        ("y", True),
        ("N", False),
        ("on", True),
        ("Off", False),
        ("1e3", 1000.0),
        ("1.0e3", 1000.0),
        ("1.5", 1.5),
        ("+_7", 7),
        ("010", 8),
        ("08", 8.0),
        ("1_000", 1000),
        ("0x1F", 31),
        ("0o17", 15),
        ("0O17", 15),
        ("+0o7", 7),
        ("=", "="),
        ("2001-12-14", "2001-12-14"),
        ("1:20", "1:20"),
        ("12:30:00", "12:30:00"),
        ("-.inf", "-.inf"),  # kubectl refuses it: a finding, and the text is kept
    ],
)
def test_plain_scalars_read_as_kubectl_reads_them(text: str, value: object) -> None:
    for document in (f"v: {text}\n", f"---\nv: {text}\n", f"a: 1\n---\nv: {text}\n"):
        assert assert_alike(document, InputLimits())
        parsed = parse_documents(SourceFile("f.yaml", document), InputLimits())
        assert repr(parsed.documents[-1].data) == repr({"v": value})


def test_every_document_is_typed_by_go_yaml_rules_directive_or_not() -> None:
    # ruamel alone read a document after `---` as YAML 1.2 (yes a string, 010 ten), and
    # trainc read one after %YAML 1.2 by 1.2 rules; kubectl refuses the directive and
    # has one set of rules.
    text = "a: yes\n---\nb: yes\n---\n%YAML 1.2\n---\nc: yes\n---\nd: [yes, 010]\n"
    assert fast_path(text, InputLimits()) is None  # a directive: the ruamel path reads it
    parsed = parse_documents(SourceFile("f.yaml", text), InputLimits())
    data = [d.data for d in parsed.documents]
    assert data == [{"a": True}, {"b": True}, {"c": True}, {"d": [True, 8]}]
    assert [(d.code, d.line) for d in parsed.diagnostics] == [("load.syntax", 5)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("v: ! 12\n", "12"),  # the non-specific tag: go-yaml keeps the text
        ("v: &a ! 12\n", "12"),
        ("v: ! &a 12\n", "12"),
        ("v: &a 12\n", 12),  # an anchor alone changes nothing
        ("v: ! # note\n  12\n", "12"),
        ("v: !\n", ""),  # an empty node tagged `!` is the empty string, not null
        ("v: [! yes, yes, &x ! no, *x]\n", ["yes", True, "no", "no"]),
        ("! a: 1\n", {"a": 1}),
        ('v: ! "12"\n', "12"),
        ("v: !!str 12\n", "12"),
        ("v: !!binary aGVsbG8=\n", "hello"),
    ],
)
def test_the_bare_tag_reads_alike_on_both_paths(text: str, value: object) -> None:
    assert outcome(parse_documents(SourceFile("f.yaml", text), InputLimits())) == outcome(
        ruamel_path(text, InputLimits())
    )
    data = parse_documents(SourceFile("f.yaml", text), InputLimits()).documents[0].data
    assert data == (value if isinstance(value, dict) else {"v": value})


@pytest.mark.parametrize(
    "text",
    [
        "a:\tb\n",  # ruamel refuses tabs in more places than libyaml
        "a: 1\n\ufeffb: 2\n",  # libyaml skips a byte-order mark at a line start
        "a: 1\x85b: 2\n",  # NEL, LS and PS break lines for libyaml only in some counts
        "a: 1\u2028b: 2\n",
        "%YAML 1.1\n---\na: 1\n",
        "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
        "a: |# a comment libyaml allows\n  x\n",
        "|\ntop-level block scalar\n---\n",  # ruamel lets its lines start in column 0
        "- &a x\n- &a y\n",  # libyaml refuses to redefine an anchor, YAML allows it
        "a: *undefined\n",
        "a: b: c\n",
        "a: '\ud800'\n",  # not encodable as UTF-8
        "- \n- x\n",  # an empty item: each parser places it elsewhere
        "- &a x\n- *a\n",  # an anchored item: libyaml places it at the anchor
        "? !!str k\n: v\n",
        "a: !!int x\n",  # the finding would point at the tag
        "[" * 150 + "]" * 150,  # deeper than maxDepth: ruamel's composer reports it
    ],
)
def test_declined_files_are_read_by_the_ruamel_path(text: str) -> None:
    assert fast_path(text, InputLimits()) is None
    parsed = parse_documents(SourceFile("f.yaml", text), InputLimits())
    assert outcome(parsed) == outcome(ruamel_path(text, InputLimits()))


def test_nesting_the_converter_never_visits_is_still_bounded() -> None:
    # The values of a merge key that are not mappings are reported, not converted, so
    # only the composed depth tells that ruamel's composer stops here.
    text = "a:\n  <<: [[[[x]]]]\n"
    assert fast_path(text, InputLimits(max_depth=4)) is None
    assert [d.code for d in ruamel_path(text, InputLimits(max_depth=4)).diagnostics] == [
        "load.too-deep"
    ]
    assert assert_alike(text, InputLimits(max_depth=7))


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "{a: " * 100_000 + "}" * 100_000,
        "- " * 100_000 + "x\n",
        "".join(" " * i + "a:\n" for i in range(3_000)),
        # Many shallow lines, then one deep chain: the count of indicators is large,
        # the longest line bounds the block nesting.
        "".join(f"x{i}: [1, 2]\n" for i in range(400)) + "y:\n" + "- " * 5_000 + "z\n",
    ],
    ids=["flow-sequence", "flow-mapping", "compact-sequence", "block-mapping", "long-file"],
)
def test_absurd_nesting_never_reaches_libyaml(text: str) -> None:
    assert fastyaml.nesting_bound(text) > fastyaml.MAX_NESTING
    # In a child process: if the bound let libyaml's recursive composer see it, the
    # crash must fail this test, not end the test run.
    script = (
        "import sys\n"
        "from trainc.config.limits import InputLimits\n"
        "from trainc.load.source import SourceFile\n"
        "from trainc.load.yamlsrc import parse_documents\n"
        "parsed = parse_documents(SourceFile('f.yaml', sys.stdin.read()), InputLimits())\n"
        "print(*[d.code for d in parsed.diagnostics])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=text, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["load.too-deep"]


@pytest.mark.parametrize("depth", [1, 10, 200, 900])
def test_nesting_bound_is_an_upper_bound(depth: int) -> None:
    half = depth // 2
    chains = [
        "[" * depth + "]" * depth,
        "{a: " * depth + "}" * depth,
        "- " * depth + "x\n",
        "".join(" " * i + "k:\n" for i in range(depth)) + " " * depth + "v\n",
        # Indentless sequences: a list in the column of its key, two levels per indent.
        "k:\n" + "".join(" " * (2 * i) + "- k:\n" for i in range(half)) + " " * depth + "- x\n",
        "".join(f"pad{i}: [1]\n" for i in range(300)) + "deep:\n" + "- " * depth + "x\n",
    ]
    for text in chains:
        assert _deepest(text) <= fastyaml.nesting_bound(text), text[:40]


def _deepest(text: str) -> int:
    """How deep the nodes of ``text`` nest, from parser events (no recursion)."""
    open_collections = deepest = 0
    for event in YAML(typ="rt").parse(text):
        name = type(event).__name__
        if name in ("SequenceStartEvent", "MappingStartEvent"):
            open_collections += 1
            deepest = max(deepest, open_collections)
        elif name in ("SequenceEndEvent", "MappingEndEvent"):
            open_collections -= 1
        elif name in ("ScalarEvent", "AliasEvent"):
            deepest = max(deepest, open_collections + 1)
    return deepest
