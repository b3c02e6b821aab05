"""``trainc cache``: where the cache is, what it holds, and a clean that touches only trainc's.

The entries are written by the real store (:class:`trainc.cache.store.Store`), into
temporary directories that also hold what a shared cache root holds: other programs'
files, a ``v<N>`` directory that is not trainc's, symbolic links out of the root.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import shlex
from pathlib import Path

import pytest

import trainc.engine.job_pass
from tests.cli.conftest import Invoke
from tests.support.cached import bench_repository
from tests.support.manifests import trainjob_yaml, write
from trainc.cache import stat_index
from trainc.cache.layouts import allocated, find_layouts, remove_layout
from trainc.cache.store import LAYOUT, Store

ENTRY = b"x" * 1000
#: The environment variables that choose the cache directory, cleared for every test.
LOCATION_VARIABLES = (
    "TRAINC_CACHE_DIR",
    "TRAINC_NO_CACHE",
    "XDG_CACHE_HOME",
    "TRAINC_CACHE_MAX_SIZE",
)


@pytest.fixture(autouse=True)
def _no_location_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in LOCATION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def fill(root: Path, count: int, section: str = "files") -> Store:
    """A store under ``root`` holding ``count`` entries of 1000 bytes payload each."""
    store = Store.open(root)
    assert isinstance(store, Store), store
    for number in range(count):
        store.put(section, f"{number:040x}", ENTRY)
    assert store.write_failure is None
    return store


def on_disk(root: Path) -> int:
    """The disk space of every file of the layout, as ``trainc cache info`` counts it."""
    return sum(allocated(p.stat()) for p in (root / LAYOUT).rglob("*") if p.is_file())


def tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` by relative name, with its content."""
    return {
        str(file.relative_to(path)): file.read_bytes()
        for file in sorted(path.rglob("*"))
        if file.is_file() and not file.is_symlink()
    }


# --- trainc cache dir --------------------------------------------------------------------


def test_dir_follows_flag_then_variable_then_xdg_then_home(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke(tmp_path, "cache", "dir").out == f"{tmp_path / 'home' / '.cache' / 'trainc'}\n"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    assert invoke(tmp_path, "cache", "dir").out == f"{tmp_path / 'home' / '.cache' / 'trainc'}\n"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert invoke(tmp_path, "cache", "dir").out == f"{tmp_path / 'xdg' / 'trainc'}\n"
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(tmp_path / "variable"))
    assert invoke(tmp_path, "cache", "dir").out == f"{tmp_path / 'variable'}\n"
    flagged = invoke(tmp_path, "cache", "dir", "--cache-dir", "flag")
    assert (flagged.code, flagged.out, flagged.err) == (0, "flag\n", "")


@pytest.mark.parametrize("value", ["1", "yes", "true", "anything"])
def test_dir_prints_nothing_when_the_cache_is_disabled(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("TRAINC_NO_CACHE", value)
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(tmp_path / "c"))
    result = invoke(tmp_path, "cache", "dir")
    assert (result.code, result.out) == (0, "")
    assert f"the cache is disabled (TRAINC_NO_CACHE={value})" in result.err
    assert str(tmp_path / "c") in result.err
    # A flag is the command line's choice, over the environment's switch.
    flagged = invoke(tmp_path, "cache", "dir", "--cache-dir", str(tmp_path / "flag"))
    assert (flagged.code, flagged.out) == (0, f"{tmp_path / 'flag'}\n")


