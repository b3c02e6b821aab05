"""Kustomize directories, Helm charts and trainc's own output are left out of the inputs,
whole, with a finding that shows how to check them instead."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import ValidationReport, validate_paths
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.objects import MIGRATION_GUIDE, TRAINING_OPERATOR_V1_KINDS
from trainc.load.packages import KUSTOMIZATION_FILES, packages_in

#: A kustomize patch: a fragment of a TrainJob, which read alone misses its runtimeRef.
PATCH = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  trainer:
    numNodes: 8
"""

#: A Helm template: Go template text, no YAML before ``helm template``.
TEMPLATE = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {{ .Release.Name }}
spec:
  runtimeRef:
    name: torch
  trainer:
    {{- with .Values.numNodes }}
    numNodes: {{ . }}
    {{- end }}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/job.yaml", trainjob_yaml())
    write(tmp_path, "overlays/prod/kustomization.yaml", "patches: [{path: patch.yaml}]\n")
    write(tmp_path, "overlays/prod/patch.yaml", PATCH)
    write(tmp_path, "overlays/prod/extra/more.yaml", PATCH)
    write(tmp_path, "charts/resnet/Chart.yaml", "apiVersion: v2\nname: resnet\nversion: 0.1.0\n")
    write(tmp_path, "charts/resnet/templates/trainjob.yaml", TEMPLATE)
    return tmp_path


def found(report: ValidationReport) -> list[tuple[str, Severity, str | None]]:
    return [(d.code, d.severity, d.file) for d in report.diagnostics]


def the(report: ValidationReport, code: str) -> Diagnostic:
    [diagnostic] = [d for d in report.diagnostics if d.code == code]
    return diagnostic


def test_a_walk_leaves_packages_out_with_an_info_showing_the_pipeline(repo: Path) -> None:
    report = validate_paths([], cwd=repo)
    assert found(report) == [
        ("load.helm-chart", Severity.INFO, "charts/resnet"),
        ("load.kustomize-directory", Severity.INFO, "overlays/prod"),
    ]
    assert (report.files, report.objects) == (2, 2)  # the runtime and jobs/job.yaml
    helm = the(report, "load.helm-chart")
    assert (
        helm.hint == "check what it renders: helm template resnet charts/resnet | trainc validate -"
    )
    kustomize = the(report, "load.kustomize-directory")
    assert (
        kustomize.hint == "check what it renders: kustomize build overlays/prod | trainc validate -"
    )
    assert "kustomization.yaml" in kustomize.message


def test_files_named_inside_a_package_are_left_out_with_a_warning(repo: Path) -> None:
    """What pre-commit does when a patch or a chart template changed."""
    report = validate_paths(
        [
            repo / "overlays/prod/patch.yaml",
            repo / "overlays/prod/extra/more.yaml",
            repo / "charts/resnet/templates/trainjob.yaml",
            repo / "jobs/job.yaml",
        ],
        cwd=repo,
    )
    assert found(report) == [
        ("load.helm-chart", Severity.WARNING, "charts/resnet"),
        ("load.kustomize-directory", Severity.WARNING, "overlays/prod"),
    ]
    assert report.exit_code == 0
    assert (report.files, report.objects) == (1, 1)


def test_a_named_package_directory_is_a_warning_too(repo: Path) -> None:
    report = validate_paths([Path("overlays/prod")], cwd=repo)
    assert found(report) == [("load.kustomize-directory", Severity.WARNING, "overlays/prod")]
    report = validate_paths([Path("overlays")], cwd=repo)  # met while walking
    assert found(report) == [("load.kustomize-directory", Severity.INFO, "overlays/prod")]


@pytest.mark.parametrize("name", KUSTOMIZATION_FILES)
def test_every_name_kustomize_accepts(tmp_path: Path, name: str) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, f"base/{name}", "resources: [job.yaml]\n")
    write(tmp_path, "base/job.yaml", PATCH)
    report = validate_paths([], cwd=tmp_path)
    assert found(report) == [("load.kustomize-directory", Severity.INFO, "base")]
    assert f"({name})" in report.diagnostics[0].message


def test_the_repository_root_is_read_whatever_it_holds(tmp_path: Path) -> None:
    """A kustomization beside trainc.yaml (one that deploys rendered/, say) leaves the
    repository trainc's."""
    write(tmp_path, "trainc.yaml", "namespace: team-a\n")
    write(tmp_path, "kustomization.yaml", "resources: [rendered]\n")
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "job.yaml", trainjob_yaml())
    report = validate_paths([], cwd=tmp_path)
    assert report.exit_code == 0
    assert report.objects == 2


