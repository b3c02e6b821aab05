"""Running the command line in process, where a test can make system calls fail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.cli.main import main


class Outcome(NamedTuple):
    """What a command did: its exit code and both streams."""

    code: int
    out: str
    err: str


Invoke = Callable[..., Outcome]


@pytest.fixture
def invoke(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Invoke:
    """``invoke(cwd, *args)``: ``trainc ARGS`` run in ``cwd`` as the console script runs it."""

    def call(cwd: Path, *args: str) -> Outcome:
        monkeypatch.chdir(cwd)
        with pytest.raises(SystemExit) as exited:
            main(list(args))
        captured = capsys.readouterr()
        assert isinstance(exited.value.code, int)
        return Outcome(exited.value.code, captured.out, captured.err)

    return call


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (``.git``) with a runtime and one TrainJob that sets a deadline."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))
    return tmp_path
