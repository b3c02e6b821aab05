"""The persisted runtime index: a run with it finds exactly the runtimes reading all does."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from trainc.cache.store import Store
from trainc.config.limits import InputLimits
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load import reader, runtime_files
from trainc.load.inputs import LoadResult, load_context
from trainc.load.runtime_files import runtime_candidates

from .files import TRAINJOB, IndexReads, calls_of, config, write

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: {name}
spec:
  template:
    spec: {{}}
"""


class Reads(IndexReads):
    """The runtime index's reads, and what it finds."""

    def found(self, cfg: RepoConfig, store: Store, skip: tuple[str, ...] = ()) -> list[str]:
        """The runtimes (file and name) found with the index, checked against reading all.

        Only the indexed run's reads are left for :meth:`take`.
        """
        before = len(self.paths)
        expected = load_context(skip, config=cfg, store=None)
        del self.paths[before:]
        result = load_context(skip, config=cfg, store=store)
        assert summary(result) == summary(expected)
        return [f"{obj.path}:{obj.name}" for obj in result.objects]


def summary(result: LoadResult) -> tuple[object, ...]:
    """What a context load is used for: its runtimes' data and their files' text."""
    objects = [(obj.path, obj.kind, obj.name, obj.data) for obj in result.objects]
    sources = {path: source.text for path, source in result.sources.items()}
    return (objects, sources, result.diagnostics)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return Reads(monkeypatch, runtime_files)


def repository(root: Path) -> RepoConfig:
    write(root, "jobs/a.yaml", TRAINJOB.format(name="a"))
    write(root, "jobs/b.yaml", TRAINJOB.format(name="b"))
    write(root, "runtimes/torch.yaml", RUNTIME.format(name="torch"))
    return config(root)


