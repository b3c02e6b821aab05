"""``trainc migrate`` through the API: each migration kind, what is left alone, and why."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.builders import objects_from_file
from tests.support.manifests import TORCH_RUNTIME, write
from trainc.app import migrate_paths, validate_paths
from trainc.app.migrate import MigrationReport
from trainc.errors import UsageError
from trainc.model.json import get_path

CASES = Path(__file__).resolve().parents[1] / "cases" / "migrate"
KINDS = sorted(path.name for path in (CASES / "invalid").iterdir())
#: Cases whose compliant variant is exactly what migrate writes (with its manager).
SAME_AS_VALID = ("api-version", "initializer", "overrides", "torch-spec")
MANAGER = "example.com/platform"


def _repo(tmp_path: Path, case: str) -> Path:
    shutil.copytree(CASES / "invalid" / case, tmp_path, dirs_exist_ok=True)
    (tmp_path / "expect.yaml").unlink()
    (tmp_path / ".git").mkdir()
    return tmp_path


def _migrate(root: Path, *paths: str, write: bool = False) -> MigrationReport:
    return migrate_paths([root / path for path in paths], cwd=root, manager=MANAGER, write=write)


def _codes(root: Path) -> list[str]:
    return [d.code for d in validate_paths([], cwd=root).diagnostics if d.is_error]


def _body(text: str) -> str:
    """The text without its first line (the case's comment saying what it shows)."""
    return text.split("\n", 1)[1]


@pytest.mark.parametrize("case", KINDS)
def test_each_migration_kind_is_rewritten_and_validates(tmp_path: Path, case: str) -> None:
    root = _repo(tmp_path, case)
    before = {path.name: path.read_text() for path in root.glob("*.yaml")}

    report = _migrate(root, write=True)

    assert report.exit_code == 0, report.left
    assert [file.path for file in report.changed] != []
    assert _codes(root) == []
    if case in SAME_AS_VALID:
        for file in report.changed:
            valid = (CASES / "valid" / case / file.path).read_text()
            assert _body(file.after) == _body(valid)
    again = _migrate(root)
    assert (again.files, again.exit_code) == ((), 0)
    assert set(before) == {path.name for path in root.glob("*.yaml")}


def test_without_write_nothing_is_written_and_the_exit_code_says_so(tmp_path: Path) -> None:
    root = _repo(tmp_path, "overrides")
    before = (root / "trainjob.yaml").read_text()

    report = _migrate(root)

    assert report.exit_code == 1
    assert (root / "trainjob.yaml").read_text() == before
    assert report.diff().startswith("--- a/trainjob.yaml\n+++ b/trainjob.yaml\n@@ ")


V21_TRAINJOB = """\
# A TrainJob from the Trainer v2.1 docs.
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama  # owned by the ML team
spec:
  runtimeRef:
    name: torch
  # Cost reports group jobs by team.
  labels:
    team: "ml"   # quoted on purpose
  # Only A100 nodes are fast enough.
  podTemplateOverrides:
    - targetJobs:
        - name: node
      spec:
        nodeSelector:
          pool: a100  # the node pool
  # Four processes per node.
  trainer:
    numProcPerNode: '4'
"""


def test_comments_quoting_and_order_survive(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    path = write(tmp_path, "job.yaml", V21_TRAINJOB)

    _migrate(tmp_path, write=True)

    text = path.read_text()
    comments = [line.split("#", 1)[1] for line in V21_TRAINJOB.splitlines() if "#" in line]
    assert all(comment in text for comment in comments)
    assert 'team: "ml"' in text
    assert "numProcPerNode: 4\n" in text
    spec = text.split("spec:\n", 1)[1]
    keys = [line.strip() for line in spec.splitlines() if line[2] != " "]
    assert keys == [
        "runtimeRef:",
        "# Cost reports group jobs by team.",
        "runtimePatches:",
        "# Only A100 nodes are fast enough.",
        "# Four processes per node.",
        "trainer:",
    ]
    assert _codes(tmp_path) == []


MULTI = """\
apiVersion: v1
kind: ConfigMap
metadata:   {name: settings}   # odd spacing, kept
data: {a: "1"}
---
# the old one
apiVersion: trainer.kubeflow.org/v2alpha1
kind: TrainJob
metadata:
  name: old
spec:
  runtimeRef: {name: torch}
---   # a comment on the separator
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
    name: current
spec:
    runtimeRef:
        name: torch
"""


def test_in_a_multi_document_file_only_changed_documents_are_rewritten(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    path = write(tmp_path, "jobs.yaml", MULTI)

    report = _migrate(tmp_path, "jobs.yaml", write=True)

    assert report.exit_code == 0
    first, second, third = MULTI.split("---")
    assert path.read_text() == "---".join((first, second.replace("v2alpha1", "v1alpha1"), third))


def test_a_list_item_is_migrated_in_place(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "  - apiVersion: trainer.kubeflow.org/v1alpha1\n    kind: TrainJob\n"
        "    metadata: {name: a}\n    spec: {runtimeRef: {name: torch}}\n"
        "  - apiVersion: trainer.kubeflow.org/v1alpha1\n    kind: TrainJob\n"
        "    metadata: {name: b}\n    spec:\n      runtimeRef: {name: torch}\n"
        "      trainer:\n        numProcPerNode: auto\n"
    )
    path = write(tmp_path, "list.yaml", text)

    assert _migrate(tmp_path, write=True).exit_code == 0

    assert path.read_text() == text.replace("\n        numProcPerNode: auto", " {}")
    assert _codes(tmp_path) == []


def _left(report: MigrationReport) -> list[tuple[str, str]]:
    return [(item.diagnostic.code, item.reason) for item in report.left]


def test_a_value_with_no_successor_is_left_with_its_finding(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
        "spec:\n  runtimeRef: {name: torch}\n  modelConfig:\n"
        "    input: {storageUri: hf://x/y}\n    output: {storageUri: s3://out}\n"
    )
    path = write(tmp_path, "job.yaml", text)

    report = _migrate(tmp_path, write=True)

    assert _left(report) == [
        (
            "migrate.initializer",
            "modelConfig.output has no successor, Trainer has no model-export step",
        )
    ]
    assert report.exit_code == 1
    assert path.read_text() == text


def test_a_runtime_count_that_belongs_in_trainjobs_is_left(tmp_path: Path) -> None:
    runtime = TORCH_RUNTIME.replace("torch: {}", "torch:\n      numProcPerNode: 4")
    write(tmp_path, "runtime.yaml", runtime)

    report = _migrate(tmp_path)

    assert _left(report) == [
        (
            "migrate.torch-num-proc-per-node",
            "set spec.trainer.numProcPerNode: 4 in the TrainJobs",
        )
    ]
    assert report.changed == ()


def test_a_taken_manager_is_a_conflict(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
        "spec:\n  runtimeRef: {name: torch}\n  labels: {team: ml}\n"
        f"  runtimePatches:\n    - manager: {MANAGER}\n"
    )
    write(tmp_path, "job.yaml", text)

    report = _migrate(tmp_path)

    assert _left(report) == [
        (
            "migrate.overrides",
            f"it would overwrite: spec.runtimePatches already has an entry with manager {MANAGER}",
        )
    ]


#: An old-spelling override (podTemplateOverrides) whose rewrite, a runtime patch setting
#: env, Trainer refuses (xobj.patch-forbidden-env).
OVERRIDES_SETTING_ENV = (
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
    "spec:\n  runtimeRef: {name: torch}\n  podTemplateOverrides:\n"
    "    - targetJobs: [{name: node}]\n      spec:\n        containers:\n"
    "          - name: node\n            env: [{name: A, value: b}]\n"
)


def test_a_rewrite_that_would_bring_an_error_is_held_back(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "job.yaml", OVERRIDES_SETTING_ENV)

    report = _migrate(tmp_path, write=True)

    [(code, reason)] = _left(report)
    assert code == "migrate.overrides"
    assert reason.startswith("the rewrite would bring an error: xobj.patch-forbidden-env")
    assert (tmp_path / "job.yaml").read_text() == OVERRIDES_SETTING_ENV


def test_a_rule_turned_off_holds_no_rewrite_back(tmp_path: Path) -> None:
    write(tmp_path, "trainc.yaml", "rules:\n  xobj.patch-forbidden-env: 'off'\n")
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "job.yaml", OVERRIDES_SETTING_ENV)

    report = _migrate(tmp_path, write=True)

    assert _left(report) == []
    assert "runtimePatches" in (tmp_path / "job.yaml").read_text()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("job.yaml.j2", "a Jinja template is YAML only once rendered"),
        ("job.json", "JSON files are not rewritten"),
    ],
)
def test_templates_and_json_are_left_as_they_are(tmp_path: Path, name: str, reason: str) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    text = (
        '{"apiVersion": "trainer.kubeflow.org/v2alpha1", "kind": "TrainJob", '
        '"metadata": {"name": "j"}, "spec": {"runtimeRef": {"name": "torch"}}}\n'
    )
    write(tmp_path, name, text)

    report = _migrate(tmp_path, write=True)

    [(code, why)] = _left(report)
    assert (code, why.startswith(reason)) == ("migrate.api-version", True)
    assert (tmp_path / name).read_text() == text