@pytest.mark.parametrize("value", ["", "0", "false", "No", "off"])
def test_dir_prints_the_directory_when_the_switch_says_off(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("TRAINC_NO_CACHE", value)
    result = invoke(tmp_path, "cache", "dir", "--cache-dir", str(tmp_path / "c"))
    assert (result.code, result.out) == (0, f"{tmp_path / 'c'}\n")


def test_without_a_home_directory_dir_says_so_and_clean_is_a_usage_error(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("HOME")
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    shown = invoke(tmp_path, "cache", "dir")
    assert (shown.code, shown.out) == (0, "")
    assert "no cache directory" in shown.err
    assert "TRAINC_CACHE_DIR" in shown.err
    cleaned = invoke(tmp_path, "cache", "clean")
    assert cleaned.code == 2
    assert "set TRAINC_CACHE_DIR or pass --cache-dir" in cleaned.err


# --- trainc cache info -------------------------------------------------------------------


def test_info_counts_entries_and_bytes_per_layout(invoke: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "cache"
    fill(root, 3, "files")
    fill(root, 2, "jobs")
    result = invoke(tmp_path, "cache", "info", "--cache-dir", str(root))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[:3] == [
        f"directory: {root}",
        "status: used by validate and compile",
        "bound: 256.0 MiB on disk, least recently used entries removed past it",
    ]
    size = sum(len(content) for content in tree(root / LAYOUT).values())
    assert size > 5 * len(ENTRY)  # the header and digest of each entry count too
    assert (
        lines[3]
        == f"{LAYOUT}: 5 entries, {size / 1024:.1f} KiB ({on_disk(root) / 1024:.1f} KiB on disk)"
    )


def test_info_before_the_first_run_and_when_disabled(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    fresh = invoke(tmp_path, "cache", "info", "--cache-dir", str(root))
    assert fresh.out.splitlines()[1].startswith("status: not created yet")
    assert not root.exists()
    fill(root, 1)
    monkeypatch.setenv("TRAINC_NO_CACHE", "1")
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(root))
    disabled = invoke(tmp_path, "cache", "info")
    assert disabled.out.splitlines()[1:] == [
        "status: disabled by TRAINC_NO_CACHE: runs neither read nor write it",
        "bound: 256.0 MiB on disk, least recently used entries removed past it",
        f"{LAYOUT}: 1 entry, 1.0 KiB ({on_disk(root) / 1024:.1f} KiB on disk)",
    ]


# --- trainc cache clean ------------------------------------------------------------------


def test_clean_removes_trainc_entries_and_nothing_else_in_a_shared_root(
    invoke: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "shared"
    fill(root, 4)
    (root / "other-tool").mkdir()
    (root / "other-tool" / "data.bin").write_bytes(b"not trainc's")
    (root / "notes.txt").write_text("keep me")
    (root / "v7").mkdir()  # named like a layout, but holds a file no store writes
    (root / "v7" / "deployment.yaml").write_text("apiVersion: apps/v1\n")
    before = tree(root)
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert result.code == 0, result.err
    assert result.out.startswith(f"Removed {root / LAYOUT}: 4 entries, ")
    assert f"left {root / 'v7'} alone: {root / 'v7' / 'deployment.yaml'} is not a cache entry" in (
        result.err
    )
    assert not (root / LAYOUT).exists()
    assert tree(root) == {
        name: data for name, data in before.items() if not name.startswith(LAYOUT)
    }
    again = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert again.out == f"Nothing to remove in {root}.\n"


def test_clean_never_follows_a_symbolic_link_out_of_the_root(
    invoke: Invoke, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    fill(outside, 2)  # a store elsewhere: entry-shaped files a clean would take
    before = tree(outside)
    root = tmp_path / "cache"
    fill(root, 1)
    (root / "v3").symlink_to(outside / LAYOUT, target_is_directory=True)
    (root / LAYOUT / "jobs").symlink_to(outside / LAYOUT / "files", target_is_directory=True)
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert result.code == 0, result.err
    assert (
        f"left {root / LAYOUT} alone: {root / LAYOUT / 'jobs'} is not a cache entry" in result.err
    )
    assert f"left {root / 'v3'} alone: a symbolic link" in result.err
    assert result.out == f"Nothing to remove in {root}.\n"
    assert tree(outside) == before
    assert (root / LAYOUT / "files").is_dir()


def test_a_root_that_is_a_link_is_followed_as_the_settings_name_it(
    invoke: Invoke, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    fill(real, 2)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(tmp_path / "link"))
    assert result.out.startswith(f"Removed {tmp_path / 'link' / LAYOUT}: 2 entries")
    assert list(real.iterdir()) == []


def test_clean_takes_unfinished_writes_and_the_store_starts_afresh(
    invoke: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "cache"
    store = fill(root, 1)
    leaf = root / LAYOUT / "files" / "00"
    (leaf / ".tmp-abc123").write_bytes(b"torn")
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert result.out.startswith(f"Removed {root / LAYOUT}: 1 entry, ")
    assert not leaf.exists()
    assert store.get("files", f"{0:040x}") is None
    reopened = fill(root, 1)
    assert reopened.get("files", f"{0:040x}") == ENTRY
    assert (root / LAYOUT).stat().st_mode & 0o777 == 0o700


def test_clean_of_a_missing_directory_creates_nothing(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(tmp_path / "none"))
    assert (result.code, result.out) == (0, f"Nothing to remove in {tmp_path / 'none'}.\n")
    assert not (tmp_path / "none").exists()


def test_clean_works_while_runs_are_switched_off(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    fill(root, 2)
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(root))
    monkeypatch.setenv("TRAINC_NO_CACHE", "1")
    result = invoke(tmp_path, "cache", "clean")
    assert result.out.startswith(f"Removed {root / LAYOUT}: 2 entries")


def test_a_layout_of_another_user_is_left_alone(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    fill(root, 1)
    monkeypatch.setattr(os, "geteuid", lambda: (root / LAYOUT).stat().st_uid + 1)
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert f"left {root / LAYOUT} alone: it belongs to another user" in result.err
    assert (root / LAYOUT).is_dir()


def test_entries_written_during_a_clean_are_kept(tmp_path: Path) -> None:
    """A run writing while the cache is cleaned: its entries go or stay whole, and
    anything not trainc's that appeared after the look stays, with its directory."""
    root = tmp_path / "cache"
    store = fill(root, 2)
    (layout,) = find_layouts(root)
    store.put("jobs", "ff" * 20, ENTRY)  # after the look: removed too
    (root / LAYOUT / "files" / "00" / "stray.txt").write_text("appeared meanwhile")
    removal = remove_layout(root, layout)
    assert (removal.entries, removal.kept) == (3, True)
    assert (root / LAYOUT / "files" / "00" / "stray.txt").read_text() == "appeared meanwhile"
    assert not (root / LAYOUT / "files" / "01").exists()


def test_sizes_read_in_binary_units(invoke: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "cache"
    store = fill(root, 0)
    store.put("files", "ab" * 20, b"y" * (3 * 1024 * 1024))
    result = invoke(tmp_path, "cache", "info", "--cache-dir", str(root))
    assert result.out.splitlines()[3].startswith(f"{LAYOUT}: 1 entry, 3.0 MiB (3.0 MiB on disk")


def test_an_entry_that_cannot_be_removed_is_a_usage_error(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    fill(root, 1)

    def read_only(name: str, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)

    monkeypatch.setattr(os, "unlink", read_only)
    result = invoke(tmp_path, "cache", "clean", "--cache-dir", str(root))
    assert (result.code, result.out) == (2, "")
    entry = root / LAYOUT / "files" / "00" / ("00" * 19)
    reason = os.strerror(errno.EROFS)
    assert result.err == f"trainc: error: cannot clean {root}: {reason} ({entry})\n"
    assert len(tree(root / LAYOUT)) == 1


DOCS = Path(__file__).resolve().parents[2] / "docs"
COMMAND = ["trainc", "cache"]


def documented_cache_commands() -> list[list[str]]:
    """Every ``trainc cache ...`` command of the guides' shell blocks, as argv lists."""
    found = []
    for guide in ("cache.md", "pre-commit.md", "argocd.md", "ci.md"):
        text = (DOCS / guide).read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
            for line in block.splitlines():
                if "trainc cache" in line:
                    words = shlex.split(line, comments=True)
                    starts = [i for i in range(len(words)) if words[i : i + 2] == COMMAND]
                    found.append(words[starts[0] + 1 :])
    return found


@pytest.mark.parametrize("argv", documented_cache_commands(), ids=shlex.join)
def test_every_documented_cache_command_runs(
    invoke: Invoke, tmp_path: Path, argv: list[str]
) -> None:
    fill(tmp_path / "home" / ".cache" / "trainc", 1)
    result = invoke(tmp_path, *argv)
    assert result.code == 0, result.err


def test_the_guides_show_every_cache_command() -> None:
    shown = {argv[1] for argv in documented_cache_commands()}
    assert shown == {"dir", "info", "trim", "clean"}


# --- the size bound ------------------------------------------------------------------------


def cache_size(root: Path) -> int:
    """The disk space the entries take, as the bound counts it."""
    files = (root / LAYOUT).rglob("*")
    return sum(allocated(p.stat()) for p in files if p.is_file() and p.name != ".usage")


def a_day_passes(root: Path) -> None:
    """Every file of the cache last used a day earlier than it was."""
    for path in (root / LAYOUT).rglob("*"):
        if path.is_file():
            used = path.stat().st_mtime - 86400
            os.utime(path, (used, used))


def test_repeated_runs_keep_the_cache_under_its_bound(
    invoke: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two weeks of edits, one a day: every run changes a TrainJob and adds entries (whole
    # 4 KiB blocks on disk); the old ones used to stay until `trainc cache clean`.
    root = repo / ".cache"
    monkeypatch.setenv("TRAINC_CACHE_MAX_SIZE", "48Ki")
    sizes = []
    for day in range(14):
        write(repo, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600 + day))
        result = invoke(repo, "validate", "--cache-dir", str(root))
        assert result.code == 0, result.err
        sizes.append(cache_size(root))
        a_day_passes(root)
    assert max(sizes) <= 48 * 1024
    assert any(later < earlier for earlier, later in itertools.pairwise(sizes))  # trimmed
    # What the latest run used stays (the runtime's entry, written on the first day, was
    # read every day): an unchanged run finds it all and writes nothing, once the files
    # are old enough for the stat index to trust them (until then it reads them again).
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", 0)  # exact timestamps
    assert invoke(repo, "validate", "--cache-dir", str(root)).code == 0
    before = tree(root / LAYOUT)
    assert invoke(repo, "validate", "--cache-dir", str(root)).code == 0
    assert {k: v for k, v in tree(root / LAYOUT).items() if k != ".usage"} == {
        k: v for k, v in before.items() if k != ".usage"
    }


def test_without_a_bound_nothing_is_trimmed(
    invoke: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo / ".cache"
    monkeypatch.setenv("TRAINC_CACHE_MAX_SIZE", "none")
    fill(root, 300)
    assert invoke(repo, "validate", "--cache-dir", str(root)).code == 0
    assert find_layouts(root)[0].entries > 300
    info = invoke(repo, "cache", "info", "--cache-dir", str(root))
    assert "bound: none (TRAINC_CACHE_MAX_SIZE=none)" in info.out


def test_trim_removes_the_least_recently_used_down_to_the_bound(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "cache"
    fill(root, 40)
    for number, path in enumerate(sorted((root / LAYOUT).glob("files/*/*"))):
        os.utime(path, (1_000_000 + number, 1_000_000 + number))  # entry n used at n
    monkeypatch.setenv("TRAINC_CACHE_MAX_SIZE", "20Ki")

    result = invoke(tmp_path, "cache", "trim", "--cache-dir", str(root))

    assert result.code == 0, result.err
    kept = sorted(int(p.parent.name + p.name, 16) for p in (root / LAYOUT).glob("files/*/*"))
    assert kept == list(range(40 - len(kept), 40))
    assert cache_size(root) <= 15 * 1024
    assert result.out.startswith(f"Removed {40 - len(kept)} entries, ")
    assert invoke(tmp_path, "cache", "clean", "--cache-dir", str(root)).code == 0
    assert not (root / LAYOUT).exists()  # the usage record is trainc's too


#: The warning of a run whose own entries are over the bound, its sizes left open.
OVER_BOUND = re.compile(
    r"trainc: warning: this run keeps \d+\.\d KiB in the cache, more than its bound of "
    r"64\.0 KiB \(TRAINC_CACHE_MAX_SIZE\): its entries stay, over the bound, so that the "
    r"next run can use them; set TRAINC_CACHE_MAX_SIZE=64Mi or more \(docs/cache\.md, "
    r'"Size bound"\)\n'
)


@pytest.mark.parametrize(("bound", "warned"), [("64Ki", True), ("64Mi", False)])
def test_a_bound_smaller_than_one_run_still_serves_the_next_run(
    invoke: Invoke,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bound: str,
    warned: bool,
) -> None:
    # A repository whose compile keeps more in the cache than the bound: the run used to
    # trim its own pack away, silently, and every later run judged everything again.
    repo = bench_repository(tmp_path / "repo", jobs=24, runtimes=3)
    cache = str(tmp_path / "cache")
    monkeypatch.setenv("TRAINC_CACHE_MAX_SIZE", bound)
    resolved: list[object] = []
    resolve_job = trainc.engine.job_pass.resolve_job  # type: ignore[attr-defined]

    def counted(*args: object, **kwargs: object) -> object:
        resolved.append(args)
        return resolve_job(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trainc.engine.job_pass, "resolve_job", counted)
    command = ("compile", "-o", "out", "--cache-dir", cache, "--jobs", "1")
    cold = invoke(repo, *command)
    assert cold.code == 0, cold.err
    assert len(resolved) == 24
    job = sorted(repo.glob("jobs/**/*.yaml"))[0]
    job.write_text(job.read_text() + "# edited\n")
    resolved.clear()

    warm = invoke(repo, *command)

    assert warm.code == 0, warm.err
    assert len(resolved) == 1
    for run in (cold, warm):  # once per run, after its summary
        said = [line for line in run.err.splitlines(keepends=True) if line.startswith("trainc:")]
        assert [bool(OVER_BOUND.fullmatch(line)) for line in said] == ([True] if warned else [])


@pytest.mark.parametrize("value", ["lots", "-1Gi", "0"])
def test_an_invalid_bound_is_a_usage_error(
    invoke: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("TRAINC_CACHE_MAX_SIZE", value)
    result = invoke(repo, "validate", "--cache-dir", str(repo / ".cache"))
    assert result.code == 2
    assert f"TRAINC_CACHE_MAX_SIZE={value!r} is not a size" in result.err
