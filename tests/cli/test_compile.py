"""``trainc compile`` as CI, pre-commit and Argo CD run it: streams, exit codes, determinism."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.emit.yamlout import dump_yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(
    cwd: Path, *args: str, seed: str = "0", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """trainc in a child process with no TTY, as CI and the Argo CD sidecar run it."""
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "PYTHONHASHSEED": seed, **(env or {})},
        check=False,
        timeout=300,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))
    write(tmp_path, "jobs/b.yaml", trainjob_yaml("beta"))
    return tmp_path


def test_stream_output_holds_only_kubernetes_objects(repo: Path) -> None:
    result = run(repo, "compile", "-o", "-")
    assert result.returncode == 0, result.stderr
    documents = list(YAML(typ="safe").load_all(result.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in documents] == [
        ("JobSet", "alpha"),
        ("JobSet", "beta"),
    ]
    assert all(
        d["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "trainc" for d in documents
    )


def test_errors_print_nothing_on_stdout_and_write_nothing(repo: Path) -> None:
    write(repo, "jobs/c.yaml", trainjob_yaml("Gamma"))
    result = run(repo, "compile", "-o", "-")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "cel.trainjob.name-format" in result.stderr
    result = run(repo, "compile", "-o", "out")
    assert result.returncode == 1
    assert not (repo / "out").exists()


def test_directory_output_check_and_removal_of_deleted_jobs(repo: Path) -> None:
    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == [
        "alpha.yaml",
        "beta.yaml",
    ]
    assert run(repo, "compile", "-o", "out", "--check").returncode == 0
    (repo / "jobs" / "b.yaml").unlink()
    check = run(repo, "compile", "-o", "out", "--check")
    assert check.returncode == 1
    assert "beta.yaml" in check.stderr
    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == ["alpha.yaml"]


def test_usage_errors(repo: Path) -> None:
    no_target = run(repo, "compile")
    assert no_target.returncode == 2
    assert "-o DIR" in no_target.stderr
    check_stream = run(repo, "compile", "-o", "-", "--check")
    assert check_stream.returncode == 2
    inside_input = run(repo, "compile", "jobs", "runtime.yaml", "-o", "jobs/out")
    assert inside_input.returncode == 2
    assert inside_input.stdout == ""


def test_output_is_identical_whatever_the_hash_seed() -> None:
    first = run(EXAMPLES, "compile", "-o", "-", seed="0")
    second = run(EXAMPLES, "compile", "-o", "-", seed="4242")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert first.stdout


def test_output_does_not_depend_on_document_order(tmp_path: Path) -> None:
    documents = [
        document
        for path in sorted(EXAMPLES.rglob("*.yaml"))
        if "rendered" not in path.parts
        and path.name != "trainc.yaml"
        and "policies" not in path.parts
        for document in YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    ]
    outputs = []
    for name, ordered in (("forward", documents), ("backward", documents[::-1])):
        repo = tmp_path / name
        shutil.copytree(
            EXAMPLES, repo, ignore=shutil.ignore_patterns("rendered", "jobs", "runtimes")
        )
        (repo / ".git").mkdir()
        write(repo, "all.yaml", dump_yaml(ordered))
        result = run(repo, "compile", "-o", "-")
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
