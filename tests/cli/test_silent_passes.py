"""Runs that would pass having checked nothing: each now fails and says why.

A TrainJob under an apiVersion that is not Trainer's was skipped as another API's object
("All checks passed: 1 file, 0 objects"); a named directory without input files passed
the same way. The empty standard input is replayed in ``test_stdin.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

ALL_CLEAR = "All checks passed"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    return tmp_path


def _with_api_version(api_version: str | None) -> str:
    """The TrainJob of a data scientist, its first line spelled ``api_version`` (or gone)."""
    body = trainjob_yaml("resnet").split("\n", 1)[1]
    return body if api_version is None else f"apiVersion: {api_version}\n{body}"


def test_the_kep_spelling_is_an_error_that_migrate_fixes(repo: Path) -> None:
    write(repo, "jobs/resnet.yaml", _with_api_version("kubeflow.org/v2alpha1"))
    checked = run(repo, "validate", "jobs/resnet.yaml")
    assert checked.returncode == 1, checked.stdout
    assert ALL_CLEAR not in checked.stdout
    assert (
        "jobs/resnet.yaml:1:1: error[migrate.api-version]: apiVersion kubeflow.org/v2alpha1 "
        "is the KEP-2170 draft of the Trainer API; Trainer serves only "
        "trainer.kubeflow.org/v1alpha1"
    ) in checked.stdout
    assert "help: set apiVersion: trainer.kubeflow.org/v1alpha1" in checked.stdout
    assert run(repo, "migrate", "--write").returncode == 0
    assert (repo / "jobs/resnet.yaml").read_text() == trainjob_yaml("resnet")
    fixed = run(repo, "validate", "jobs/resnet.yaml")
    assert fixed.returncode == 0, fixed.stdout
    assert "1 object" in fixed.stdout


@pytest.mark.parametrize(
    ("api_version", "message"),
    [
        ("kubeflow.org/v1", "apiVersion 'kubeflow.org/v1' is not Kubeflow Trainer's"),
        ("trainer.kubeflow.com/v1alpha1", "'trainer.kubeflow.com/v1alpha1' is not Kubeflow"),
        ("v1", "apiVersion 'v1' is not Kubeflow Trainer's: a TrainJob is served only as"),
        ("trainer.kubeflow.org/v1", "is not served: trainer.kubeflow.org has only version"),
        (None, "error[load.unknown-version]: the TrainJob has no apiVersion"),
    ],
)
def test_a_trainjob_under_another_api_version_fails_the_run(
    repo: Path, api_version: str | None, message: str
) -> None:
    write(repo, "jobs/resnet.yaml", _with_api_version(api_version))
    for command in (("validate",), ("compile", "-o", "-")):
        result = run(repo, *command)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        assert message in result.stdout + result.stderr
        assert ALL_CLEAR not in result.stdout


def test_a_training_runtime_under_the_kep_group_is_reported_too(repo: Path) -> None:
    draft = TORCH_RUNTIME.replace("trainer.kubeflow.org/v1alpha1", "kubeflow.org/v2alpha1", 1)
    write(repo, "runtimes/torch.yaml", draft)
    result = run(repo, "validate", "runtimes/torch.yaml")
    assert result.returncode == 1
    assert "error[migrate.api-version]" in result.stdout
    assert "ClusterTrainingRuntime torch" in result.stdout


def test_another_apis_objects_are_still_skipped(repo: Path) -> None:
    """Only Trainer's kinds are claimed: a ConfigMap beside the jobs is no finding."""
    write(repo, "jobs/settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n")
    result = run(repo, "validate", "jobs/settings.yaml")
    assert result.returncode == 0, result.stdout
    assert "All checks passed: 1 file, 0 objects." in result.stdout


def test_a_named_directory_without_input_files_is_a_usage_error(repo: Path) -> None:
    write(repo, "jobs/resnet.yml.bak", trainjob_yaml("resnet"))
    result = run(repo, "validate", "jobs")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(
        "trainc: error: jobs: no input files, so nothing to check (a directory is searched "
        "for files matching inputs.include: **/*.yaml, "
    )
    assert run(repo, "compile", "jobs", "-o", "-").returncode == 2
    assert run(repo, "validate", "jobs", "runtimes").returncode == 0


def test_what_may_hold_nothing_still_passes(repo: Path) -> None:
    """pre-commit names every changed YAML file, excluded ones included; and a new
    repository, named or not, has nothing to check yet."""
    write(repo, "trainc.yaml", "inputs:\n  exclude: [.github/**]\n")
    write(repo, ".github/workflows/ci.yaml", "on: push\n")
    assert run(repo, "validate", ".github/workflows/ci.yaml").returncode == 0
    (repo / "runtimes/torch.yaml").unlink()
    (repo / "runtimes").rmdir()
    write(repo, "trainc.yaml", "inputs:\n  exclude: [.github/**, trainc.yaml]\n")
    for named in ((), (".",)):
        result = run(repo, "validate", *named)
        assert result.returncode == 0, (named, result.stdout, result.stderr)
