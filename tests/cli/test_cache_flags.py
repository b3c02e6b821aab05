"""``--cache-dir`` and ``--no-cache``: where results are kept, and a cache that cannot be
used costs a warning, never the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Invoke
from trainc.cache.store import LAYOUT
from trainc.engine import file_pass


def _entries(cache: Path) -> list[Path]:
    return sorted(path for path in (cache / LAYOUT).rglob("*") if path.is_file())


@pytest.mark.parametrize("command", [("validate",), ("compile", "-o", "-")])
def test_a_run_keeps_its_results_where_it_is_told(
    repo: Path, tmp_path: Path, invoke: Invoke, command: tuple[str, ...]
) -> None:
    cache = tmp_path / "cache"
    plain = invoke(repo, *command)
    cold = invoke(repo, *command, "--cache-dir", str(cache))
    entries = _entries(cache)
    warm = invoke(repo, *command, "--cache-dir", str(cache))

    assert plain.code == 0
    assert cold == warm == plain
    assert entries  # the files and the TrainJob
    assert _entries(cache) == entries  # nothing new: every result came from the cache


def test_the_environment_names_the_cache_and_no_cache_wins(
    repo: Path, tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAINC_NO_CACHE")
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(tmp_path / "from-env"))
    assert invoke(repo, "validate", "--no-cache").code == 0
    assert not (tmp_path / "from-env").exists()
    assert invoke(repo, "validate").code == 0
    assert _entries(tmp_path / "from-env")


def test_a_cache_that_cannot_be_used_is_said_and_the_run_goes_on(
    repo: Path, tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    plain = invoke(repo, "compile", "-o", "-")
    monkeypatch.delenv("TRAINC_NO_CACHE")
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(blocked))
    outcome = invoke(repo, "compile", "-o", "-")

    assert (outcome.code, outcome.out) == (plain.code, plain.out)
    assert f"cannot use the cache directory {blocked}" in outcome.err
    assert "running without a cache" in outcome.err


def test_a_cache_dir_flag_naming_a_file_is_a_usage_error(
    repo: Path, tmp_path: Path, invoke: Invoke
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    outcome = invoke(repo, "validate", "--cache-dir", str(blocked))

    assert outcome.code == 2
    assert "--cache-dir" in outcome.err


def test_a_run_without_a_cache_checks_each_file_once(
    repo: Path, tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole TrainJobs come back from the run's spill file when they are judged: no
    file is checked a second time, as it would be if the run had kept nothing of it."""
    checked: list[str] = []
    check_file = file_pass.check_file

    def counted(path: str, *args: Any) -> file_pass.CheckedFile:
        checked.append(path)
        return check_file(path, *args)

    monkeypatch.setattr(file_pass, "check_file", counted)
    outcome = invoke(repo, "compile", "-q", "-o", str(tmp_path / "out"), "--no-cache")
    assert outcome.code == 0, outcome.err
    assert any(path.startswith("jobs/") for path in checked)
    assert sorted(checked) == sorted(set(checked))
