"""A warm cache re-checks only what changed, ignores what it cannot trust, and changes
nothing: the findings and the output are a run's without it."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import trainc.engine.file_pass
import trainc.engine.job_pass
import trainc.load.inputs
from tests.support.cached import bench_repository, open_store
from tests.support.compiled import Compiled, compile_collected
from trainc.app import ValidationReport, validate_paths
from trainc.cache import stat_index
from trainc.cache.budget import bounded
from trainc.cache.packed import HEADS, MAX_PACKS, Head
from trainc.cache.store import LAYOUT, Store
from trainc.emit.tree_index import bytes_digest, read_index

JOBS = 24


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_repository(tmp_path_factory.mktemp("template") / "repo", jobs=JOBS, runtimes=3)


@pytest.fixture
def repo(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["cp", "-a", str(template), str(root)], check=True)
    return root


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(tmp_path / "cache")


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many files a run checks and TrainJobs it resolves (in its own process)."""
    counts: Counter[str] = Counter()
    check_file = trainc.engine.file_pass.check_file
    resolve_job = trainc.engine.job_pass.resolve_job  # type: ignore[attr-defined]

    def counted_check(*args: object, **kwargs: object) -> object:
        counts["files"] += 1
        return check_file(*args, **kwargs)  # type: ignore[arg-type]

    def counted_resolve(*args: object, **kwargs: object) -> object:
        counts["trainjobs"] += 1
        return resolve_job(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trainc.engine.file_pass, "check_file", counted_check)
    monkeypatch.setattr(trainc.engine.job_pass, "resolve_job", counted_resolve)
    return counts


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The input files a run reads, by path (a file the stat index trusts is not read)."""
    read_paths: list[str] = []
    read = trainc.load.inputs.InputFiles.read

    def counted_read(files: object, path: str) -> object:
        read_paths.append(path)
        return read(files, path)  # type: ignore[arg-type]

    monkeypatch.setattr(trainc.load.inputs.InputFiles, "read", counted_read)
    return read_paths


def _validate(repo: Path, store: Store | None, work: Counter[str]) -> ValidationReport:
    work.clear()
    return validate_paths([], cwd=repo, cache=store, jobs=1)


def _files(repo: Path, pattern: str) -> Iterator[Path]:
    return (path for path in sorted(repo.glob(pattern)) if path.is_file())


def _jobs_on(repo: Path, runtime: Path) -> int:
    name = next(
        line.split(":", 1)[1].strip()
        for line in runtime.read_text().splitlines()
        if line.startswith("  name:")
    )
    return sum(f"name: {name}\n" in path.read_text() for path in _files(repo, "jobs/**/*.yaml"))


def test_a_warm_run_checks_only_what_changed(repo: Path, store: Store, work: Counter[str]) -> None:
    plain = _validate(repo, None, work)
    files = plain.files
    assert plain.exit_code == 0
    assert work == {"files": files, "trainjobs": JOBS}

    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert work == {"files": files, "trainjobs": JOBS}  # cold: everything, and kept
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert work == {}  # warm: nothing

    job = next(_files(repo, "jobs/**/*.yaml"))
    job.write_text(job.read_text() + "# touched\n")
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert work == {"files": 1, "trainjobs": 1}

    runtime = next(path for path in _files(repo, "runtimes/**/*.yaml") if _jobs_on(repo, path))
    runtime.write_text(runtime.read_text() + "# touched\n")
    _validate(repo, store, work)
    assert work == {"files": 1, "trainjobs": _jobs_on(repo, runtime)}


def test_settings_and_policies_are_part_of_every_verdict_s_key(
    repo: Path, store: Store, work: Counter[str]
) -> None:
    _validate(repo, store, work)
    policy = next(_files(repo, "policies/*.yaml"))
    policy.write_text(policy.read_text() + "# touched\n")
    _validate(repo, store, work)
    assert work == {"trainjobs": JOBS}  # files are read the same; every job is judged again

    config = repo / "trainc.yaml"
    config.write_text(config.read_text().replace('Version: "1.33"', 'Version: "1.34"'))
    _validate(repo, store, work)
    assert work["files"] > JOBS
    assert work["trainjobs"] == JOBS


def test_an_error_found_warm_is_the_error_found_cold(
    repo: Path, store: Store, work: Counter[str]
) -> None:
    _validate(repo, store, work)
    job = next(_files(repo, "jobs/**/*.yaml"))
    job.write_text(job.read_text().replace("activeDeadlineSeconds:", "activeDeadlineSeconds: -1 #"))
    warm = _validate(repo, store, work)
    assert warm.exit_code == 1
    assert warm.diagnostics == _validate(repo, None, work).diagnostics
    assert _validate(repo, store, work).diagnostics == warm.diagnostics
    assert work == {}


def test_a_copy_elsewhere_reads_what_the_original_kept(
    repo: Path, store: Store, work: Counter[str], tmp_path: Path
) -> None:
    """Argo CD extracts each generation into a new directory (new path, inodes and times):
    a copy of a repository finds the checks and verdicts the original left, by content,
    and no entry holds the place the original was in."""
    job = next(_files(repo, "jobs/**/*.yaml"))
    job.write_text(job.read_text().replace("activeDeadlineSeconds:", "activeDeadlineSeconds: -1 #"))
    original = _validate(repo, store, work)
    assert original.exit_code == 1  # findings, whose files are named in the cache
    compiled = _compiled(repo, store)
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(repo, copy)
    again = _validate(copy, store, work)
    assert work == {}  # no file checked, no TrainJob resolved: all read back
    assert (again.diagnostics, again.files, again.objects) == (
        original.diagnostics,
        original.files,
        original.objects,
    )
    assert _compiled(copy, store) == compiled
    assert work == {}
    place = os.fsencode(repo)
    assert not [path for path in _cache_files(tmp_path, "") if place in path.read_bytes()]


def _cache_files(tmp_path: Path, section: str) -> list[Path]:
    return [path for path in (tmp_path / "cache" / LAYOUT / section).rglob("*") if path.is_file()]


@pytest.mark.parametrize(
    ("section", "damage", "everything"),
    [
        ("packs", lambda data: data[: len(data) // 2], True),  # a pack cut short
        ("packs", lambda data: data[:-1] + bytes([data[-1] ^ 1]), True),  # its index's digest
        ("packs", lambda data: data[:200] + bytes([data[200] ^ 1]) + data[201:], False),
        ("heads", lambda data: data[:-1] + bytes([data[-1] ^ 1]), True),
        ("heads", lambda data: b"foreign", True),
    ],
    ids=["pack-torn", "pack-index", "pack-payload", "head-bit-flip", "head-foreign"],
)
def test_damaged_entries_are_ignored_and_rewritten(
    repo: Path,
    store: Store,
    work: Counter[str],
    tmp_path: Path,
    section: str,
    damage: Callable[[bytes], bytes],
    everything: bool,
) -> None:
    """A damaged head or pack index loses every entry; a damaged payload, its own."""
    plain = _validate(repo, None, work)
    _validate(repo, store, work)
    assert [len(_cache_files(tmp_path, name)) for name in ("packs", "heads")] == [1, 1]
    (entry,) = _cache_files(tmp_path, section)
    entry.write_bytes(damage(entry.read_bytes()))
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    if everything:
        assert work == {"files": plain.files, "trainjobs": JOBS}
    else:
        assert 0 < work["files"] + work["trainjobs"] < plain.files + JOBS
    _validate(repo, store, work)
    assert work == {}


def test_a_run_writes_one_pack_and_reads_its_files_only_when_they_changed(
    repo: Path,
    store: Store,
    work: Counter[str],
    reads: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stat index: an unchanged file is neither read nor digested; a file the last
    run saw within the timestamps' granularity ("racy") is read again, to be sure."""
    plain = _validate(repo, None, work)
    # Timestamps an hour coarse: every file was written "a moment" before the run.
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", 3600 * 10**9)
    _validate(repo, store, work)  # cold
    reads.clear()
    _validate(repo, store, work)  # every file is racy: read again, its checks still kept
    assert len(reads) == plain.files
    assert work == {}
    # On a file system with exact timestamps, a file last written before the run began
    # cannot have changed unseen in the tick it was stat-ed.
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", 0)
    _validate(repo, store, work)  # stat-ed after their writes: trusted from now on
    reads.clear()
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert reads == []
    assert work == {}

    job = next(_files(repo, "jobs/**/*.yaml"))
    before = job.stat()
    # Same size, same modification time: only the status-change time tells the edit.
    other = {"1": "2"}
    text = re.sub(
        r"(activeDeadlineSeconds: )(\d)",
        lambda m: m[1] + other.get(m[2], "1"),
        job.read_text(),
        count=1,
    )
    job.write_text(text)
    os.utime(job, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert job.stat().st_size == before.st_size
    edited = _validate(repo, store, work)
    assert set(reads) == {job.relative_to(repo).as_posix()}
    assert work == {"files": 1, "trainjobs": 1}
    assert edited.diagnostics == _validate(repo, None, work).diagnostics
    assert len(_cache_files(tmp_path, "heads")) == 1
    assert len(_cache_files(tmp_path, "packs")) <= MAX_PACKS + 1


def test_packs_are_compacted(repo: Path, store: Store, work: Counter[str], tmp_path: Path) -> None:
    """Each run that computes something writes a pack; past :data:`MAX_PACKS`, the run
    copies what it read into its own, and its head names that one alone."""
    plain = _validate(repo, None, work)
    _validate(repo, store, work)
    for job in list(_files(repo, "jobs/**/*.yaml"))[: MAX_PACKS + 2]:  # each pack stays read
        job.write_text(job.read_text() + "# edited\n")
        assert _validate(repo, store, work).diagnostics == plain.diagnostics
    head = store.load(HEADS, next(iter(_head_keys(tmp_path))), Head)
    assert head is not None
    assert 1 <= len(head.lineages[0].packs) <= MAX_PACKS
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert work == {}


def test_two_repositories_with_the_same_settings_keep_each_other_s_entries(
    repo: Path,
    store: Store,
    work: Counter[str],
    reads: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two different repositories with the same settings share one head (no key holds a
    root): runs alternating between them, each after a change, read back their own
    entries and trust their own stat index; only the edited file is read and checked."""
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", 0)
    other = bench_repository(tmp_path / "other", jobs=JOBS, runtimes=3, seed=1)
    for root in (repo, other):
        _validate(root, store, work)
        assert work["trainjobs"] == JOBS
    for number in range(MAX_PACKS + 2):  # a job each: their packs stay read, then compacted
        for root in (repo, other):
            job = list(_files(root, "jobs/**/*.yaml"))[number]
            job.write_text(job.read_text() + "# edited\n")
            reads.clear()
            _validate(root, store, work)
            assert set(reads) == {job.relative_to(root).as_posix()}
            assert work == {"files": 1, "trainjobs": 1}
    for root in (repo, other):
        assert _validate(root, store, work).diagnostics == _validate(root, None, work).diagnostics
    copy = tmp_path / "elsewhere"  # a fresh copy continues the original's lineage
    shutil.copytree(repo, copy)
    _validate(copy, store, work)
    assert work == {}
    (key,) = _head_keys(tmp_path)
    head = store.load(HEADS, key, Head)
    assert head is not None
    assert len(head.lineages) == 2


def test_a_trim_removes_other_repositories_packs_never_the_run_s_own(
    repo: Path, store: Store, work: Counter[str], tmp_path: Path
) -> None:
    """Past a bound smaller than anything a run keeps, the run of a second repository
    keeps its own head and the packs its lineage names (its own, and the first
    repository's it read from), and trims away what only the first one's lineage
    names; then says that it is over the bound."""
    other = bench_repository(tmp_path / "other", jobs=JOBS, runtimes=3, seed=1)
    _validate(repo, store, work)
    edited = next(_files(repo, "jobs/**/*.yaml"))
    edited.write_text(edited.read_text() + "# edited\n")
    _validate(repo, store, work)  # a second pack, of the edited TrainJob alone
    store = open_store(tmp_path / "cache")  # a command of its own, as on the command line
    store.account = functools.partial(bounded, directory=store.directory, limit=1)

    _validate(other, store, work)
    store.flush()

    (key,) = _head_keys(tmp_path)
    head = store.load(HEADS, key, Head)
    assert head is not None
    mine, theirs = head.lineages
    left = {path.parent.name + path.name for path in _cache_files(tmp_path, "packs")}
    assert set(theirs.packs) - set(mine.packs)
    assert left == set(mine.packs)
    assert store.over_bound is not None
    assert store.over_bound.startswith("this run keeps ")
    _validate(other, store, work)
    assert work == {}
    _validate(repo, store, work)
    assert work == {"files": 1, "trainjobs": 1}  # only what the removed pack held


def _head_keys(tmp_path: Path) -> list[str]:
    return [path.parent.name + path.name for path in _cache_files(tmp_path, "heads")]


def _compiled(repo: Path, store: Store | None) -> tuple[object, ...]:
    compiled: Compiled = compile_collected([], cwd=repo, cache=store, jobs=1)
    return compiled.diagnostics, compiled.files, compiled.stream


def test_compile_output_is_the_same_cold_and_warm(repo: Path, store: Store) -> None:
    plain = _compiled(repo, None)
    assert _compiled(repo, store) == plain
    assert _compiled(repo, store) == plain
    validated = validate_paths([], cwd=repo, cache=store, jobs=1)
    assert _compiled(repo, store) == plain  # validate's entries are not compile's
    assert validated.exit_code == 0


def test_jobs_judged_after_an_error_still_compile_once_the_error_is_gone(
    repo: Path, store: Store
) -> None:
    """A compile that finds an error in its first TrainJob judges the others without
    making their output; a verdict so judged is not the one a clean run asks for, so
    the clean compile after the fix writes every TrainJob, as one without the cache.
    The settings change with the error, so that no verdict of an earlier run serves."""
    assert _compiled(repo, store)[0] == ()
    config = repo / "trainc.yaml"
    config.write_text(config.read_text().replace("maxSeconds: 259200", "maxSeconds: 259201"))
    plain = _compiled(repo, None)
    first = min(
        _files(repo, "jobs/**/*.yaml"), key=lambda path: (path.parent.parent.name, path.stem)
    )
    original = first.read_text()
    first.write_text(
        re.sub(r"activeDeadlineSeconds: \d+", "activeDeadlineSeconds: 9999999", original)
    )
    failed: Compiled = compile_collected([], cwd=repo, cache=store, jobs=1)
    assert failed.exit_code == 1
    assert {d.file for d in failed.diagnostics if d.severity == "error"} == {
        first.relative_to(repo).as_posix()
    }
    first.write_text(original)
    assert _compiled(repo, store) == plain


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_compile_into_a_directory_is_byte_identical_cold_warm_and_without_cache(
    repo: Path, tmp_path: Path
) -> None:
    """`trainc compile -o DIR`, cold, then warm after one TrainJob changed, writes the
    tree a run without the cache writes; a re-run leaves each unchanged file in place."""
    command = [sys.executable, "-m", "trainc", "compile", "-q"]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    out, plain = tmp_path / "out", tmp_path / "plain"

    def compiled(*args: str) -> None:
        subprocess.run([*command, *args], cwd=repo, check=True)

    compiled("-o", str(out), *cache)
    compiled("-o", str(plain), "--no-cache")
    assert _tree(out) == _tree(plain)
    inodes = {path: (out / path).stat().st_ino for path in _tree(out)}
    job = next(_files(repo, "jobs/**/*.yaml"))
    job.write_text(job.read_text().replace("activeDeadlineSeconds:", "activeDeadlineSeconds: 1 #"))
    compiled("-o", str(out), *cache)
    compiled("-o", str(plain), "--no-cache")
    assert _tree(out) == _tree(plain)
    rewritten = sorted(path for path in _tree(out) if (out / path).stat().st_ino != inodes[path])
    assert len(rewritten) == 1
    assert rewritten[0].endswith(".yaml")
    assert job.stem in rewritten[0]
    # What the next compile links unread: every file of the tree, as the last one wrote it.
    recorded = read_index(open_store(tmp_path / "cache"), out.resolve()).previous
    assert recorded.keys() == _tree(out).keys()
    assert all(recorded[path][1] == bytes_digest(data) for path, data in _tree(out).items())


def test_concurrent_runs_sharing_a_cache_write_the_same_output(repo: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "trainc", "compile", "-o", "-", "-q"]
    env = {**os.environ, "TRAINC_CACHE_DIR": str(tmp_path / "shared")}
    del env["TRAINC_NO_CACHE"]  # set for every test by conftest
    plain = subprocess.run(
        [*command, "--no-cache"], cwd=repo, capture_output=True, check=True
    ).stdout
    runs = [subprocess.Popen(command, cwd=repo, env=env, stdout=subprocess.PIPE) for _ in range(3)]
    outputs = [run.communicate()[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0]
    assert outputs == [plain] * 3
    warm = subprocess.run(command, cwd=repo, env=env, capture_output=True, check=True)
    assert warm.stdout == plain


def test_a_cache_that_stops_taking_writes_changes_nothing(
    repo: Path, store: Store, work: Counter[str], tmp_path: Path
) -> None:
    """A full disk mid-run: entries are no longer written, so each whole TrainJob is
    made again from its file when it is judged (:func:`whole_object`'s last resort)."""
    plain = _validate(repo, None, work)
    (tmp_path / "cache" / LAYOUT / "packs").write_text("in the way")  # as a full disk would
    assert _validate(repo, store, work).diagnostics == plain.diagnostics
    assert store.write_failure is not None
    assert work == {"files": plain.files + JOBS, "trainjobs": JOBS}
