"""The writer under SIGKILL, after interrupted runs, and beside a concurrent writer.

The kill test runs ``write_tree`` in a subprocess that counts the writer's system calls
(the ``os`` functions it, pathlib and shutil go through, and ``syncfs``) and kills itself
with SIGKILL just before call number N. The calls are counted once in a dry run; the N
tried are the calls around each rename plus a seeded sample of all others. Each test
runs for both ways of making the tree durable (:mod:`trainc.emit.durable`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.emit.trees import NEW, OLD, expected_files, file_contents, snapshot, visible_tree
from trainc.emit.durable import Sync, default_sync
from trainc.emit.writer import NEW_SUFFIX, OLD_SUFFIX, write_tree

SCRIPT = """
import json, os, signal, sys
from pathlib import Path
from trainc.emit import durable, writer

kill_at = int(sys.argv[1])
files = {path: text.encode() for path, text in json.loads(sys.stdin.read()).items()}
calls = []

def counted(name, function):
    def call(*args, **kwargs):
        calls.append(name)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return function(*args, **kwargs)
    return call

for name in ("open", "close", "write", "fsync", "fchmod", "chmod", "mkdir", "rename",
             "unlink", "rmdir", "link"):
    setattr(os, name, counted(name, getattr(os, name)))
syncfs = durable._syncfs()
if syncfs is not None:
    counted_syncfs = counted("syncfs", syncfs)
    durable._syncfs = lambda: counted_syncfs