def test_unchanged_files_are_read_once_and_runtimes_every_time(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10  # the files are 10 s old when the index is written
    assert reads.found(cfg, store) == ["runtimes/torch.yaml:torch"]
    assert sorted(reads.take()) == ["jobs/a.yaml", "jobs/b.yaml", "runtimes/torch.yaml"]
    assert reads.found(cfg, store) == ["runtimes/torch.yaml:torch"]
    assert reads.take() == ["runtimes/torch.yaml"]


def test_an_index_that_learned_nothing_is_not_judged_again(
    tmp_path: Path, store: Store, reads: Reads, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Judging every entry racy or not costs milliseconds at 10,000 files: a warm run
    # that read no changed file keeps the index as it is, unjudged and unwritten.
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10
    judged = calls_of(monkeypatch, runtime_files, "settled")
    reads.found(cfg, store)
    assert [len(entries) for (entries,) in judged] == [3]  # type: ignore[arg-type]
    reads.found(cfg, store)
    assert len(judged) == 1
    (tmp_path / "repo/jobs/b.yaml").unlink()  # a file gone: rewritten without it
    reads.found(cfg, store)
    assert [len(entries) for (entries,) in judged] == [3, 2]  # type: ignore[arg-type]


def test_edits_additions_deletions_and_renames_are_seen(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    root = tmp_path / "repo"
    cfg = repository(root)
    reads.later_ns = 10**10
    reads.found(cfg, store)
    write(root, "jobs/a.yaml", RUNTIME.format(name="a"))  # a TrainJob becomes a runtime
    write(root, "jobs/c.yaml", RUNTIME.format(name="c"))
    (root / "runtimes/torch.yaml").rename(root / "runtimes/renamed.yaml")
    (root / "jobs/b.yaml").unlink()
    reads.take()
    assert reads.found(cfg, store) == [
        "jobs/a.yaml:a",
        "jobs/c.yaml:c",
        "runtimes/renamed.yaml:torch",
    ]
    assert sorted(reads.take()) == ["jobs/a.yaml", "jobs/c.yaml", "runtimes/renamed.yaml"]


@pytest.mark.parametrize("replace", [False, True], ids=["in place", "replaced by a new file"])
def test_same_size_edit_with_the_old_mtime_is_seen(
    tmp_path: Path, store: Store, reads: Reads, replace: bool
) -> None:
    root = tmp_path / "repo"
    cfg = repository(root)
    job = root / "jobs/a.yaml"
    write(root, "jobs/a.yaml", padded(TRAINJOB.format(name="a")))
    reads.later_ns = 10**10
    reads.found(cfg, store)
    before = job.stat()
    # Same length, same mtime (what a coarse clock or a restored timestamp gives): only
    # the change time, or the inode of an editor's save-by-rename, tells the edit.
    edited = padded(RUNTIME.format(name="a"))
    if replace:
        write(root, "jobs/a.yaml.tmp", edited).replace(job)
    else:
        job.write_text(edited)
    os.utime(job, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (job.stat().st_size, job.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert reads.found(cfg, store) == ["jobs/a.yaml:a", "runtimes/torch.yaml:torch"]


def padded(text: str) -> str:
    """``text`` with a comment that makes it 400 characters long."""
    return f"{text}# {'x' * (397 - len(text))}\n"


def test_files_changed_within_the_racy_window_are_read_again(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    cfg = repository(tmp_path / "repo")
    reads.found(cfg, store)  # the files were written just now: not yet safe to trust
    reads.take()
    reads.found(cfg, store)
    assert sorted(reads.take()) == ["jobs/a.yaml", "jobs/b.yaml", "runtimes/torch.yaml"]
    reads.later_ns = 10**10
    reads.found(cfg, store)
    reads.take()
    reads.found(cfg, store)
    assert reads.take() == ["runtimes/torch.yaml"]


def test_a_stat_is_judged_by_when_it_was_taken_not_when_the_index_is_written(
    tmp_path: Path, store: Store, reads: Reads, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The files are stat-ed as they are written, then the run takes 10 s before it writes
    # its index: a file changed again in the tick it was stat-ed keeps its stamp, so none
    # may be trusted by the next run (https://git-scm.com/docs/racy-git).
    cfg = repository(tmp_path / "repo")
    files = ("jobs/a.yaml", "jobs/b.yaml", "runtimes/torch.yaml")
    real_ns, late = time.time_ns, [0]
    monkeypatch.setattr(time, "time_ns", lambda: real_ns() + late[0])
    spy = reader.read_input

    def slow_read(root: Path, path: str, limits: InputLimits) -> bytes | Diagnostic:
        late[0] = 10**10
        reads.paths.append(path)
        return spy(root, path, limits)

    monkeypatch.setattr(runtime_files, "read_input", slow_read)

    def candidates() -> list[str]:
        found = runtime_candidates(files, skip=set(), config=cfg, store=store)
        return [path for path, _ in found]

    assert candidates() == ["runtimes/torch.yaml"]
    assert reads.take() == list(files)
    assert candidates() == ["runtimes/torch.yaml"]
    assert reads.take() == list(files)


def test_skipped_targets_keep_their_entries(tmp_path: Path, store: Store, reads: Reads) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10
    reads.found(cfg, store)
    written = list((store.directory / runtime_files.SECTION).rglob("*"))
    assert reads.found(cfg, store, skip=("jobs/a.yaml",)) == ["runtimes/torch.yaml:torch"]
    assert reads.found(cfg, store) == ["runtimes/torch.yaml:torch"]
    reads.take()
    assert list((store.directory / runtime_files.SECTION).rglob("*")) == written
    reads.found(cfg, store)
    assert reads.take() == ["runtimes/torch.yaml"]


def test_each_selection_and_checkout_has_its_own_index(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10
    reads.found(cfg, store)
    reads.take()
    narrowed = config(cfg.root, include=("runtimes/**",))
    assert reads.found(narrowed, store) == ["runtimes/torch.yaml:torch"]
    assert reads.take() == ["runtimes/torch.yaml"]
    other = repository(tmp_path / "other")
    reads.found(other, store)
    assert sorted(reads.take()) == ["jobs/a.yaml", "jobs/b.yaml", "runtimes/torch.yaml"]
    indexes = (store.directory / runtime_files.SECTION).rglob("*")
    assert len([path for path in indexes if path.is_file()]) == 3


def test_a_damaged_index_is_rebuilt(tmp_path: Path, store: Store, reads: Reads) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10
    reads.found(cfg, store)
    (entry,) = (p for p in (store.directory / runtime_files.SECTION).rglob("*") if p.is_file())
    key = f"{entry.parent.name}{entry.name}"
    store.put(runtime_files.SECTION, key, b"not a pickle")
    reads.take()
    assert reads.found(cfg, store) == ["runtimes/torch.yaml:torch"]
    assert len(reads.take()) == 3
    reads.found(cfg, store)
    assert reads.take() == ["runtimes/torch.yaml"]
