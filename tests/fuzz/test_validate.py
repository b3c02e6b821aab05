"""Validating mutated repositories: findings at a line, never an exception."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_located, written
from tests.fuzz.strategies import Repo, mutated_repositories
from trainc.app import validate_paths


@given(mutated_repositories(), st.data())
def test_any_repository_validates_to_located_findings(repo: Repo, data: st.DataObject) -> None:
    """The whole repository, or a few named files of it as pre-commit passes them."""
    named = data.draw(st.lists(st.sampled_from(sorted(repo.files)), max_size=2, unique=True))
    with written(repo) as root:
        report = validate_paths([root / path for path in named], cwd=root)
    assert_located(report.diagnostics, repo.files)
    assert report.exit_code == (1 if any(d.is_error for d in report.diagnostics) else 0)
    assert all(path in repo.files or path.startswith("<builtin>/") for path in report.sources)
