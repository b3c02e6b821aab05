from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.emit.trees import NEW, OLD, expected_files, file_contents, snapshot
from trainc.emit.writer import (
    OWNERSHIP_FILE,
    TreeCheck,
    TreeWriter,
    check_tree,
    validate_output_location,
    write_tree,
)
from trainc.errors import CompilerBug, UsageError


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "rendered" / "out"


@pytest.fixture
def strict_umask() -> Iterator[None]:
    previous = os.umask(0o077)
    yield
    os.umask(previous)


def test_first_write_creates_the_tree_and_its_ownership_manifest(out: Path) -> None:
    result = write_tree(out, OLD)
    assert file_contents(out) == expected_files(OLD)
    assert (out / OWNERSHIP_FILE).read_bytes() == (
        b"kustomization.yaml\nteam-a/a.yaml\nteam-a/b.yaml\n"
    )
    assert result.changed == (OWNERSHIP_FILE, *sorted(OLD))
    assert result.removed == ()
    assert result.recovered == ()


def test_new_tree_replaces_the_old_one_exactly(out: Path) -> None:
    write_tree(out, OLD)
    result = write_tree(out, NEW)
    assert file_contents(out) == expected_files(NEW)
    assert not (out / "team-a" / "b.yaml").exists()
    assert result.removed == ("team-a/b.yaml",)
    assert result.changed == (
        OWNERSHIP_FILE,
        "_shared/trainc-system/cronjob-sweeper.yaml",
        "kustomization.yaml",
        "team-a/a.yaml",
        "team-b/c.yaml",
    )
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]  # nothing left beside it


def test_unchanged_files_are_kept_as_they_are_and_the_old_tree_is_never_touched(
    out: Path,
) -> None:
    """A file whose bytes do not change is the old file, hard-linked into the new tree:
    no byte is written; a changed file is a new file, and until the swap the old tree
    holds exactly what it held."""
    write_tree(out, OLD)
    before = {path: (out / path).stat() for path in OLD}
    with TreeWriter(out) as writer:
        for path, data in NEW.items():
            writer.add(path, data)
        writer.add("team-a/b.yaml", OLD["team-a/b.yaml"])
        assert file_contents(out) == expected_files(OLD)
        result = writer.commit()
    after = {path: (out / path).stat() for path in ("team-a/a.yaml", "team-a/b.yaml")}
    assert after["team-a/b.yaml"].st_ino == before["team-a/b.yaml"].st_ino
    assert after["team-a/b.yaml"].st_mtime_ns == before["team-a/b.yaml"].st_mtime_ns
    assert after["team-a/a.yaml"].st_ino != before["team-a/a.yaml"].st_ino
    assert "team-a/b.yaml" not in result.changed
    assert after["team-a/b.yaml"].st_nlink == 1  # the old tree is gone


def test_an_unchanged_file_with_another_mode_is_written_again(out: Path) -> None:
    write_tree(out, OLD)
    (out / "team-a" / "b.yaml").chmod(0o600)
    before = (out / "team-a" / "b.yaml").stat().st_ino
    write_tree(out, OLD)
    assert (out / "team-a" / "b.yaml").stat().st_ino != before
    assert stat.S_IMODE((out / "team-a" / "b.yaml").stat().st_mode) == 0o644


def test_directories_that_become_empty_disappear(out: Path) -> None:
    write_tree(out, OLD)
    write_tree(out, {"kustomization.yaml": b""})
    assert sorted(snapshot(out)) == [OWNERSHIP_FILE, "kustomization.yaml"]


@pytest.mark.usefixtures("strict_umask")
def test_modes_are_fixed_whatever_the_umask_or_the_old_tree(out: Path) -> None:
    write_tree(out, OLD)
    (out / "team-a" / "a.yaml").chmod(0o600)
    (out / "team-a").chmod(0o700)
    write_tree(out, NEW)
    modes = {path: mode for path, (data, mode) in snapshot(out).items()}
    assert modes == {
        path: 0o755 if path in ("_shared", "_shared/trainc-system", "team-a", "team-b") else 0o644
        for path in modes
    }
    assert stat.S_IMODE(out.stat().st_mode) == 0o755


