from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.resolver import implicit_resolvers

from tests.load.yamltext import token_soup, yaml_streams
from trainc.load import fastyaml
from trainc.load.convert import Converter
from trainc.load.documents import Parsed
from trainc.load.limits import Limits
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


def ruamel_path(text: str, limits: Limits) -> Parsed:
    converter = Converter(SourceFile("f.yaml", text), limits)
    read_stream(converter, limits)
    return converter.parsed()


def fast_path(text: str, limits: Limits) -> Parsed | None:
    return fastyaml.parse(SourceFile("f.yaml", text), limits)


def outcome(parsed: Parsed) -> object:
    """Everything a caller can see; repr tells 1 from 1.0 and True, and nan equals nan."""
    documents = [(d.index, repr(d.data), list(d.positions.items())) for d in parsed.documents]
    return documents, parsed.diagnostics, dict(parsed.findings)


def assert_alike(text: str, limits: Limits) -> bool:
    """The fast path, where it answers, reads ``text`` exactly as the ruamel path does."""
    fast = fast_path(text, limits)
    if fast is None:
        return False
    assert outcome(fast) == outcome(ruamel_path(text, limits))
    return True


LIMITS = st.sampled_from(
    [Limits(), Limits(max_yaml_nodes=12), Limits(max_depth=4), Limits(max_documents=2)]
)


def test_resolvers_are_ruamels_yaml_1_1_table() -> None:
    ruamels = [
        (tag, pattern.pattern, pattern.flags, tuple(first))
        for versions, tag, pattern, first in implicit_resolvers
        if (1, 1) in versions
    ]
    ours = [
        (tag, pattern.pattern, pattern.flags, first)
        for tag, pattern, first in fastyaml.YAML_1_1_RESOLVERS
    ]
    assert ours == ruamels


@given(yaml_streams(), LIMITS)
def test_generated_streams_read_alike(text: str, limits: Limits) -> None:
    assert_alike(text, limits)


@given(token_soup, LIMITS)
def test_malformed_streams_read_alike(text: str, limits: Limits) -> None:
    assert_alike(text, limits)


def test_a_typical_manifest_takes_the_fast_path() -> None:
    assert assert_alike(MANIFEST, Limits())
    parsed = parse_documents(SourceFile("f.yaml", MANIFEST), Limits())
    assert [d.index for d in parsed.documents] == [0, 1]
    other = parsed.documents[1].data
    assert isinstance(other, dict)
    assert other["merged"] == {"cpu": 1, "gpu": 8}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # kubectl and Argo CD decode with go-yaml v2 (sigs.k8s.io/yaml), YAML 1.1 style:
        # its resolve table has y/n and on/off booleans, ParseInt reads 010 as octal and
        # 1_000 without underscores, and yamlStyleFloat takes 1e3. PyYAML reads y, n and
        # 1e3 as text, so the fast path resolves by ruamel's table instead.
        ("y", True),
        ("N", False),
        ("on", True),
        ("Off", False),
        ("1e3", 1000.0),
        ("1.0e3", 1000.0),
        ("+_7", 7),
        ("010", 8),
        ("1_000", 1000),
        ("0x1F", 31),
        ("-.inf", -math.inf),
        ("=", "="),
        ("2001-12-14", "2001-12-14"),
        # What trainc has always read, though go-yaml v2 differs: it has no base 60 and
        # its ParseInt takes 0o17 (Go >= 1.13).
        ("1:20", 80),
        ("0o17", "0o17"),
    ],
)
def test_plain_scalars_read_by_yaml_1_1_rules(text: str, value: object) -> None:
    for document in (f"v: {text}\n", f"---\nv: {text}\n", f"a: 1\n---\nv: {text}\n"):
        assert assert_alike(document, Limits())
        parsed = parse_documents(SourceFile("f.yaml", document), Limits())
        assert repr(parsed.documents[-1].data) == repr({"v": value})


def test_every_document_without_a_directive_is_yaml_1_1_on_both_paths() -> None:
    # ruamel alone read a document after `---` as YAML 1.2 (yes a string, 010 ten), and
    # one after a %YAML 1.2 document by that document's rules.
    text = "a: yes\n---\nb: yes\n---\n%YAML 1.2\n---\nc: yes\n---\nd: [yes, 010]\n"
    assert fast_path(text, Limits()) is None  # a directive: the ruamel path reads it
    data = [d.data for d in parse_documents(SourceFile("f.yaml", text), Limits()).documents]
    assert data == [{"a": True}, {"b": True}, {"c": "yes"}, {"d": [True, 8]}]


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
    assert fast_path(text, Limits()) is None
    parsed = parse_documents(SourceFile("f.yaml", text), Limits())
    assert outcome(parsed) == outcome(ruamel_path(text, Limits()))


def test_nesting_the_converter_never_visits_is_still_bounded() -> None:
    # The values of a merge key that are not mappings are reported, not converted, so
    # only the composed depth tells that ruamel's composer stops here.
    text = "a:\n  <<: [[[[x]]]]\n"
    assert fast_path(text, Limits(max_depth=4)) is None
    assert [d.code for d in ruamel_path(text, Limits(max_depth=4)).diagnostics] == ["load.too-deep"]
    assert assert_alike(text, Limits(max_depth=7))


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
        "from trainc.load.limits import Limits\n"
        "from trainc.load.source import SourceFile\n"
        "from trainc.load.yamlsrc import parse_documents\n"
        "parsed = parse_documents(SourceFile('f.yaml', sys.stdin.read()), Limits())\n"
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
