"""``trainc diff``: what a change does to the cluster, as a reviewer and CI see it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.gitrepo import git
from tests.support.manifests import TORCH_RUNTIME, write

SWEEPER = "sweeper:\n  image: registry.example.com/trainc:0.1\n"


def trainjob(name: str, *, image: str = "registry.example.com/llm:1.0", extra: str = "") -> str:
    return (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        f"metadata:\n  name: {name}\n  namespace: ml\n"
        f"spec:\n{extra}  runtimeRef:\n    name: torch\n  trainer:\n    image: {image}\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two TrainJobs and a sweeper, committed."""
    git(tmp_path, "init", "-q")
    write(tmp_path, "trainc.yaml", SWEEPER)
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob("alpha"))
    write(tmp_path, "jobs/b.yaml", trainjob("beta"))
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def test_an_unchanged_tree_has_no_differences(repo: Path) -> None:
    for flags in ((), ("--exit-code",)):
        result = run(repo, "diff", "--base", "HEAD", *flags)
        assert (result.returncode, result.stdout) == (
            0,
            "No changes to the cluster against HEAD.\n",
        )


def test_a_changed_image_shows_the_jobset_change_and_needs_a_new_name(repo: Path) -> None:
    write(repo, "jobs/a.yaml", trainjob("alpha", image="registry.example.com/llm:2.0"))

    result = run(repo, "diff", "--base", "HEAD")

    assert result.returncode == 1  # the API server refuses the edit of a TrainJob's trainer
    assert "cel.trainjob.trainer-immutable" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "TrainJob ml/alpha",
        "  changed  JobSet ml/alpha",
        "           needs a new TrainJob name: TrainJob spec.trainer: field is immutable",
    ]
    removed = [line for line in lines if line.startswith("-") and "image:" in line]
    added = [line for line in lines if line.startswith("+") and "image:" in line]
    assert [line.split()[-1] for line in removed + added] == [
        "registry.example.com/llm:1.0",
        "registry.example.com/llm:2.0",
    ]
    assert "beta" not in result.stdout


def test_an_applicable_change_exits_0_unless_asked_for_the_difference(repo: Path) -> None:
    write(repo, "jobs/a.yaml", trainjob("alpha", extra="  suspend: true\n"))

    assert run(repo, "diff", "--base", "HEAD").returncode == 0
    result = run(repo, "diff", "--base", "HEAD", "--exit-code", "--format", "json")

    assert result.returncode == 1
    document = json.loads(result.stdout)
    (change,) = document["changes"]
    assert (change["trainJob"], change["kind"], change["change"], change["needsNewName"]) == (
        "ml/alpha",
        "JobSet",
        "changed",
        False,
    )
    assert "+  suspend: true" in change["diff"]
    assert document["summary"]["changed"] == 1


def test_added_and_removed_jobs_and_the_sweeper_they_change(repo: Path) -> None:
    (repo / "jobs/b.yaml").unlink()
    write(repo, "jobs/c.yaml", trainjob("gamma").replace("namespace: ml", "namespace: vision"))

    result = run(repo, "diff", "--base", "HEAD", "--format", "json")

    assert result.returncode == 0, result.stderr
    changes = {
        (c.get("trainJob"), c["kind"], c.get("namespace"), c["name"]): c["change"]
        for c in json.loads(result.stdout)["changes"]
    }
    assert changes[("ml/beta", "JobSet", "ml", "beta")] == "removed"
    assert changes[("vision/gamma", "JobSet", "vision", "gamma")] == "added"
    # The sweeper now also acts in the new namespace: its objects belong to no one job.
    assert {key[1:]: change for key, change in changes.items() if key[0] is None} == {
        ("Role", "vision", "trainc-sweeper"): "added",
        ("RoleBinding", "vision", "trainc-sweeper"): "added",
        ("CronJob", "trainc-system", "trainc-sweeper"): "changed",
    }


def test_paths_narrow_the_diff_to_their_trainjobs(repo: Path) -> None:
    write(repo, "jobs/a.yaml", trainjob("alpha", extra="  suspend: true\n"))
    write(repo, "jobs/b.yaml", trainjob("beta", extra="  suspend: true\n"))

    result = run(repo, "diff", "jobs/b.yaml", "--base", "HEAD")

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "TrainJob ml/beta"
    assert "alpha" not in result.stdout


def test_errors_in_the_working_tree_leave_nothing_to_compare(repo: Path) -> None:
    write(repo, "jobs/a.yaml", trainjob("alpha").replace("name: torch", "name: nope"))

    result = run(repo, "diff", "--base", "HEAD")

    assert (result.returncode, result.stdout) == (1, "")
    assert "nope" in result.stderr


def test_an_unknown_revision_is_a_usage_error(repo: Path) -> None:
    result = run(repo, "diff", "--base", "no-such-ref")
    assert result.returncode == 2
    assert "no-such-ref" in result.stderr
