"""Re-runs after random edit sequences report and write what a run without the cache does.

A small repository is edited step by step as people edit one: a TrainJob's deadline
changed (or past what the policies allow), a file removed, moved, or copied so that two
TrainJobs clash, a runtime, a policy or trainc.yaml changed. After each step a compile
into a directory and a validation, both with the cache the earlier steps left, must
give the findings, the exit code and the tree (byte for byte) of the same commands
without a cache. Timestamps count as fine-grained (:data:`GRANULARITY_NS` patched, a
pause before each run), so unchanged files are taken from the stat index and unchanged
output files linked on the tree record's word: the paths a warm re-run takes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cached import bench_repository, open_store
from trainc.app import CompileReport, ValidationReport, compile_paths, validate_paths
from trainc.cache import stat_index
from trainc.cache.store import Store
from trainc.emit.sinks import DirectoryOutput

JOBS = 5
_GRANULARITY_NS = 50_000_000
_DEADLINE = re.compile(r"activeDeadlineSeconds: (\d+)")

EDITS = ("deadline", "too long", "delete", "move", "clash", "runtime", "policy", "settings")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_repository(tmp_path_factory.mktemp("template") / "repo", jobs=JOBS, runtimes=2)


def _jobs(repo: Path) -> list[Path]:
    return sorted(path for path in repo.glob("jobs/**/*.yaml") if path.is_file())


def _replace(path: Path, pattern: str, replacement: str) -> None:
    path.write_text(re.sub(pattern, replacement, path.read_text(), count=1))


def _edit(repo: Path, edit: str, pick: int, step: int) -> None:
    """Apply ``edit`` to the ``pick``-th TrainJob (or the one thing it changes)."""
    jobs = _jobs(repo)
    job = jobs[pick % len(jobs)] if jobs else None
    if edit in ("deadline", "too long") and job is not None:
        seconds = 3600 + step if edit == "deadline" else 10_000_000 + step
        _replace(job, _DEADLINE.pattern, f"activeDeadlineSeconds: {seconds}")
    elif edit == "delete" and job is not None:
        job.unlink()
    elif edit == "move" and job is not None:
        moved = repo / "jobs" / "moved" / f"step-{step}-{job.name}"
        moved.parent.mkdir(parents=True, exist_ok=True)
        job.rename(moved)
    elif edit == "clash" and job is not None:
        shutil.copyfile(job, repo / "jobs" / f"copy-{step}-{job.name}")
    elif edit == "runtime":
        runtime = sorted(repo.glob("runtimes/**/*.yaml"))[pick % 2]
        _replace(runtime, r"ttlSecondsAfterFinished: \d+", f"ttlSecondsAfterFinished: {600 + step}")
    elif edit == "policy":
        labels = ("team", "project", "owner")
        _replace(
            repo / "policies" / "team-label.yaml",
            r"'\w+' in object\.metadata\.labels",
            f"'{labels[step % 3]}' in object.metadata.labels",
        )
    elif edit == "settings":
        _replace(repo / "trainc.yaml", r"maxSeconds: \d+", f"maxSeconds: {(step % 3 + 1) * 86400}")


def _findings(report: CompileReport | ValidationReport) -> list[str]:
    return [repr(diagnostic) for diagnostic in report.diagnostics]


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def _compile(repo: Path, out: Path, store: Store | None) -> tuple[int, list[str]]:
    report = compile_paths([], cwd=repo, sink=DirectoryOutput(out, [], store), cache=store, jobs=1)
    return report.exit_code, _findings(report)


@settings(max_examples=6, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(EDITS), st.integers(min_value=0, max_value=JOBS)),
        min_size=1,
        max_size=4,
    )
)
def test_warm_re_runs_after_random_edits_match_runs_without_the_cache(
    template: Path, steps: list[tuple[str, int]]
) -> None:
    with tempfile.TemporaryDirectory() as scratch, pytest.MonkeyPatch.context() as patch:
        patch.setattr(stat_index, "GRANULARITY_NS", _GRANULARITY_NS)
        work = Path(scratch)
        repo = work / "repo"
        subprocess.run(["cp", "-a", str(template), str(repo)], check=True)
        store = open_store(work / "cache")
        warm_out, plain_out = work / "warm", work / "plain"
        _compile(repo, warm_out, store)
        _compile(repo, plain_out, None)
        for step, (edit, pick) in enumerate(steps):
            _edit(repo, edit, pick, step)
            time.sleep(1.2 * _GRANULARITY_NS / 1e9)  # the edit is older than a tick
            warm = _compile(repo, warm_out, store)
            plain = _compile(repo, plain_out, None)
            assert warm == plain, (steps[: step + 1], warm, plain)
            assert _tree(warm_out) == _tree(plain_out), steps[: step + 1]
            validated = validate_paths([], cwd=repo, cache=store, jobs=1)
            unvalidated = validate_paths([], cwd=repo, cache=None, jobs=1)
            assert _findings(validated) == _findings(unvalidated), steps[: step + 1]
            assert validated.exit_code == unvalidated.exit_code
