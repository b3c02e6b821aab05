"""Argo CD's refresh of an unchanged repository: ``trainc compile -o -`` answers from the
stat index with the stream a clean compile kept, byte for byte, without loading a file."""

from __future__ import annotations

from pathlib import Path

import pytest

import trainc.engine.compile
import trainc.engine.repository
from tests.cli.conftest import Invoke, Outcome
from tests.support.manifests import trainjob_yaml, write
from trainc.cache import stat_index

#: The generate command of deploy/argocd/plugin.yaml.
GENERATE = ("compile", "-o", "-")


@pytest.fixture
def argocd(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The sidecar's environment (deploy/argocd/repo-server-patch.yaml) and an
    Application's; a repository that compiles without a finding, on a file system whose
    timestamps are exact (so the stat index trusts a file written before a run began)."""
    monkeypatch.setattr(stat_index, "GRANULARITY_NS", 0)
    monkeypatch.delenv("TRAINC_NO_CACHE", raising=False)
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(tmp_path_factory.mktemp("cache") / "trainc"))
    monkeypatch.setenv("ARGOCD_APP_NAME", "training")
    monkeypatch.setenv("ARGOCD_APP_NAMESPACE", "team-a")
    write(repo, "jobs/a.yaml", trainjob_yaml("alpha"))
    return repo


@pytest.fixture
def full_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the compiles that validate the repository rather than answer from the index."""
    runs: list[int] = []
    validate_with = trainc.engine.repository.validate_with

    def counted(*args: object, **kwargs: object) -> object:
        runs.append(1)
        return validate_with(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trainc.engine.compile, "validate_with", counted)
    return runs


def _generate(invoke: Invoke, repo: Path, full_runs: list[int]) -> tuple[Outcome, int]:
    before = len(full_runs)
    outcome = invoke(repo, *GENERATE)
    assert outcome.code == 0, outcome.err
    return outcome, len(full_runs) - before


def test_an_unchanged_repository_is_answered_from_the_index(
    invoke: Invoke, argocd: Path, full_runs: list[int]
) -> None:
    uncached = invoke(argocd, *GENERATE, "--no-cache")
    first, made = _generate(invoke, argocd, full_runs)
    assert made == 1
    again, made = _generate(invoke, argocd, full_runs)
    assert made == 0
    assert again == first == uncached  # the stream and the report, byte for byte
    assert "kind: JobSet" in again.out


@pytest.mark.parametrize(
    "change",
    [
        lambda repo: write(repo, "jobs/a.yaml", trainjob_yaml("alpha", namespace="team-b")),
        lambda repo: write(repo, "jobs/b.yaml", trainjob_yaml("beta")),
        lambda repo: (repo / "jobs" / "a.yaml").unlink(),
        lambda repo: write(repo, "trainc.yaml", "kubernetesVersion: '1.33'\n"),
        lambda repo: write(repo, "policies/deadline.yaml", _POLICY),
    ],
    ids=["input-edited", "input-added", "input-removed", "config-written", "policy-added"],
)
def test_any_change_makes_a_full_compile(
    invoke: Invoke, argocd: Path, full_runs: list[int], change: object
) -> None:
    _generate(invoke, argocd, full_runs)
    change(argocd)  # type: ignore[operator]
    changed, made = _generate(invoke, argocd, full_runs)
    assert made == 1
    assert changed == invoke(argocd, *GENERATE, "--no-cache")
    again, made = _generate(invoke, argocd, full_runs)
    assert (again, made) == (changed, 0)


def test_a_compile_with_findings_keeps_no_answer(
    invoke: Invoke, argocd: Path, full_runs: list[int]
) -> None:
    """A warning has lines to quote: each refresh reports it from a full compile."""
    write(argocd, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))  # and no sweeper
    first = invoke(argocd, *GENERATE)
    second = invoke(argocd, *GENERATE)
    assert first == second
    assert first.err
    assert len(full_runs) == 2


_POLICY = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: has-runtime
spec:
  validations:
    - expression: "has(object.spec.runtimeRef)"
      message: "every TrainJob names its runtime"
  validationActions:
    - Warn
"""
