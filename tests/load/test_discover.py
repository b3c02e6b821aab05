from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainc.config.settings import DEFAULT_INCLUDE
from trainc.errors import UsageError
from trainc.load.discover import Discovery, discover_files
from trainc.load.globs import path_filter

from .files import write

SELECT = path_filter(DEFAULT_INCLUDE, ("vendor/**",))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for path in (
        "b.yaml",
        "a/z.yml",
        "a/y.yaml.j2",
        "a/notes.txt",
        "trainc.yaml",
        ".git/config.yaml",
        "vendor/v.yaml",
        "deep/er/est/x.yaml",
    ):
        write(root, path, "a: 1\n")
    return root


def discover(root: Path, *paths: str | Path) -> Discovery:
    return discover_files(paths or (root,), root=root, select=SELECT)


def codes(found: Discovery) -> list[tuple[str, str | None, int | None]]:
    return [(d.code, d.file, d.line) for d in found.diagnostics]


def test_walks_sorted_skipping_git_config_and_excluded(repo: Path) -> None:
    found = discover(repo)
    assert found.files == ("a/y.yaml.j2", "a/z.yml", "b.yaml", "deep/er/est/x.yaml")
    assert found.diagnostics == ()


def test_named_file_is_read_even_if_not_included(repo: Path) -> None:
    found = discover(repo, repo / "a/notes.txt", repo / "a")
    assert found.files == ("a/notes.txt", "a/y.yaml.j2", "a/z.yml")


def test_relative_paths_resolve_against_cwd(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "a")
    assert discover(repo, "z.yml", "../b.yaml").files == ("a/z.yml", "b.yaml")


def test_missing_path_is_a_usage_error(repo: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        discover(repo, repo / "nope.yaml")


def test_path_outside_the_root_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "elsewhere.yaml", "a: 1\n")
    with pytest.raises(UsageError, match="outside the repository root"):
        discover(repo, tmp_path / "elsewhere.yaml")


def test_symlink_to_a_file_outside_is_refused(repo: Path) -> None:
    (repo / "passwd.yaml").symlink_to("/etc/passwd")
    found = discover(repo)
    assert "passwd.yaml" not in found.files
    assert codes(found) == [("load.symlink-escape", "passwd.yaml", None)]
    assert "/etc/passwd" in found.diagnostics[0].message


def test_named_symlink_outside_is_refused_not_a_usage_error(repo: Path) -> None:
    (repo / "passwd.yaml").symlink_to("/etc/passwd")
    found = discover(repo, repo / "passwd.yaml")
    assert found.files == ()
    assert codes(found) == [("load.symlink-escape", "passwd.yaml", None)]


def test_symlink_to_a_directory_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "outside/secret.yaml", "token: x\n")
    (repo / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    found = discover(repo)
    assert not any(path.startswith("linked") for path in found.files)
    assert codes(found) == [("load.symlink-escape", "linked", None)]


def test_escaping_link_that_is_not_an_input_is_ignored(repo: Path) -> None:
    (repo / "hosts.txt").symlink_to("/etc/hosts")
    assert discover(repo).diagnostics == ()


def test_links_inside_the_root_are_followed(repo: Path) -> None:
    (repo / "alias.yaml").symlink_to(repo / "b.yaml")
    (repo / "mirror").symlink_to(repo / "deep/er", target_is_directory=True)
    found = discover(repo)
    assert "alias.yaml" in found.files
    # Each real directory is walked once, under its real name when the walk reaches it.
    assert "deep/er/est/x.yaml" in found.files
    assert "mirror/est/x.yaml" not in found.files
    assert found.diagnostics == ()


def test_a_link_reaches_what_the_named_paths_do_not(repo: Path) -> None:
    (repo / "a/shared").symlink_to(repo / "deep/er", target_is_directory=True)
    assert discover(repo, repo / "a").files == ("a/shared/est/x.yaml", "a/y.yaml.j2", "a/z.yml")


def test_symlink_cycles_end(repo: Path) -> None:
    (repo / "a/loop").symlink_to(repo, target_is_directory=True)
    (repo / "self.yaml").symlink_to(repo / "self.yaml")
    (repo / "ping.yaml").symlink_to(repo / "pong.yaml")
    (repo / "pong.yaml").symlink_to(repo / "ping.yaml")
    found = discover(repo)
    assert found.files == (
        "a/y.yaml.j2",
        "a/z.yml",
        "b.yaml",
        "deep/er/est/x.yaml",
        "ping.yaml",
        "pong.yaml",
        "self.yaml",
    )  # the looping file links are left to the reader, which reports them unreadable


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_files_are_passed_on_to_the_reader(repo: Path) -> None:
    os.mkfifo(repo / "pipe.yaml")
    assert "pipe.yaml" in discover(repo).files


def test_a_named_file_that_the_excludes_rule_out_is_not_read(tmp_path: Path) -> None:
    write(tmp_path, "charts/app/values.yaml", "a: {{ .Values.x }}\n")
    write(tmp_path, "job.yaml", "a: 1\n")
    select = path_filter(("**/*.yaml",), ("charts/**",))
    found = discover_files(
        [tmp_path / "charts/app/values.yaml", tmp_path / "job.yaml"], root=tmp_path, select=select
    )
    assert found.files == ("job.yaml",)
