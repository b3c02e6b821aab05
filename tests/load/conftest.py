"""Fixtures of the loader's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainc.cache.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """An empty cache store, for the indexes that spare a run reading unchanged files."""
    opened = Store.open(tmp_path / "cache")
    assert isinstance(opened, Store)
    return opened
