"""With trainc.yaml in a subdirectory (``ml/``) of a git repository, the machine formats
name files from the top of the checkout, as GitHub places annotations and code-scanning
alerts; the text format names them from the repository root, as every message does.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout whose trainc repository is ``ml/``, with a bad name in ``ml/jobs/a.yaml``."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, "ml/trainc.yaml", "namespace: team-a\n")
    write(tmp_path, "ml/runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "ml/jobs/a.yaml", trainjob_yaml("Alpha"))
    # Whole-repository runs read what git tracks (committed or staged).
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True, capture_output=True)
    return tmp_path


def test_github_annotations_name_the_file_from_the_top(checkout: Path, invoke: Invoke) -> None:
    outcome = invoke(checkout / "ml", "validate", "--format", "github")
    assert outcome.code == 1
    (line,) = outcome.out.splitlines()
    assert line.startswith(
        "::error file=ml/jobs/a.yaml,line=4,col=3,title=cel.trainjob.name-format::"
    )


def test_run_from_the_top_names_the_same_file(checkout: Path, invoke: Invoke) -> None:
    outcome = invoke(checkout, "validate", "--format", "github", "ml/jobs/a.yaml")
    assert "file=ml/jobs/a.yaml," in outcome.out


def test_sarif_locations_are_under_the_checkout_root(checkout: Path, invoke: Invoke) -> None:
    outcome = invoke(checkout / "ml", "validate", "--format", "sarif")
    (result,) = json.loads(outcome.out)["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "ml/jobs/a.yaml", "uriBaseId": "%SRCROOT%"}


def test_sarif_points_repository_wide_findings_at_the_config_in_ml(
    checkout: Path, invoke: Invoke
) -> None:
    write(checkout, "ml/trainc.yaml", "namespace: team-a\nrules:\n  no.such-rule: error\n")
    outcome = invoke(checkout / "ml", "validate", "--format", "sarif")
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for result in json.loads(outcome.out)["runs"][0]["results"]
    }
    assert uris == {"ml/trainc.yaml", "ml/jobs/a.yaml"}


def test_json_and_junit_name_files_from_the_top(checkout: Path, invoke: Invoke) -> None:
    found = json.loads(invoke(checkout / "ml", "validate", "--format", "json").out)
    assert [d["file"] for d in found["diagnostics"]] == ["ml/jobs/a.yaml"]
    junit_xml = invoke(checkout / "ml", "validate", "--format", "junit").out
    junit = ElementTree.fromstring(junit_xml)  # noqa: S314 - our own output
    suites = {suite.get("name") for suite in junit.iter("testsuite")}
    assert suites == {"ml/jobs/a.yaml", "ml/runtimes/torch.yaml", "ml/trainc.yaml"}


def test_the_text_format_names_files_from_the_repository_root(
    checkout: Path, invoke: Invoke
) -> None:
    outcome = invoke(checkout / "ml", "validate")
    assert "jobs/a.yaml:4:3: error[cel.trainjob.name-format]" in outcome.out
    assert "ml/jobs" not in outcome.out


def test_outside_git_paths_stay_relative_to_trainc_yaml(tmp_path: Path, invoke: Invoke) -> None:
    write(tmp_path, "ml/trainc.yaml", "namespace: team-a\n")
    write(tmp_path, "ml/runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "ml/jobs/a.yaml", trainjob_yaml("Alpha"))
    outcome = invoke(tmp_path / "ml", "validate", "--format", "github")
    assert "file=jobs/a.yaml," in outcome.out
