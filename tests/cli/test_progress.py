"""The progress indicator: on a terminal's stderr only, never on stdout, erased when done."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import validate_paths
from trainc.cli.main import main
from trainc.cli.progress import ProgressLine, progress_line


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    for index in range(3):
        write(tmp_path, f"jobs/job-{index}.yaml", trainjob_yaml(f"job-{index}"))
    return tmp_path


def test_nothing_is_drawn_before_the_delay_then_at_most_once_per_interval() -> None:
    stream, clock = FakeTerminal(), Clock()
    line = ProgressLine(stream, "validating", delay=0.5, clock=clock)
    line(1, 10)
    assert stream.getvalue() == ""
    clock.now += 0.5
    line(2, 10)
    assert stream.getvalue() == "\rvalidating | 2/10"
    line(3, 10)
    assert stream.getvalue() == "\rvalidating | 2/10"
    clock.now += 0.1
    line(10, 100)
    assert stream.getvalue().endswith("\rvalidating / 10/100")


def test_erasing_blanks_the_longest_line_drawn_and_only_when_something_was() -> None:
    stream, clock = FakeTerminal(), Clock()
    line = ProgressLine(stream, "compiling", delay=0, clock=clock)
    line.erase()
    assert stream.getvalue() == ""
    line(100, 200)
    clock.now += 1
    line(200, 200)
    width = len("compiling | 100/200")
    assert stream.getvalue().endswith("\rcompiling / 200/200".ljust(width + 1))
    line.erase()
    assert stream.getvalue().endswith("\r" + " " * width + "\r")


@pytest.mark.parametrize(("stream", "enabled"), [(io.StringIO(), True), (FakeTerminal(), False)])
def test_no_hook_without_a_terminal_or_when_disabled(stream: io.StringIO, enabled: bool) -> None:
    with progress_line(stream, "validating", enabled=enabled) as hook:
        assert hook is None
    assert stream.getvalue() == ""


def _assert_counts_forward(calls: list[tuple[int, int]], *, total: int) -> None:
    assert calls
    assert all(done <= seen for done, seen in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert [seen for _, seen in calls] == sorted(seen for _, seen in calls)
    assert calls[-1] == (total, total)


def test_validation_counts_files_read_objects_checked_then_jobs_resolved(repo: Path) -> None:
    calls: list[tuple[int, int]] = []
    validate_paths([], cwd=repo, progress=lambda done, total: calls.append((done, total)))
    _assert_counts_forward(calls, total=4 + 4 + 3)


def test_compilation_also_counts_the_jobs_built(repo: Path) -> None:
    calls: list[tuple[int, int]] = []
    compile_collected([], cwd=repo, progress=lambda done, total: calls.append((done, total)))
    # Files read, objects checked, jobs resolved and built (rendering happens when the
    # caller asks): a compile counts what a validation counts.
    _assert_counts_forward(calls, total=4 + 4 + 3)


def _validate_in(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stderr: io.StringIO,
) -> str:
    monkeypatch.chdir(repo)
    monkeypatch.setattr(sys, "stderr", stderr)
    with pytest.raises(SystemExit) as exited:
        main(["validate"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_a_terminal_gets_the_indicator_on_stderr_and_stdout_is_unchanged(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("trainc.cli.progress.DELAY_SECONDS", 0)
    plain = io.StringIO()
    quiet_stdout = _validate_in(repo, monkeypatch, capsys, plain)
    terminal = FakeTerminal()
    drawn_stdout = _validate_in(repo, monkeypatch, capsys, terminal)
    assert plain.getvalue() == ""
    assert drawn_stdout == quiet_stdout
    assert "All checks passed" in drawn_stdout
    drawn = terminal.getvalue()
    assert drawn.startswith("\rvalidating | ")
    assert drawn.endswith(" \r")


def test_quiet_runs_draw_nothing_even_on_a_terminal(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("trainc.cli.progress.DELAY_SECONDS", 0)
    monkeypatch.chdir(repo)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with pytest.raises(SystemExit):
        main(["compile", "-q", "-o", "-"])
    assert capsys.readouterr().out.startswith("apiVersion:")
    assert "compiling" not in terminal.getvalue()
