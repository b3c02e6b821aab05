"""What the tests of cached runs start from: a store, and a generated repository."""

from __future__ import annotations

from pathlib import Path

from bench.generate import generate
from trainc.cache.store import Store


def open_store(directory: Path) -> Store:
    """The cache store under ``directory``, which the test can always open."""
    opened = Store.open(directory)
    assert isinstance(opened, Store), opened
    return opened


def bench_repository(
    root: Path, *, jobs: int, runtimes: int, namespaces: int = 2, seed: int = 0
) -> Path:
    """A repository as the bench generates one, under ``root``, taken for a git work tree
    (a ``.git`` directory) so that runs read it as a whole repository."""
    generate(root, jobs=jobs, runtimes=runtimes, namespaces=namespaces, seed=seed)
    (root / ".git").mkdir()
    return root
