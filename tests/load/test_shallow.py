"""Files read for their documents' heads only: the same outcome as a full parse, for less."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.load.files import config
from trainc.config.limits import InputLimits
from trainc.load import shallow, yamlsrc
from trainc.load.inputs import FileLoad, load_file
from trainc.load.shallow import parse_heads
from trainc.load.source import SourceFile

PROJECT = Path(__file__).resolve().parents[2]
#: The files `trainc schemas -o schemas` writes, committed in this repository.
SCHEMA_FILES = sorted(p for p in (PROJECT / "schemas").rglob("*") if p.suffix in {".yaml", ".json"})

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations: {controller-gen.kubebuilder.io/version: v0.17.2}
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: "kind: TrainJob, apiVersion: trainer.kubeflow.org/v1alpha1"
        type: object
"""
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: a, namespace: ml}
spec: {runtimeRef: {name: torch-distributed}}
"""


def both_ways(path: str, text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[FileLoad, FileLoad]:
    """``load_file`` as it runs, and with every file parsed fully."""
    settings = config(Path("/repo"))
    quick = load_file(path, text.encode(), settings)
    with monkeypatch.context() as patched:
        patched.setattr(yamlsrc, "parse_heads", lambda source, limits: None)  # as skim=False
        full = load_file(path, text.encode(), settings)
    return quick, full


def outcome(load: FileLoad) -> tuple[object, ...]:
    return (load.diagnostics, [(o.kind, o.name) for o in load.objects])


def heads(path: str, text: str, **limits: int) -> object:
    return parse_heads(SourceFile(path, text), InputLimits(**limits))


@pytest.mark.parametrize("schema", SCHEMA_FILES, ids=lambda p: p.name)
def test_the_schemas_trainc_writes_are_read_by_their_heads_alike(
    schema: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = schema.relative_to(PROJECT).as_posix()
    text = schema.read_text(encoding="utf-8")
    assert heads(path, text) is not None
    quick, full = both_ways(path, text, monkeypatch)
    assert outcome(quick) == outcome(full)
    assert [d.code for d in quick.diagnostics] == ["load.ignored-document"]


def test_upstream_crds_are_read_by_their_heads(shared_dir: Path) -> None:
    # A full parse of these takes ruamel seconds each; the schemas above compare both
    # ways, here each CRD is named and placed where its text says.
    crds = sorted((shared_dir / "upstream" / "crds").glob("*.yaml"))
    assert crds
    for crd in crds:
        text = crd.read_text(encoding="utf-8")
        load = load_file(crd.name, text.encode(), config(Path("/repo")))
        start = text[: text.index("\napiVersion: apiextensions.k8s.io/")].count("\n") + 2
        name = re.search(r"^metadata:\n(?:  .*\n)*?  name: (\S+)$", text, re.MULTILINE)
        assert name is not None
        assert [(d.code, d.line, d.message.rsplit("/", 1)[-1]) for d in load.diagnostics] == [
            ("load.ignored-document", start, name.group(1))
        ]
        assert load.objects == ()


def test_each_definition_is_placed_and_named_as_a_full_parse_places_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = f"# vendored\n---\n{CRD}---\n---\n{CRD.replace('widgets.', 'gadgets.')}"
    quick, full = both_ways("crds.yaml", text, monkeypatch)
    assert outcome(quick) == outcome(full)
    assert [(d.line, d.message.rsplit("/", 1)[-1]) for d in quick.diagnostics] == [
        (3, "widgets.example.com"),
        (20, "gadgets.example.com"),
    ]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        pytest.param("mixed.yaml", f"{CRD}---\n{TRAINJOB}", id="a TrainJob among CRDs"),
        pytest.param("cm.yaml", "apiVersion: v1\nkind: ConfigMap\n", id="another kind"),
        pytest.param("bad.yaml", CRD + "  - [unclosed\n", id="a syntax error"),
        pytest.param("alias.yaml", CRD + "extra: *x\n", id="an alias"),
        pytest.param("tag.yaml", CRD.replace("kind: Cus", "kind: !!str Cus"), id="a tag"),
        pytest.param("crd.json", '{"apiVersion": "v1", "kind": "X"}', id="a JSON object"),
        pytest.param("nan.json", '{"a": NaN}', id="NaN, which Go refuses"),
        pytest.param("big.json", '{"a": 1e400}', id="a number past float64"),
        pytest.param("two.json", "{}\n{}", id="two JSON values"),
        pytest.param("list.json", "[{}]", id="a JSON array"),
    ],
)
def test_anything_else_or_in_doubt_is_parsed_fully(
    path: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert heads(path, text) is None
    quick, full = both_ways(path, text, monkeypatch)
    assert outcome(quick) == outcome(full)


def test_files_near_the_limits_are_left_to_the_full_reader() -> None:
    assert heads("deep.json", '{"a": {"b": {"c": {}}}}', max_depth=3) is None
    assert heads("deep.json", '{"a": {"b": {}}}', max_depth=3) is not None
    assert heads("many.json", '{"a": [1, 2, 3, 4]}', max_yaml_nodes=8) is None
    assert heads("crd.yaml", CRD, max_depth=4) is None
    assert heads("crds.yaml", f"{CRD}---\n{CRD}", max_documents=1) is None
    assert shallow.DEFINITION_KIND in CRD
    assert heads("crd.yaml", CRD) is not None
