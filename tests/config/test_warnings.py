"""Warnings about trainc.yaml and pre-commit's configuration: the namespace that overrides
the Argo CD destination, and placeholders of ``trainc init`` left in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import validate_paths
from trainc.config.read import load_config
from trainc.config.settings import Overrides, RepoConfig
from trainc.config.warnings import check_config
from trainc.diagnostics import Diagnostic, Severity
from trainc.scaffold import FILES, IMAGE, PROJECT_URL

PUSHED = "registry.example.com/ml/trainc:0.1.0"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha"))
    return tmp_path


def warnings(repo: Path, overrides: Overrides | None = None) -> list[Diagnostic]:
    """What validating ``repo`` reports with the config codes, checked to be warnings."""
    report = validate_paths([], cwd=repo, overrides=overrides)
    found = [d for d in report.diagnostics if d.code.startswith("config.")]
    assert all(d.severity is Severity.WARNING for d in found)
    assert report.exit_code == 0
    return found


# --- The namespace and the Argo CD destination ---------------------------------------------

DESTINATION = Overrides(default_namespace="ml-prod")


def test_a_namespace_overriding_the_destination_warns_at_its_line(repo: Path) -> None:
    write(repo, "trainc.yaml", "kubernetesVersion: '1.33'\nnamespace: ml-team\n")
    (warning,) = warnings(repo, DESTINATION)

    assert warning.code == "config.namespace-overrides-destination"
    assert (warning.file, warning.line, warning.field_path) == ("trainc.yaml", 2, "namespace")
    assert "'ml-team'" in warning.message
    assert "'ml-prod'" in warning.message
    assert warning.hint is not None
    assert "remove `namespace`" in warning.hint


@pytest.mark.parametrize(
    ("config", "overrides"),
    [
        # The same namespace as the destination: nothing is overridden.
        ("namespace: ml-prod\n", DESTINATION),
        # No namespace in trainc.yaml: the destination applies.
        ("kubernetesVersion: '1.33'\n", DESTINATION),
        # Outside Argo CD there is no destination.
        ("namespace: ml-team\n", None),
        # The Application chose explicitly: the parameter wins over both.
        ("namespace: ml-team\n", Overrides(namespace="research", default_namespace="ml-prod")),
    ],
)
def test_no_warning_when_nothing_is_overridden_by_accident(
    repo: Path, config: str, overrides: Overrides | None
) -> None:
    write(repo, "trainc.yaml", config)
    assert warnings(repo, overrides) == []


def test_the_namespace_in_effect_is_still_trainc_yamls(repo: Path) -> None:
    write(repo, "trainc.yaml", "namespace: ml-team\n")
    config = load_config(cwd=repo, overrides=DESTINATION).config
    assert config is not None
    assert (config.namespace, config.overridden_destination) == ("ml-team", "ml-prod")


# --- Placeholders of trainc init ----------------------------------------------------------


@pytest.mark.parametrize(
    "image",
    [IMAGE, "ghcr.io/example/trainc:0.0.1", "ghcr.io/example/trainc", f"{IMAGE}@sha256:{'0' * 64}"],
)
def test_the_placeholder_sweeper_image_warns_at_its_line(repo: Path, image: str) -> None:
    write(repo, "trainc.yaml", f"sweeper:\n  image: {image}\n")
    (warning,) = warnings(repo)

    assert warning.code == "config.placeholder"
    assert (warning.file, warning.line, warning.field_path) == ("trainc.yaml", 2, "sweeper.image")
    assert image in warning.message


@pytest.mark.parametrize(
    "image",
    [
        PUSHED,
        "ghcr.io/example/trainc-fork:0.1.0",
        "localhost:5000/ghcr.io/example/trainc:0.1.0",
        "ghcr.io/example/trainc/sweeper:0.1.0",
    ],
)
def test_any_other_image_is_quiet(repo: Path, image: str) -> None:
    write(repo, "trainc.yaml", f"sweeper:\n  image: {image}\n")
    assert warnings(repo) == []


PRE_COMMIT = """\
repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks: [{{id: end-of-file-fixer}}]
  - repo: {url}
    rev: v0.1.0
    hooks: [{{id: trainc-validate}}]
"""


@pytest.mark.parametrize("url", [PROJECT_URL, f"{PROJECT_URL}.git", f"{PROJECT_URL}/"])
def test_the_placeholder_pre_commit_repository_warns_at_its_line(repo: Path, url: str) -> None:
    write(repo, ".pre-commit-config.yaml", PRE_COMMIT.format(url=url))
    report = validate_paths([], cwd=repo)
    (warning,) = [d for d in report.diagnostics if d.code == "config.placeholder"]

    assert (warning.file, warning.line, warning.field_path) == (
        ".pre-commit-config.yaml",
        5,
        "repos[1].repo",
    )
    assert warning.severity is Severity.WARNING
    # The file is quoted under the finding, though it is no input of trainc.
    assert ".pre-commit-config.yaml" in report.sources


@pytest.mark.parametrize(
    "text",
    [
        PRE_COMMIT.format(url="https://git.example.com/platform/trainc"),
        "repos: [\n",  # pre-commit's to report, not trainc's
        "[]\n",
        "repos:\n  - local\n",
    ],
)
def test_other_pre_commit_configurations_are_quiet(repo: Path, text: str) -> None:
    write(repo, ".pre-commit-config.yaml", text)
    assert check_config(_config(repo), None).diagnostics == ()


def _config(repo: Path) -> RepoConfig:
    config = load_config(cwd=repo).config
    assert config is not None
    return config


def test_the_scaffold_warns_about_its_two_placeholders_until_they_are_replaced(
    tmp_path: Path,
) -> None:
    for path, text in FILES.items():
        write(tmp_path, path, text)
    found = [(d.code, d.file, d.field_path) for d in warnings(tmp_path)]
    assert found == [
        ("config.placeholder", ".pre-commit-config.yaml", "repos[0].repo"),
        ("config.placeholder", "trainc.yaml", "sweeper.image"),
    ]

    for path, old, new in [
        ("trainc.yaml", IMAGE, PUSHED),
        (".pre-commit-config.yaml", PROJECT_URL, "https://git.example.com/platform/trainc"),
    ]:
        write(tmp_path, path, (tmp_path / path).read_text(encoding="utf-8").replace(old, new))
    assert warnings(tmp_path) == []
