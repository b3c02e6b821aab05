"""What ``trainc compile`` writes for the Kueue cases of the corpus (tests/cases/kueue)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.compiled import Compiled, compile_collected
from trainc.model.labels import (
    KUEUE_MAX_EXEC_TIME,
    KUEUE_PRIORITY_CLASS,
    KUEUE_QUEUE_NAME,
    MULTIKUEUE_MANAGED_BY,
)

CASES = Path(__file__).parents[1] / "cases" / "kueue"


def _compile(case: str, tmp_path: Path) -> Compiled:
    root = tmp_path / "repo"
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("expect.yaml"))
    (root / ".git").mkdir()
    return compile_collected([], cwd=root)


def _jobset(compiled: Compiled) -> dict[str, Any]:
    assert compiled.exit_code == 0
    (job,) = compiled.jobs
    (jobset,) = [obj for obj in job.objects if obj.get("kind") == "JobSet"]
    return jobset


def test_a_queued_job_carries_kueues_labels_and_no_suspend(tmp_path: Path) -> None:
    jobset = _jobset(_compile("valid/suspend-in-git", tmp_path))
    labels = jobset["metadata"]["labels"]
    assert labels[KUEUE_QUEUE_NAME] == "team-a-gpu"
    assert labels[KUEUE_PRIORITY_CLASS] == "high"
    assert labels[KUEUE_MAX_EXEC_TIME] == "7200"
    assert "suspend" not in jobset["spec"]
    assert "managedBy" not in jobset["spec"]


def test_a_multikueue_job_is_handed_to_multikueue_with_its_queue(tmp_path: Path) -> None:
    jobset = _jobset(_compile("valid/multikueue-without-queue", tmp_path))
    assert jobset["spec"]["managedBy"] == MULTIKUEUE_MANAGED_BY
    assert jobset["metadata"]["labels"][KUEUE_QUEUE_NAME] == "multi-cluster"
    assert "suspend" not in jobset["spec"]


def test_the_max_exec_time_label_is_carried(tmp_path: Path) -> None:
    jobset = _jobset(_compile("valid/max-exec-time", tmp_path))
    assert jobset["metadata"]["labels"][KUEUE_MAX_EXEC_TIME] == "3600"


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("invalid/suspend-in-git", "kueue.suspend-in-git"),
        ("invalid/multikueue-without-queue", "kueue.multikueue-without-queue"),
        ("invalid/queue-name", "kueue.queue-name"),
        ("invalid/max-exec-time", "kueue.max-exec-time"),
    ],
)
def test_what_never_works_is_not_compiled(case: str, code: str, tmp_path: Path) -> None:
    compiled = _compile(case, tmp_path)
    assert compiled.exit_code == 1
    assert [d.code for d in compiled.diagnostics if d.is_error] == [code]
    assert compiled.jobs == ()
