"""The index of the words of each file: a run with it finds the TrainJobs that may clash
exactly as reading every file does, and reads only the files that may name one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from trainc.cache.store import Store
from trainc.config.settings import RepoConfig
from trainc.load import named_files
from trainc.load import word_filter as word_filter_module
from trainc.load.declared import declared_trainjobs
from trainc.load.word_filter import EVERY_WORD, FilterTable, is_word, word_filter

from .files import TRAINJOB, IndexReads, calls_of, config, write


class Reads(IndexReads):
    """The clash index's reads, and what it finds."""

    def take(self) -> list[str]:
        return sorted(super().take())

    def found(self, cfg: RepoConfig, store: Store, *names: str) -> list[str]:
        """The TrainJobs found with the index, checked against reading every file.

        Only the indexed run's reads are left for :meth:`take`.
        """
        before = len(self.paths)
        expected = declared_trainjobs(names, skip=("jobs/named.yaml",), config=cfg)
        del self.paths[before:]
        found = declared_trainjobs(names, skip=("jobs/named.yaml",), config=cfg, store=store)
        clashing = [d for d in found if d.name in names]
        assert clashing == [d for d in expected if d.name in names]
        return [f"{d.path}:{d.name}" for d in clashing]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    # Filters so wide that none wrongly holds a word: which files are read is then exact
    # (the rate of false positives is tested on its own, below).
    monkeypatch.setattr(word_filter_module, "_BITS_PER_WORD", 4096)
    return Reads(monkeypatch, named_files)


def repository(root: Path, jobs: int = 20) -> RepoConfig:
    for number in range(jobs):
        write(root, f"jobs/job-{number}.yaml", TRAINJOB.format(name=f"job-{number}"))
    write(root, "jobs/named.yaml", TRAINJOB.format(name="job-7"))
    return config(root)


