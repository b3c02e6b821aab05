"""Whole-repository runs in a git work tree judge what git tracks.

A work-in-progress TrainJob nobody ``git add``-ed made an unrelated commit's hook fail,
and ``trainc compile`` wrote output for a source that is not in git. Without PATHS,
validate and compile (and its ``--check``) read the files git's index holds, say on
stderr which input files they left out, and ``--untracked`` reads those too. Named paths
are read as named; outside a git work tree nothing changes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CONFIG = "apiVersion: trainc.dev/v1alpha1\nkind: Config\ncompile:\n  output: rendered\n"
#: A TrainJob still being written: its name is not yet valid.
WIP = trainjob_yaml("WIP")
SKIPPED = (
    "trainc: skipped 1 input file git does not track (jobs/wip.yaml); "
    "`git add` it or pass --untracked to read it"
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(autouse=True)
def _git_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """git as in a fresh account: no user configuration, no outer repository."""
    for name in [name for name in os.environ if name.startswith("GIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "trainc tests")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "tests@trainc.invalid")


@pytest.fixture
def repo(tmp_path: Path, invoke: Invoke) -> Path:
    """A committed repository and its compiled output, with an untracked WIP TrainJob."""
    write(tmp_path, "trainc.yaml", CONFIG)
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/train.yaml", trainjob_yaml("train"))
    assert invoke(tmp_path, "compile").code == 0
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "team repository")
    write(tmp_path, "jobs/wip.yaml", WIP)
    return tmp_path


def test_validate_and_compile_judge_the_tracked_files_and_say_what_they_skipped(
    repo: Path, invoke: Invoke
) -> None:
    validated = invoke(repo, "validate")
    assert validated.code == 0, validated.out
    assert "All checks passed: 2 files" in validated.out
    assert SKIPPED in validated.err

    checked = invoke(repo, "compile", "--check")
    assert checked.code == 0, checked.err
    assert SKIPPED in checked.err

    compiled = invoke(repo / "jobs", "compile")
    assert compiled.code == 0, compiled.err
    assert SKIPPED in compiled.err
    assert not (repo / "rendered" / "default" / "WIP.yaml").exists()


def test_untracked_reads_the_work_in_progress_too(repo: Path, invoke: Invoke) -> None:
    for command in (("validate",), ("compile", "--check")):
        result = invoke(repo, *command, "--untracked")
        assert result.code == 1
        assert "jobs/wip.yaml:4:3: error[cel.trainjob.name-format]" in result.out + result.err
        assert "skipped" not in result.err


def test_a_staged_file_is_judged_and_a_named_one_is_read(repo: Path, invoke: Invoke) -> None:
    named = invoke(repo, "validate", "jobs/wip.yaml")
    assert named.code == 1
    assert "skipped" not in named.err

    git(repo, "add", "jobs/wip.yaml")
    staged = invoke(repo, "compile", "--check")
    assert staged.code == 1
    assert "error[cel.trainjob.name-format]" in staged.err


def test_the_repository_root_named_is_the_whole_repository(repo: Path, invoke: Invoke) -> None:
    result = invoke(repo.parent, "compile", "--check", repo.name)
    assert result.code == 0, result.err
    assert SKIPPED in result.err


def test_quiet_says_nothing_and_outside_git_nothing_changes(repo: Path, invoke: Invoke) -> None:
    quiet = invoke(repo, "validate", "-q")
    assert (quiet.code, quiet.err) == (0, "")

    shutil.rmtree(repo / ".git")
    (repo / ".git").mkdir()  # the root marker, in no git work tree
    result = invoke(repo, "validate")
    assert result.code == 1
    assert "jobs/wip.yaml:4:3: error[cel.trainjob.name-format]" in result.out
    assert "skipped" not in result.err


def test_a_fresh_scaffold_in_a_git_repository_is_read_once_added(
    tmp_path: Path, invoke: Invoke
) -> None:
    git(tmp_path, "init", "-q")
    scaffolded = invoke(tmp_path, "init")
    assert "in a git repository, `git add` the new files first" in scaffolded.err

    before = invoke(tmp_path, "validate")
    assert "in 0 files (0 objects checked)" in before.out
    assert "(jobs/example.yaml, runtimes/torch-distributed.yaml); `git add` them" in before.err

    git(tmp_path, "add", "-A")
    after = invoke(tmp_path, "validate")
    assert after.code == 0, after.out
    assert "in 2 files (2 objects checked)" in after.out
    assert after.err == ""
