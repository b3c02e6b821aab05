"""The cache over generated repositories: whatever it holds, a run reports and compiles
exactly what a run without it does."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import written
from tests.fuzz.strategies import Repo, mutated_repositories, valid_repositories
from tests.load.files import write
from tests.support.compiled import compile_collected
from trainc.app import validate_paths
from trainc.cache.store import Store


def _outcomes(root: Path, store: Store | None) -> tuple[object, ...]:
    validation = validate_paths([], cwd=root, cache=store)
    compiled = compile_collected([], cwd=root, cache=store)
    return validation.diagnostics, compiled.diagnostics, compiled.files, compiled.stream


@given(mutated_repositories(), st.data())
def test_a_cache_filled_by_another_revision_changes_nothing(
    first: Repo, data: st.DataObject
) -> None:
    """The cache is filled from one repository, then the files of another edit of the
    same seed replace it (edits, additions, deletions of every kind): the second
    repository's run, cold or warm, is its run without a cache."""
    _assert_cache_changes_nothing(first, data.draw(mutated_repositories(first.seed)))


@given(valid_repositories(), st.data())
def test_a_cache_filled_by_another_valid_revision_changes_no_byte(
    first: Repo, data: st.DataObject
) -> None:
    """As above, between valid edits of one seed: the output itself changes (labels,
    environment, arguments), so every output byte the cache gives is checked."""
    _assert_cache_changes_nothing(first, data.draw(valid_repositories(first.seed)))


def _assert_cache_changes_nothing(first: Repo, second: Repo) -> None:
    with tempfile.TemporaryDirectory(prefix="trainc-fuzz-cache-") as directory:
        store = Store.open(Path(directory))
        assert isinstance(store, Store), store
        with written(first) as root:
            plain_first = _outcomes(root, None)
            assert _outcomes(root, store) == plain_first
            assert _outcomes(root, store) == plain_first
            for entry in root.iterdir():
                if entry.is_dir() and entry.name != ".git":
                    shutil.rmtree(entry)
                elif not entry.is_dir():
                    entry.unlink()
            for path, content in second.files.items():
                write(root, path, content)
            plain_second = _outcomes(root, None)
            assert _outcomes(root, store) == plain_second
            assert _outcomes(root, store) == plain_second