def test_a_warm_run_reads_only_the_files_that_may_name_the_job(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10  # the files are 10 s old when the index is written
    for _ in range(2):  # the first run leaves an empty index, the second builds it
        assert reads.found(cfg, store, "job-7") == ["jobs/job-7.yaml:job-7"]
        assert len(reads.take()) == 20
    assert reads.found(cfg, store, "job-7") == ["jobs/job-7.yaml:job-7"]
    # job-17 holds "job-7" only inside a longer word: the filter spares it.
    assert reads.take() == ["jobs/job-7.yaml"]
    assert reads.found(cfg, store, "job-3", "job-12") == [
        "jobs/job-12.yaml:job-12",
        "jobs/job-3.yaml:job-3",
    ]
    assert reads.take() == ["jobs/job-12.yaml", "jobs/job-3.yaml"]


def test_a_one_off_run_builds_no_filter(
    tmp_path: Path, store: Store, reads: Reads, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = repository(tmp_path / "repo")
    reads.later_ns = 10**10
    built = calls_of(monkeypatch, named_files, "word_filter")
    reads.found(cfg, store, "job-7")
    assert built == []
    reads.found(cfg, store, "job-7")
    assert len(built) == 20


def test_edits_additions_and_files_in_the_racy_window_are_read(
    tmp_path: Path, store: Store, reads: Reads
) -> None:
    root = tmp_path / "repo"
    cfg = repository(root)
    reads.found(cfg, store, "job-7")  # leaves an empty index
    reads.found(cfg, store, "job-7")  # written just now: not yet safe to trust
    reads.take()
    reads.found(cfg, store, "job-7")
    assert len(reads.take()) == 20
    reads.later_ns = 10**10
    reads.found(cfg, store, "job-7")
    write(root, "jobs/job-2.yaml", TRAINJOB.format(name="job-7"))  # a copy, renamed
    write(root, "jobs/new.yaml", TRAINJOB.format(name="job-7"))
    reads.take()
    assert reads.found(cfg, store, "job-7") == [
        "jobs/job-2.yaml:job-7",
        "jobs/job-7.yaml:job-7",
        "jobs/new.yaml:job-7",
    ]
    assert reads.take() == ["jobs/job-2.yaml", "jobs/job-7.yaml", "jobs/new.yaml"]


@pytest.fixture
def file_by_file(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """The runs that compared the index file by file (something changed)."""
    return calls_of(monkeypatch, named_files._Index, "_changed")


def settled_index(root: Path, store: Store, reads: Reads) -> RepoConfig:
    """A repository whose index holds every file, old enough to be trusted."""
    cfg = repository(root)
    reads.later_ns = 10**10
    for _ in range(3):
        reads.found(cfg, store, "job-7")
    reads.take()
    return cfg


def test_a_warm_run_on_an_unchanged_repository_compares_the_index_whole(
    tmp_path: Path, store: Store, reads: Reads, file_by_file: list[tuple[object, ...]]
) -> None:
    root = tmp_path / "repo"
    cfg = settled_index(root, store, reads)
    file_by_file.clear()
    # The named file itself changes before every run (the pre-commit hook's case).
    for name in ("job-3", "job-7", "job-12"):
        write(root, "jobs/named.yaml", TRAINJOB.format(name=name))
        assert reads.found(cfg, store, name) == [f"jobs/{name}.yaml:{name}"]
        assert reads.take() == [f"jobs/{name}.yaml"]
    assert file_by_file == []


@pytest.mark.parametrize("change", ["edited in place", "added", "deleted", "renamed"])
def test_every_change_to_the_files_is_seen_after_a_whole_index_run(
    tmp_path: Path, store: Store, reads: Reads, file_by_file: list[tuple[object, ...]], change: str
) -> None:
    root = tmp_path / "repo"
    cfg = settled_index(root, store, reads)
    reads.found(cfg, store, "job-7")
    reads.take()
    file_by_file.clear()
    jobs = root / "jobs"
    if change == "edited in place":  # the same size: only the times and inode's data tell
        (jobs / "job-2.yaml").write_text(TRAINJOB.format(name="job-7"))
        expected, read = ["jobs/job-2.yaml:job-7", "jobs/job-7.yaml:job-7"], ["jobs/job-2.yaml"]
    elif change == "added":
        write(root, "jobs/copy.yaml", TRAINJOB.format(name="job-7"))
        expected, read = ["jobs/copy.yaml:job-7", "jobs/job-7.yaml:job-7"], ["jobs/copy.yaml"]
    elif change == "deleted":
        (jobs / "job-7.yaml").unlink()
        expected, read = [], []
    else:
        (jobs / "job-7.yaml").rename(jobs / "moved.yaml")
        expected, read = ["jobs/moved.yaml:job-7"], ["jobs/moved.yaml"]
    assert reads.found(cfg, store, "job-7") == expected
    assert [path for path in reads.take() if path != "jobs/job-7.yaml"] == read
    assert len(file_by_file) == 1  # the indexed run found the change
    # The changed file is entered, old enough to trust: the next run compares whole again.
    assert reads.found(cfg, store, "job-7") == expected
    assert len(file_by_file) == 1


def test_a_file_rewritten_in_the_racy_window_is_read_until_its_stamp_is_old(
    tmp_path: Path, store: Store, reads: Reads, file_by_file: list[tuple[object, ...]]
) -> None:
    root = tmp_path / "repo"
    cfg = settled_index(root, store, reads)
    # Rewritten with a modification time as late as the moment the runs begin stat-ing.
    write(root, "jobs/job-2.yaml", TRAINJOB.format(name="job-2"))
    late = time.time_ns() + reads.later_ns
    os.utime(root / "jobs/job-2.yaml", ns=(late, late))
    for _ in range(2):
        reads.found(cfg, store, "job-7")
        assert reads.take() == ["jobs/job-2.yaml", "jobs/job-7.yaml"]
    reads.later_ns *= 2
    reads.found(cfg, store, "job-7")
    reads.take()
    file_by_file.clear()
    assert reads.found(cfg, store, "job-7") == ["jobs/job-7.yaml:job-7"]
    assert reads.take() == ["jobs/job-7.yaml"]
    assert file_by_file == []


def test_templates_and_names_that_are_no_word_are_read_as_without_the_index(
    tmp_path: Path, store: Store, reads: Reads, file_by_file: list[tuple[object, ...]]
) -> None:
    root = tmp_path / "repo"
    repository(root, jobs=3)
    # A template is searched as without the index: "name", a key in every file, finds it.
    write(root, "jobs/templated.yaml.j2", TRAINJOB.format(name="{{ name }}"))
    cfg = config(root, values={"name": "job-7"})
    reads.later_ns = 10**10
    reads.found(cfg, store, "job-7", "name")
    reads.found(cfg, store, "job-7", "name")
    reads.take()
    file_by_file.clear()
    assert reads.found(cfg, store, "job-7", "name") == ["jobs/templated.yaml.j2:job-7"]
    assert reads.take() == ["jobs/templated.yaml.j2"]
    # Its entry holds every word: it is read, yet the index still compares whole.
    assert file_by_file == []
    # An invalid name with "_" is searched for in every file, as without an index.
    reads.found(cfg, store, "job_1")
    assert len(reads.take()) == 4


def test_the_filter_holds_every_word_of_its_file_but_keys() -> None:
    data = b'name: resnet-v2\nimage: "ghcr.io/team/x:1.0"\nargs: [--lr=0.1, a.b]\n'
    found = word_filter(data)
    for word in (b"resnet-v2", b"ghcr.io", b"team", b"1.0", b"--lr", b"0.1", b"a.b"):
        assert is_word(word)
        assert may_hold(found, word), word
    for key in (b"image", b"args", b"x"):
        assert not may_hold(found, key), key
    assert not is_word(b"job_1")
    assert not is_word(b"a b")


def may_hold(found: bytes, word: bytes) -> bool:
    """Whether the file of filter ``found`` may hold ``word``, as the index asks."""
    return FilterTable.of([found]).holding(frozenset({word})) == [0]


def test_the_files_that_may_hold_a_name_are_told_at_once() -> None:
    # Filters of several sizes, in a mixed order: the table groups them by size and
    # answers by position, as one filter at a time would.
    texts = [TRAINJOB.format(name=name) for name in ("a", "b", "c")]
    texts.insert(1, TRAINJOB.format(name="d") + "# " + " ".join(f"w{n}" for n in range(50)))
    filters = [word_filter(text.encode()) for text in texts]
    assert len({len(found) for found in filters}) == 2
    table = FilterTable.of(filters)
    assert table.holding(frozenset({b"b", b"c", b"d"})) == [1, 2, 3]
    assert table.holding(frozenset({b"absent"})) == []
    assert table.holding(frozenset({b"w7"})) == [1]
    assert FilterTable.of([]).holding(frozenset({b"absent"})) == []
    assert FilterTable.of([EVERY_WORD, *filters]).holding(frozenset({b"absent"})) == [0]
    assert table.filters() == dict(enumerate(filters))


def test_few_files_are_read_for_a_word_they_lack() -> None:
    files = [
        TRAINJOB.format(name=f"job-{number}").encode()
        + b"# "
        + b" ".join(f"word{number}-{other}".encode() for other in range(60))
        for number in range(200)
    ]
    filters = [word_filter(data) for data in files]
    absent = [f"absent-{number}".encode() for number in range(100)]
    wrongly = sum(may_hold(found, word) for found in filters for word in absent)
    assert wrongly / (len(filters) * len(absent)) < 0.005
    assert may_hold(filters[7], b"job-7")
