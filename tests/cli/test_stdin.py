"""``-`` reads a YAML stream from the standard input: ``kustomize build DIR | trainc validate -``.

The stream is one input named ``<stdin>``, its lines counted from the start of the
stream; runtimes come from the stream or from the repository of the working directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner, Result
from ruamel.yaml import YAML

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.cli.main import cli
from trainc.errors import UsageError

#: Two TrainJobs as ``kustomize build`` prints them: one stream, ``---`` between them.
#: The second has a name the API server refuses, at line 12 of the stream.
STREAM = trainjob_yaml("alpha") + "---\n" + trainjob_yaml("Beta")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose runtime lives in ``runtimes/``; the tests run in ``jobs/``."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", "namespace: team-a\ninputs:\n  runtimes: [runtimes/**]\n")
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    (tmp_path / "jobs").mkdir()
    monkeypatch.chdir(tmp_path / "jobs")
    return tmp_path


def invoke(*args: str, stream: str) -> Result:
    return CliRunner().invoke(cli, list(args), input=stream, standalone_mode=False)


def test_the_stream_is_one_input_named_stdin_with_its_own_lines(repo: Path) -> None:
    result = invoke("validate", "-", stream=STREAM)
    assert result.return_value == 1, result.output
    assert "<stdin>:12:3: error[cel.trainjob.name-format]" in result.stdout
    assert "   |\n12 |   name: Beta\n" in result.stdout  # the stream's own line, quoted
    assert "in 1 file (2 objects checked)" in result.stdout
    assert "runtime-not-found" not in result.stdout  # torch came from runtimes/


def test_runtimes_may_come_in_the_stream(repo: Path) -> None:
    (repo / "runtimes/torch.yaml").unlink()
    result = invoke("validate", "-", stream=trainjob_yaml("alpha"))
    assert result.return_value == 1
    assert "xobj.runtime-not-found" in result.stdout
    result = invoke("validate", "-", stream=TORCH_RUNTIME + "---\n" + trainjob_yaml("alpha"))
    assert result.return_value == 0, result.stdout
    assert "1 file, 2 objects" in result.stdout


def test_the_stream_and_paths_together(repo: Path) -> None:
    write(repo, "jobs/gamma.yaml", trainjob_yaml("Gamma"))
    result = invoke("validate", "-", "gamma.yaml", stream=trainjob_yaml("Beta"))
    assert result.return_value == 1
    assert "<stdin>:4:3: error[cel.trainjob.name-format]" in result.stdout
    assert "jobs/gamma.yaml:4:3: error[cel.trainjob.name-format]" in result.stdout


def test_every_report_format_names_stdin(repo: Path) -> None:
    as_json = json.loads(invoke("validate", "-", "--format", "json", stream=STREAM).stdout)
    assert {d["file"] for d in as_json["diagnostics"]} == {"<stdin>"}
    assert {d["line"] for d in as_json["diagnostics"]} == {12}
    github = invoke("validate", "-", "--format", "github", stream=STREAM).stdout
    assert "::error file=<stdin>,line=12,col=3" in github
    sarif = json.loads(invoke("validate", "-", "--format", "sarif", stream=STREAM).stdout)
    [location] = {
        json.dumps(loc["physicalLocation"]["artifactLocation"])
        for run in sarif["runs"]
        for result in run["results"]
        for loc in result["locations"]
    }
    assert "%3Cstdin%3E" in location  # the name, as a URI reference
    junit = invoke("validate", "-", "--format", "junit", stream=STREAM).stdout
    tree = ElementTree.fromstring(junit)  # noqa: S314 - our own output
    [suite] = tree.findall("testsuite[@name='<stdin>']")
    [failure] = suite.findall("testcase/failure")
    assert (failure.text or "").startswith("<stdin>:12:3: error[cel.trainjob.name-format]")


def test_compile_the_stream_to_stdout_and_to_a_directory(repo: Path) -> None:
    stream = trainjob_yaml("alpha")
    result = invoke("compile", "-", "-o", "-", stream=stream)
    assert result.return_value == 0, result.stderr
    [jobset] = YAML(typ="safe").load_all(result.stdout)
    assert (jobset["kind"], jobset["metadata"]["namespace"]) == ("JobSet", "team-a")
    assert jobset["metadata"]["annotations"]["trainc.dev/source"] == "<stdin>"
    # -o DIR is relative to the working directory (jobs/ here).
    result = invoke("compile", "-", "-o", "out", stream=stream)
    assert result.return_value == 0, result.stderr
    assert (repo / "jobs/out/team-a/alpha.yaml").is_file()
    assert invoke("compile", "-", "-o", "out", "--check", stream=stream).return_value == 0
    assert invoke("compile", "-", "-o", "out", "--check", stream=STREAM).return_value == 1


def test_an_error_in_the_stream_writes_nothing(repo: Path) -> None:
    result = invoke("compile", "-", "-o", "-", stream=STREAM)
    assert result.return_value == 1
    assert result.stdout == ""
    assert "<stdin>:12:3" in result.stderr


def test_a_stream_past_the_size_bound_is_a_finding(repo: Path) -> None:
    write(repo, "trainc.yaml", "limits:\n  maxFileBytes: 100\n")
    result = invoke("validate", "-", stream=STREAM)
    assert result.return_value == 1
    assert "<stdin>: error[load.too-large]" in result.stdout


def test_a_real_pipe(repo: Path) -> None:
    """As a shell runs ``kustomize build overlays/prod | trainc validate -``."""
    completed = subprocess.run(
        [sys.executable, "-m", "trainc", "validate", "-", "--format", "json"],
        cwd=repo / "jobs",
        input=STREAM.encode(),
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert completed.returncode == 1, completed.stderr
    [finding] = json.loads(completed.stdout)["diagnostics"]
    assert (finding["file"], finding["line"], finding["code"]) == (
        "<stdin>",
        12,
        "cel.trainjob.name-format",
    )


@pytest.mark.parametrize("printed", ["", "# kustomize printed a comment only\n---\n"])
@pytest.mark.parametrize("command", [["validate", "-"], ["compile", "-", "-o", "-"]])
def test_a_producer_that_printed_nothing_fails_the_pipe(
    repo: Path, printed: str, command: list[str]
) -> None:
    """A team found that ``kustomize build overlays/prod | trainc validate -`` passed CI
    when kustomize failed, as a pipe reports the exit code of trainc alone."""
    completed = subprocess.run(
        [sys.executable, "-m", "trainc", *command],
        cwd=repo / "jobs",
        input=printed.encode(),
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert completed.returncode == 2
    assert completed.stdout == b""
    assert b"the standard input (-) holds no Kubernetes objects" in completed.stderr
    assert b"set -o pipefail" in completed.stderr


def test_an_empty_list_on_the_stream_fails_too(repo: Path) -> None:
    """``kubectl get trainjobs -o yaml`` with none: a List of nothing is nothing to check."""
    result = invoke("validate", "-", stream="apiVersion: v1\nkind: List\nitems: []\n")
    assert isinstance(result.exception, UsageError)
    assert "holds no Kubernetes objects" in str(result.exception)


def test_a_stream_of_other_kinds_is_checked_and_passes(repo: Path) -> None:
    """Objects trainc skips (a kustomization's ConfigMap) are something on the stream."""
    configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
    assert invoke("validate", "-", stream=configmap).return_value == 0
