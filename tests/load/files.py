"""Helpers for loader tests: writing repository files and a config rooted at them."""

from __future__ import annotations

import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from trainc.config.limits import InputLimits
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load import reader, seen
from trainc.model.json import JsonObject

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team
spec:
  runtimeRef:
    name: torch
"""


def write(root: Path, path: str, content: str | bytes) -> Path:
    """Create ``root/path`` (and its directories) with the given text or bytes."""
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        file.write_bytes(content)
    else:
        file.write_text(content, encoding="utf-8")
    return file


def config(
    root: Path,
    *,
    include: tuple[str, ...] | None = None,
    exclude: tuple[str, ...] = (),
    values: JsonObject | None = None,
    limits: InputLimits | None = None,
) -> RepoConfig:
    """A RepoConfig for a test repository (defaults as in trainc.yaml)."""
    base = RepoConfig(root=root)
    return RepoConfig(
        root=root,
        include=include or base.include,
        exclude=exclude,
        template_values=values or {},
        limits=limits or InputLimits(),
    )


class IndexReads:
    """Spies on the reads of an index module (:mod:`trainc.load.runtime_files`,
    :mod:`trainc.load.named_files`), and moves the clock of the moment a run begins
    stat-ing (:class:`~trainc.load.seen.Seen`), which the index judges racy stamps by."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        self.paths: list[str] = []
        self.later_ns = 0
        real_read = reader.read_input

        def read(root: Path, path: str, limits: InputLimits) -> bytes | Diagnostic:
            self.paths.append(path)
            return real_read(root, path, limits)

        monkeypatch.setattr(module, "read_input", read)
        clock = SimpleNamespace(time_ns=lambda: time.time_ns() + self.later_ns)
        monkeypatch.setattr(seen, "time", clock)

    def take(self) -> list[str]:
        """The paths read since the last call, in order."""
        taken, self.paths = self.paths, []
        return taken


def calls_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[object, ...]]:
    """The positional arguments of each call of ``owner.name`` from now on, which still
    does its work."""
    calls: list[tuple[object, ...]] = []
    real = getattr(owner, name)

    def spy(*args: object, **keywords: object) -> object:
        calls.append(args)
        return real(*args, **keywords)

    monkeypatch.setattr(owner, name, spy)
    return calls
