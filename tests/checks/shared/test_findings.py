"""How a finding names the objects it is about, whichever family reports it."""

from __future__ import annotations

from trainc.checks.shared.findings import created_from


def test_one_replicated_job_is_named_alone() -> None:
    assert created_from(("Job", "Jobs"), ["node"], "the JobSet controller") == (
        "the Job of replicatedJob 'node', created by the JobSet controller"
    )


def test_several_are_listed_once_each_with_and_before_the_last() -> None:
    named = created_from(
        ("pods", "pods"), ["launcher", "node", "node", "worker"], "the Job controller"
    )
    assert named == (
        "the pods of replicatedJobs 'launcher', 'node' and 'worker', created by the Job controller"
    )
