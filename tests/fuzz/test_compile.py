"""Compiling generated repositories: valid output, or findings and no output at all."""

from __future__ import annotations

from hypothesis import given

from tests.fuzz.harness import assert_located, assert_one_verdict, assert_valid_output, written
from tests.fuzz.strategies import Repo, mutated_repositories, valid_repositories
from tests.support.compiled import Compiled, compile_collected
from trainc.app import validate_paths
from trainc.config.read import load_config


def _compiled(repo: Repo) -> Compiled:
    """``repo`` compiled: findings are located, validation gives the same verdict, and
    there is output exactly when no error."""
    with written(repo) as root:
        report = compile_collected([], cwd=root)
        validation = validate_paths([], cwd=root)
        config = load_config(cwd=root).config
    assert_located(report.diagnostics, repo.files)
    assert_one_verdict(validation.diagnostics, report)
    if report.exit_code:
        assert (report.jobs, report.shared, report.files) == ((), (), {})
    else:
        assert config is not None
        assert_valid_output(report, kubernetes_version=config.kubernetes_version)
    return report


@given(mutated_repositories())
def test_any_repository_compiles_to_valid_output_or_located_findings(repo: Repo) -> None:
    _compiled(repo)


@given(valid_repositories())
def test_valid_repositories_stay_valid_and_compile_to_valid_output(repo: Repo) -> None:
    report = _compiled(repo)
    assert report.exit_code == 0, [d for d in report.diagnostics if d.is_error]
    assert report.jobs