def test_line_endings_byte_order_mark_and_mode_are_kept(tmp_path: Path) -> None:
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    text = (CASES / "invalid" / "api-version" / "trainjob.yaml").read_text()
    path = tmp_path / "job.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    path.chmod(0o640)

    assert _migrate(tmp_path, write=True).exit_code == 0

    expected = text.replace("/v2alpha1", "/v1alpha1").replace("\n", "\r\n")
    assert path.read_bytes() == b"\xef\xbb\xbf" + expected.encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_failed_write_leaves_the_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path, "api-version")
    before = (root / "trainjob.yaml").read_bytes()

    def fail(_descriptor: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        _migrate(root, write=True)

    assert (root / "trainjob.yaml").read_bytes() == before
    assert sorted(path.name for path in root.iterdir()) == [".git", "runtime.yaml", "trainjob.yaml"]


def test_a_manager_that_is_no_domain_prefixed_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--manager platform"):
        migrate_paths([], cwd=_repo(tmp_path, "overrides"), manager="platform")


#: Label values a YAML 1.1 reader types otherwise than a YAML 1.2 one, or not as strings.
_TRICKY = st.sampled_from(["yes", "on", "0777", "1_000", "1e3", "0x1F", "null", "", "a b", "~"])
_LABEL = st.from_regex(r"[a-zA-Z0-9]([-_.a-zA-Z0-9]{0,6}[a-zA-Z0-9])?", fullmatch=True)


@settings(max_examples=30)
@given(
    values=st.lists(st.one_of(_TRICKY, _LABEL), min_size=1, max_size=4),
    quote=st.sampled_from(['"', "'"]),
)
def test_migrated_labels_read_back_as_the_strings_they_were(
    tmp_path_factory: pytest.TempPathFactory, values: list[str], quote: str
) -> None:
    root = tmp_path_factory.mktemp("repo")
    write(root, "runtime.yaml", TORCH_RUNTIME)
    escaped = [
        value.replace("\\", "\\\\").replace('"', '\\"')
        if quote == '"'
        else value.replace("'", "''")
        for value in values
    ]
    labels = "".join(
        f"    k{index}: {quote}{value}{quote}\n" for index, value in enumerate(escaped)
    )
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j}\n"
        f"spec:\n  runtimeRef: {{name: torch}}\n  labels:\n{labels}"
    )
    write(root, "job.yaml", text)

    report = _migrate(root, write=True)

    if report.left:  # a label value the label rules refuse: held back, file as it was
        assert (root / "job.yaml").read_text() == text
        return
    [job] = objects_from_file(root / "job.yaml")
    path = ("spec", "runtimePatches", 0, "trainingRuntimeSpec", "template", "metadata", "labels")
    written = get_path(job.data, path)
    assert written == {f"k{index}": value for index, value in enumerate(values)}
    assert _migrate(root).files == ()