def test_compile_output_is_left_out_as_trainc_s_own(tmp_path: Path) -> None:
    """``compile -o out`` without compile.output: ``out/`` holds a kustomization.yaml, and
    is trainc's output, not a kustomize directory to build."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "job.yaml", trainjob_yaml())
    compiled = subprocess.run(
        ["trainc", "compile", "-o", "out"], cwd=tmp_path, capture_output=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    assert (tmp_path / "out/kustomization.yaml").is_file()
    report = validate_paths([], cwd=tmp_path)
    [output] = report.diagnostics
    assert (output.code, output.severity, output.file) == (
        "load.compiled-output",
        Severity.INFO,
        "out",
    )
    assert "compile.output" in (output.hint or "")
    # With compile.output set, the directory is not even looked at.
    write(tmp_path, "trainc.yaml", "compile:\n  output: out\n")
    assert validate_paths([], cwd=tmp_path).diagnostics == ()


def test_the_examples_compile_output_is_excluded_by_its_config() -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    assert (examples / "rendered/kustomization.yaml").is_file()
    report = validate_paths([], cwd=examples)
    assert not [d for d in report.diagnostics if d.file and d.file.startswith("rendered")]


def test_a_git_revision_leaves_packages_out_too() -> None:
    packages = packages_in(
        [
            "kustomization.yaml",  # the root: never a package
            "overlays/prod/kustomization.yaml",
            "overlays/prod/patch.yaml",
            "charts/x/Chart.yaml",
            "charts/x/charts/sub/Chart.yaml",
            "out/.trainc-owned",
            "out/kustomization.yaml",
            "jobs/job.yaml",
        ]
    )
    assert {directory: package.marker for directory, package in packages.items()} == {
        "overlays/prod": "kustomization.yaml",
        "charts/x": "Chart.yaml",
        "charts/x/charts/sub": "Chart.yaml",
        "out": ".trainc-owned",
    }


def test_base_compares_with_the_jobs_not_with_patches_of_the_same_name(repo: Path) -> None:
    """A kustomize patch names the TrainJob it patches: read at the base revision, it
    would be an old version of the job whose every field changed."""
    (repo / ".git").rmdir()
    (repo / "jobs/job.yaml").unlink()  # only the patch is committed, one that moves the
    write(repo, "overlays/prod/patch.yaml", trainjob_yaml(runtime="torch-big"))  # runtime
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True)
    # A new job, nothing to compare it with: no "runtimeRef is immutable" against the patch.
    write(repo, "jobs/job.yaml", trainjob_yaml())
    report = validate_paths([], cwd=repo, base="HEAD")
    assert report.exit_code == 0, found(report)


# --------------------------------------------------------------------------- template text


def test_template_text_that_fails_to_parse_names_inputs_exclude(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "templates/job.yaml", TEMPLATE)
    report = validate_paths([], cwd=tmp_path)
    [error] = [d for d in report.diagnostics if d.is_error]
    assert (error.code, error.file) == ("load.syntax", "templates/job.yaml")
    assert error.hint is not None
    assert "inputs.exclude" in error.hint
    assert "helm template" in error.hint


def test_plain_yaml_errors_keep_their_own_hint(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "job.yaml", "a: [1\n")
    [error] = validate_paths([], cwd=tmp_path).diagnostics
    assert error.code == "load.syntax"
    assert error.hint is None or "inputs.exclude" not in error.hint


# --------------------------------------------------------------------------- Training Operator v1


@pytest.mark.parametrize("kind", sorted(TRAINING_OPERATOR_V1_KINDS))
def test_training_operator_v1_kinds_point_at_the_migration_guide(tmp_path: Path, kind: str) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path, "old.yaml", f"apiVersion: kubeflow.org/v1\nkind: {kind}\nmetadata: {{name: x}}\n"
    )
    [warning] = validate_paths([], cwd=tmp_path).diagnostics
    assert (warning.code, warning.severity, warning.line) == (
        "load.training-operator-v1",
        Severity.WARNING,
        1,
    )
    assert f"kubeflow.org/v1 {kind}/x" in warning.message
    assert MIGRATION_GUIDE in (warning.hint or "")


def test_other_kubeflow_kinds_are_skipped_quietly(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        "other.yaml",
        "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: x}\n---\n"
        "apiVersion: kubeflow.org/v1\nkind: Notebook\nmetadata: {name: y}\n",
    )
    report = validate_paths([], cwd=tmp_path)
    assert [(d.code, d.severity) for d in report.diagnostics] == [
        ("load.ignored-document", Severity.INFO),
        ("load.ignored-document", Severity.INFO),
    ]