def test_bytes_are_written_exactly(out: Path) -> None:
    files = {"a.yaml": b"crlf: x\r\nno final newline", "b.bin": bytes(range(256))}
    write_tree(out, files)
    assert file_contents(out) == expected_files(files)


def test_same_files_give_the_same_tree(tmp_path: Path) -> None:
    write_tree(tmp_path / "one", NEW)
    write_tree(tmp_path / "two", dict(reversed(NEW.items())))
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")


def test_an_empty_directory_is_taken_over(out: Path) -> None:
    (out / "empty-subdirectory").mkdir(parents=True)
    write_tree(out, OLD)
    assert file_contents(out) == expected_files(OLD)


def test_a_symlinked_output_directory_is_replaced_where_it_lives(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_tree(real, OLD)
    link = tmp_path / "link"
    link.symlink_to(real)
    write_tree(link, NEW)
    assert link.is_symlink()
    assert file_contents(real) == expected_files(NEW)


def test_refuses_a_directory_without_ownership_manifest(out: Path) -> None:
    out.mkdir(parents=True)
    (out / "notes.md").write_text("mine")
    before = snapshot(out.parent)
    with pytest.raises(UsageError, match=r"has no \.trainc-owned"):
        write_tree(out, NEW)
    assert snapshot(out.parent) == before


def test_refuses_foreign_files_and_deletes_nothing(out: Path) -> None:
    write_tree(out, OLD)
    (out / "team-a" / "notes.md").write_text("mine")
    (out / "zz-extra.yaml").write_text("mine")
    before = snapshot(out.parent)
    with pytest.raises(UsageError, match=r"did not write team-a/notes\.md, zz-extra\.yaml;"):
        write_tree(out, NEW)
    assert snapshot(out.parent) == before


def test_a_listed_path_that_became_a_symlink_is_foreign(out: Path, tmp_path: Path) -> None:
    write_tree(out, OLD)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    (out / "team-a" / "a.yaml").unlink()
    (out / "team-a" / "a.yaml").symlink_to(precious)
    with pytest.raises(UsageError, match=r"did not write team-a/a\.yaml"):
        write_tree(out, NEW)
    assert precious.read_text() == "keep"


def test_many_foreign_files_are_summarised(out: Path) -> None:
    out.mkdir(parents=True)
    (out / OWNERSHIP_FILE).write_text("")
    for index in range(8):
        (out / f"f{index}").write_text("")
    with pytest.raises(UsageError, match="f0, f1, f2, f3, f4 and 3 more;"):
        write_tree(out, NEW)


def test_refuses_a_file_in_place_of_the_directory(out: Path) -> None:
    out.parent.mkdir(parents=True)
    out.write_text("a file")
    with pytest.raises(UsageError, match="is not a directory"):
        write_tree(out, NEW)
    with pytest.raises(UsageError, match="is not a directory"):
        check_tree(out, NEW)
    assert out.read_text() == "a file"


@pytest.mark.parametrize(
    "bad",
    [
        {"../escape.yaml": b""},
        {"/etc/passwd": b""},
        {"a//b.yaml": b""},
        {"a/./b.yaml": b""},
        {"a\\b.yaml": b""},
        {"a\nb.yaml": b""},
        {OWNERSHIP_FILE: b""},
        {"a": b"", "a/b/c.yaml": b""},
    ],
)
def test_paths_trainc_would_never_generate_are_a_compiler_bug(
    out: Path, bad: dict[str, bytes]
) -> None:
    with pytest.raises(CompilerBug, match="cannot write the output path"):
        write_tree(out, bad)
    assert not out.parent.exists()


def test_check_reports_missing_stale_and_extra_files(out: Path) -> None:
    assert check_tree(out, OLD) == [
        f"missing {OWNERSHIP_FILE}",
        "missing kustomization.yaml",
        "missing team-a/a.yaml",
        "missing team-a/b.yaml",
    ]
    write_tree(out, OLD)
    assert check_tree(out, OLD) == []
    assert check_tree(out, NEW) == [
        f"stale {OWNERSHIP_FILE}",
        "missing _shared/trainc-system/cronjob-sweeper.yaml",
        "stale kustomization.yaml",
        "stale team-a/a.yaml",
        "extra team-a/b.yaml",
        "missing team-b/c.yaml",
    ]


def test_check_compares_bytes_exactly_and_sees_foreign_files(out: Path) -> None:
    write_tree(out, OLD)
    (out / "team-a" / "a.yaml").write_bytes(OLD["team-a/a.yaml"].replace(b"\n", b"\r\n"))
    (out / "notes.md").write_text("mine")
    before = snapshot(out)
    assert check_tree(out, OLD) == ["extra notes.md", "stale team-a/a.yaml"]
    assert snapshot(out) == before


class TestOutputLocation:
    @pytest.fixture
    def repo(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        for directory in ("jobs", "runtimes", "rendered"):
            (tmp_path / directory).mkdir()
        monkeypatch.chdir(tmp_path)
        return tmp_path

    @pytest.mark.parametrize(
        ("output", "inputs", "message"),
        [
            ("jobs/rendered", ["jobs"], "is inside the input jobs"),
            ("jobs", ["runtimes", "jobs"], "contains the input jobs"),
            (".", ["jobs"], "contains the input jobs"),
            ("rendered/../jobs/x", ["jobs/"], "is inside the input jobs"),
            ("jobs", ["jobs/a.yaml"], r"contains the input jobs/a\.yaml"),
            (".", ["."], r"contains the input \."),
            ("..", ["."], r"contains the input \."),
        ],
    )
    def test_overlap_with_an_input_is_refused(
        self, repo: Path, output: str, inputs: list[str], message: str
    ) -> None:
        with pytest.raises(UsageError, match=message):
            validate_output_location(Path(output), [Path(i) for i in inputs], repo)

    @pytest.mark.parametrize(
        ("output", "inputs"),
        [
            ("rendered", ["jobs", "runtimes"]),
            ("rendered", ["."]),  # the whole repository, output excluded by its config
            ("../elsewhere", ["."]),
        ],
    )
    def test_separate_locations_are_accepted(
        self, repo: Path, output: str, inputs: list[str]
    ) -> None:
        validate_output_location(Path(output), [Path(i) for i in inputs], repo)

    def test_the_repository_root_given_absolute_is_the_same_exception(self, repo: Path) -> None:
        validate_output_location(repo / "rendered", [repo], Path())

    def test_symlinks_are_resolved(self, repo: Path) -> None:
        (repo / "sneaky").symlink_to(repo / "jobs")
        with pytest.raises(UsageError, match="is inside the input jobs"):
            validate_output_location(Path("sneaky/out"), [Path("jobs")], repo)


def test_a_path_added_twice_is_a_compiler_bug_and_nothing_is_written(out: Path) -> None:
    with TreeWriter(out) as writer:
        writer.add("team-a/a.yaml", b"one\n")
        with pytest.raises(CompilerBug, match="two outputs would both be written to team-a/a"):
            writer.add("team-a/a.yaml", b"two\n")
    assert sorted(path.name for path in out.parent.iterdir()) == []


def test_carried_files_stay_byte_for_byte_and_the_check_agrees(out: Path) -> None:
    write_tree(out, OLD)
    check = TreeCheck(out)
    assert check.previous() == sorted(OLD)
    check.carry("team-a/b.yaml")
    check.add("team-a/a.yaml", NEW["team-a/a.yaml"])
    assert check.differences() == [
        "stale .trainc-owned",
        "extra kustomization.yaml",
        "stale team-a/a.yaml",
    ]

    with TreeWriter(out) as writer:
        assert writer.previous() == sorted(OLD)
        assert writer.first_line("team-a/b.yaml") == "kind: JobSet\n"
        writer.carry("team-a/b.yaml")
        writer.add("team-a/a.yaml", NEW["team-a/a.yaml"])
        result = writer.commit()

    kept = {"team-a/a.yaml": NEW["team-a/a.yaml"], "team-a/b.yaml": OLD["team-a/b.yaml"]}
    assert file_contents(out) == expected_files(kept)
    assert result.changed == (OWNERSHIP_FILE, "team-a/a.yaml")
    assert result.removed == ("kustomization.yaml",)
