from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from trainc.config.limits import InputLimits
from trainc.config.settings import DEFAULT_INCLUDE
from trainc.errors import UsageError
from trainc.load.gitref import read_revision
from trainc.load.globs import path_filter

from .files import TRAINJOB, write

SELECT = path_filter(DEFAULT_INCLUDE, ("generated/**",))


def git(root: Path, *args: str) -> str:
    completed = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return completed.stdout.decode().strip()


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    for key, value in {"NAME": "trainc", "EMAIL": "trainc@example.invalid"}.items():
        monkeypatch.setenv(f"GIT_AUTHOR_{key}", value)
        monkeypatch.setenv(f"GIT_COMMITTER_{key}", value)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "jobs/a.yaml", TRAINJOB.format(name="a"))
    write(root, "jobs/b.yml", TRAINJOB.format(name="b"))
    write(root, "notes.md", "# not an input\n")
    write(root, "trainc.yaml", "namespace: team\n")
    write(root, "generated/out.yaml", "x: 1\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    write(root, "jobs/a.yaml", TRAINJOB.format(name="a-renamed"))
    write(root, "jobs/c.yaml", TRAINJOB.format(name="c"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "second")
    write(root, "jobs/b.yml", "uncommitted: true\n")
    return root


def test_reads_the_selected_files_as_they_were(repo: Path) -> None:
    revision = read_revision("HEAD~1", root=repo, select=SELECT, limits=InputLimits())
    assert revision.commit == git(repo, "rev-parse", "HEAD~1")
    assert revision.files == (
        ("jobs/a.yaml", TRAINJOB.format(name="a").encode()),
        ("jobs/b.yml", TRAINJOB.format(name="b").encode()),
    )
    assert revision.diagnostics == ()
    assert revision.selected == 2


def test_working_tree_changes_are_not_seen(repo: Path) -> None:
    revision = read_revision("HEAD", root=repo, select=SELECT, limits=InputLimits())
    assert dict(revision.files)["jobs/b.yml"] == TRAINJOB.format(name="b").encode()
    assert [path for path, _ in revision.files] == ["jobs/a.yaml", "jobs/b.yml", "jobs/c.yaml"]


def test_root_below_the_git_top_level(repo: Path) -> None:
    revision = read_revision("HEAD", root=repo / "jobs", select=SELECT, limits=InputLimits())
    assert [path for path, _ in revision.files] == ["a.yaml", "b.yml", "c.yaml"]


def test_oversized_blobs_are_reported_not_read(repo: Path) -> None:
    revision = read_revision(
        "HEAD", root=repo, select=SELECT, limits=InputLimits(max_file_bytes=100)
    )
    assert revision.files == ()
    assert [(d.code, d.file) for d in revision.diagnostics] == [
        ("load.too-large", "jobs/a.yaml"),
        ("load.too-large", "jobs/b.yml"),
        ("load.too-large", "jobs/c.yaml"),
    ]
    assert revision.selected == 3


def test_symlinks_at_the_revision_are_not_read(repo: Path) -> None:
    (repo / "passwd.yaml").symlink_to("/etc/passwd")
    git(repo, "add", "passwd.yaml")
    git(repo, "commit", "-q", "-m", "link")
    revision = read_revision("HEAD", root=repo, select=SELECT, limits=InputLimits())
    assert "passwd.yaml" not in dict(revision.files)


def test_three_git_processes_whatever_the_file_count(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(args: list[str], **kwargs: object) -> object:
        calls.append(args)
        return real_run(args, **kwargs)  # type: ignore[call-overload]  # passes kwargs on

    monkeypatch.setattr(subprocess, "run", counting_run)
    read_revision("HEAD", root=repo, select=SELECT, limits=InputLimits())
    assert [args[1] for args in calls] == ["rev-parse", "ls-tree", "cat-file"]


def test_unknown_revision_is_a_usage_error(repo: Path) -> None:
    with pytest.raises(UsageError, match="--base no-such-branch: fatal"):
        read_revision("no-such-branch", root=repo, select=SELECT, limits=InputLimits())


def test_a_revision_cannot_smuggle_options(repo: Path) -> None:
    with pytest.raises(UsageError, match="--base --output=x"):
        read_revision("--output=x", root=repo, select=SELECT, limits=InputLimits())


def test_not_a_git_repository_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(UsageError, match="not a git repository"):
        read_revision("HEAD", root=tmp_path, select=SELECT, limits=InputLimits())