writer.write_tree(Path(sys.argv[2]), files, sync=sys.argv[3])
print(json.dumps(calls))
"""

SEED = "trainc-writer-kill-1"
KILLS = 20


def _large_tree(jobs: range, flavour: str, *, unchanged: range = range(0)) -> dict[str, str]:
    files = {
        f"team-{index % 7}/job-{index:03}.yaml": f"kind: JobSet\nname: job-{index}\n"
        + f"flavour: {'old' if index in unchanged else flavour}\n" * 40
        for index in jobs
    }
    files["kustomization.yaml"] = "resources:\n" + "".join(f"- {path}\n" for path in sorted(files))
    return files


LARGE_OLD = _large_tree(range(200), "old")
# Half the jobs gone, half new; of the others, half changed and half kept as they were
# (the writer hard-links those into the new tree).
LARGE_NEW = _large_tree(range(100, 300), "new", unchanged=range(100, 150))


def _encoded(files: dict[str, str]) -> dict[str, bytes]:
    return {path: text.encode() for path, text in files.items()}


def _run_killed(kill_at: int, out: Path, sync: Sync) -> subprocess.CompletedProcess[str]:
    """Write LARGE_NEW to ``out`` in a subprocess killed before system call ``kill_at``."""
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, str(kill_at), str(out), sync],
        input=json.dumps(LARGE_NEW),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def _seeded_sample(population: Sequence[int], count: int, salt: str) -> list[int]:
    """A reproducible pseudo-random sample (the ``random`` module is banned in trainc)."""

    def rank(point: int) -> bytes:
        return hashlib.sha256(f"{SEED}:{salt}:{point}".encode()).digest()

    return sorted(population, key=rank)[:count]


SYNCS: list[Sync] = sorted({default_sync(), "per-file"})


@pytest.fixture(scope="module", params=SYNCS)
def sync(request: pytest.FixtureRequest) -> Sync:
    """Each way of making the tree durable that this platform has."""
    chosen: Sync = request.param
    return chosen


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory, sync: Sync) -> list[str]:
    """The system calls of one uninterrupted replacement of LARGE_OLD by LARGE_NEW."""
    out = tmp_path_factory.mktemp("dry-run") / "out"
    write_tree(out, _encoded(LARGE_OLD))
    completed = _run_killed(0, out, sync)
    assert completed.returncode == 0, completed.stderr
    counted: list[str] = json.loads(completed.stdout)
    return counted


@pytest.fixture(scope="module")
def kill_points(calls: list[str]) -> list[int]:
    """KILLS call numbers: those just before, at and after each rename, then a sample."""
    renames = [index + 1 for index, name in enumerate(calls) if name == "rename"]
    around = sorted({point + offset for point in renames for offset in (-1, 0, 1)})[:KILLS]
    others = [point for point in range(1, len(calls) + 1) if point not in around]
    return sorted([*around, *_seeded_sample(others, KILLS - len(around), "first")])


@pytest.fixture(scope="module")
def new_tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bytes, int]]:
    out = tmp_path_factory.mktemp("reference") / "out"
    write_tree(out, _encoded(LARGE_NEW))
    return snapshot(out)


@pytest.mark.parametrize("case", range(KILLS))
def test_a_kill_at_any_point_leaves_the_old_or_the_new_tree(
    *,
    tmp_path: Path,
    case: int,
    calls: list[str],
    kill_points: list[int],
    new_tree: dict[str, tuple[bytes, int]],
    sync: Sync,
) -> None:
    kill_at = kill_points[case]
    out = tmp_path / "out"
    write_tree(out, _encoded(LARGE_OLD))
    old_tree = snapshot(out)

    first = _run_killed(kill_at, out, sync)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert visible_tree(out) in (old_tree, new_tree), f"killed before call {kill_at}"

    # The next run recovers; kill it too (or not: the range is twice a run), and the
    # invariant still holds.
    (second_kill,) = _seeded_sample(range(1, 2 * len(calls)), 1, f"second:{kill_at}")
    second = _run_killed(second_kill, out, sync)
    assert second.returncode in (0, -signal.SIGKILL), second.stderr
    assert visible_tree(out) in (old_tree, new_tree), f"killed before {kill_at}, then {second_kill}"

    write_tree(out, _encoded(LARGE_NEW))
    assert snapshot(out) == new_tree
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_the_new_tree_is_durable_before_the_swap_with_the_syncs_its_way_needs(
    calls: list[str], sync: Sync
) -> None:
    first_rename = calls.index("rename")
    before, after = calls[:first_rename], calls[first_rename:]
    directories = {path.rpartition("/")[0] for path in LARGE_NEW if "/" in path}
    if sync == "batched":
        # One syncfs for the whole tree, no fsync of any file or directory of it.
        assert before.count("syncfs") == 1
        assert before.count("fsync") == 0
    else:
        # Every file written (the manifest too), every directory and the tree's root; a
        # file kept is the old tree's, on the disk already, and only linked.
        kept = [path for path, text in LARGE_NEW.items() if LARGE_OLD.get(path) == text]
        assert "syncfs" not in calls
        assert before.count("link") == len(kept) == 50
        assert before.count("fsync") == len(LARGE_NEW) - len(kept) + 1 + len(directories) + 1
    # Then the parent, once both renames are done.
    assert after.count("fsync") == 1
    assert after.index("fsync") > after.index("rename", 1)


def test_a_kill_between_the_renames_restores_the_old_tree(
    tmp_path: Path, calls: list[str], sync: Sync
) -> None:
    after_first_rename = calls.index("rename") + 2  # 1-based: the next call
    out = tmp_path / "out"
    write_tree(out, _encoded(LARGE_OLD))
    old_tree = snapshot(out)
    assert _run_killed(after_first_rename, out, sync).returncode == -signal.SIGKILL

    assert not out.exists()  # the documented window
    assert snapshot(tmp_path / f".out{OLD_SUFFIX}") == old_tree
    result = write_tree(out, NEW)
    assert result.recovered == (f".out{OLD_SUFFIX}", f".out{NEW_SUFFIX}")
    # Compared against the restored old tree: every old job file is gone now.
    assert set(result.removed) == LARGE_OLD.keys() - {"kustomization.yaml"}
    assert file_contents(out) == expected_files(NEW)


def test_an_unfinished_build_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, OLD)
    partial = tmp_path / f".out{NEW_SUFFIX}" / "team-a"
    partial.mkdir(parents=True)
    (partial / "a.yaml").write_bytes(b"kind: Jo")
    result = write_tree(out, NEW)
    assert result.recovered == (f".out{NEW_SUFFIX}",)
    assert result.removed == ("team-a/b.yaml",)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_an_interrupted_clean_up_is_finished(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, NEW)
    write_tree(tmp_path / f".out{OLD_SUFFIX}", OLD)  # the old tree, its removal cut short
    (tmp_path / f".out{OLD_SUFFIX}" / "team-a" / "a.yaml").unlink()
    result = write_tree(out, NEW)
    assert result.recovered == (f".out{OLD_SUFFIX}",)
    assert result.changed == result.removed == ()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_writers_of_one_parent_directory_take_turns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    descriptor = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(descriptor, fcntl.LOCK_EX)  # as a concurrent trainc holds it
    writer = threading.Thread(target=write_tree, args=(out, OLD))
    writer.start()
    writer.join(timeout=0.3)
    assert writer.is_alive()
    assert not out.exists()
    os.close(descriptor)
    writer.join(timeout=10)
    assert not writer.is_alive()
    assert file_contents(out) == expected_files(OLD)
