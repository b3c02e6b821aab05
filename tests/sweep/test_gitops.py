"""GitOps self-heal against the sweeper: a timed-out or expired training never starts again.

The compiled manifests are applied to the fake API server as Argo CD would, the JobSet and
Job controllers are played by small functions that follow their upstream rules, and after
each sweep the manifests are applied again exactly as selfHeal does (spec and metadata
from git, status kept). The sweeper must never change or delete what git declares
(https://github.com/argoproj/argo-cd/issues/8586), the JobSet must stay terminal, and the
next sweep must be a no-op.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.support.cluster import FakeClock, at, condition, sweep_client
from tests.support.compiled import compile_collected
from tests.support.fakeapi import (
    COSCHEDULING_PODGROUPS,
    JOBS,
    JOBSETS,
    FakeApiServer,
    Obj,
    rfc3339,
)
from trainc.sweep.parse import parse_time
from trainc.sweep.sweep_pass import ActionRecord, sweep

NS = "team-a"
CONFIG = "apiVersion: trainc.dev/v1alpha1\nkind: Config\nnamespace: team-a\n"
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  ttlSecondsAfterFinished: 3600
  mlPolicy:
    numNodes: 2
    torch: {}
  podGroupPolicy:
    coscheduling:
      scheduleTimeoutSeconds: 120
  template:
    spec:
      failurePolicy:
        maxRestarts: 3
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  schedulerName: scheduler-plugins-scheduler
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.13.0
"""
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama
spec:
  activeDeadlineSeconds: 3600
  runtimeRef:
    name: torch
"""
#: When the sweeps run, in seconds after the JobSet was applied.
PAST_DEADLINE = 4000
DEADLINE_FAILED = 4010  # the Job and JobSet controllers react
PAST_TTL = DEADLINE_FAILED + 3600


@pytest.fixture
def manifests(tmp_path: Path) -> list[Obj]:
    """What ``trainc compile`` puts in git for the repository above."""
    for name, text in {
        "trainc.yaml": CONFIG,
        "runtimes/torch.yaml": RUNTIME,
        "jobs/llama.yaml": TRAINJOB,
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = compile_collected([], cwd=tmp_path)
    assert report.exit_code == 0, report.diagnostics
    objects: list[Obj] = list(YAML(typ="safe").load_all(report.stream))
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("PodGroup", "llama"),
        ("JobSet", "llama"),
    ]
    return objects


@pytest.fixture
def cluster(manifests: list[Obj]) -> Iterator[FakeApiServer]:
    """The manifests applied at ``at(0)``, the JobSet running its Jobs since ``at(30)``."""
    with FakeApiServer(now=at(0)) as api:
        sync(api, manifests)
        jobset = api.get(JOBSETS, NS, "llama")
        assert jobset is not None
        for replicated in jobset["spec"]["replicatedJobs"]:
            api.put(child_job(jobset, replicated, started=30))
        api.update(JOBSETS, NS, "llama", lambda o: o.update(status={"restarts": 0}))
        yield api


def sync(api: FakeApiServer, manifests: list[Obj]) -> None:
    """Argo CD selfHeal: apply every manifest from git (spec and metadata; status kept)."""
    for obj in manifests:
        api.apply(copy.deepcopy(obj))


def child_job(jobset: Obj, replicated: Obj, *, started: float) -> Obj:
    """The Job the JobSet controller creates from a replicatedJob's template."""
    template = replicated["template"]
    labels = {
        **template["metadata"].get("labels", {}),
        "jobset.sigs.k8s.io/jobset-name": jobset["metadata"]["name"],
        "jobset.sigs.k8s.io/replicatedjob-name": replicated["name"],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": f"{jobset['metadata']['name']}-{replicated['name']}-0",
            "namespace": NS,
            "labels": labels,
            "ownerReferences": [{"kind": "JobSet", "uid": jobset["metadata"]["uid"]}],
        },
        "spec": copy.deepcopy(template["spec"]),
        "status": {"startTime": rfc3339(at(started)), "active": 2, "ready": 2},
    }


def job_controller(api: FakeApiServer, now: float) -> None:
    """Fail every running Job whose ``activeDeadlineSeconds`` has run out (job_controller.go)."""
    for job in api.all(JOBS):
        deadline = job["spec"].get("activeDeadlineSeconds")
        started = job["status"].get("startTime")
        if deadline is None or started is None or job["status"].get("conditions"):
            continue
        if (at(now) - parse_time(started)).total_seconds() >= deadline:
            failed = [condition("Failed", "True", now, "DeadlineExceeded")]
            status: Obj = {"conditions": failed, "active": 0, "ready": 0, "failed": 2}
            api.update(JOBS, NS, job["metadata"]["name"], partial(_set_status, status=status))


def _set_status(obj: Obj, *, status: Obj) -> None:
    obj["status"] = status


def jobset_controller(api: FakeApiServer, now: float) -> None:
    """Apply the failure policy to a failed Job: the first matching rule wins (failure_policy.go).

    Without a matching rule a JobSet with restarts left would restart: its Jobs deleted
    and made again, i.e. the training would run again.
    """
    jobset = api.get(JOBSETS, NS, "llama")
    assert jobset is not None
    if any(c["status"] == "True" for c in jobset["status"].get("conditions", [])):
        return  # terminal: the controller leaves it and its Jobs alone
    reasons = {
        c["reason"]
        for job in api.all(JOBS)
        for c in job["status"].get("conditions", [])
        if c["type"] == "Failed"
    }
    if not reasons:
        return
    rules = jobset["spec"]["failurePolicy"]["rules"]
    action = next(
        (r["action"] for r in rules if set(r.get("onJobFailureReasons", [])) & reasons),
        "RestartJobSet",
    )
    assert action == "FailJobSet", f"the JobSet would {action}: the training would run again"
    failed = condition("Failed", "True", now, "FailedJobs")
    api.update(
        JOBSETS,
        NS,
        "llama",
        lambda o: o["status"].update(conditions=[failed], terminalState="Failed"),
    )


def sweep_at(api: FakeApiServer, seconds: float) -> list[ActionRecord]:
    client = sweep_client(api, clock=FakeClock())
    return list(sweep(client, namespaces=(NS,), now=at(seconds), dry_run=False))


def git_declared(api: FakeApiServer) -> dict[str, Any]:
    """What git declares, as live in the cluster: spec, and metadata but its version.

    The resourceVersion moves with every status update the controllers write; uid and
    creationTimestamp stay in, so a deleted and re-created object shows.
    """
    declared: dict[str, Any] = {}
    for resource in (JOBSETS, COSCHEDULING_PODGROUPS):
        obj = api.get(resource, NS, "llama")
        assert obj is not None, f"the sweeper deleted the {resource.kind}"
        metadata = {k: v for k, v in obj["metadata"].items() if k != "resourceVersion"}
        declared[resource.kind] = {"metadata": metadata, "spec": obj["spec"]}
    return declared


def versions(api: FakeApiServer) -> list[str]:
    """resourceVersions of the git-declared objects: a sync that changes nothing keeps them."""
    return [
        api.get(resource, NS, "llama")["metadata"]["resourceVersion"]  # type: ignore[index]
        for resource in (JOBSETS, COSCHEDULING_PODGROUPS)
    ]


def writes_to_git_objects(api: FakeApiServer) -> list[str]:
    return [
        f"{r.method} {r.path}"
        for r in api.requests
        if r.method in ("PATCH", "DELETE", "PUT")
        and ("/jobsets" in r.path or "/podgroups" in r.path)
    ]


def test_a_timed_out_training_does_not_start_again_after_self_heal(
    cluster: FakeApiServer, manifests: list[Obj]
) -> None:
    api = cluster
    declared = git_declared(api)
    jobs = {j["metadata"]["name"]: j["metadata"]["uid"] for j in api.all(JOBS)}

    (record,) = [r for r in sweep_at(api, PAST_DEADLINE) if r.action != "Note"]
    assert (record.action, record.reason, record.outcome) == (
        "FailJobs",
        "DeadlineExceeded",
        "done",
    )
    assert git_declared(api) == declared

    job_controller(api, DEADLINE_FAILED)
    jobset_controller(api, DEADLINE_FAILED)
    synced = versions(api)
    sync(api, manifests)

    assert versions(api) == synced  # git and the cluster agree: selfHeal has nothing to revert
    assert git_declared(api) == declared
    jobset = api.get(JOBSETS, NS, "llama")
    assert jobset is not None
    assert jobset["status"]["terminalState"] == "Failed"
    jobset_controller(api, DEADLINE_FAILED + 60)  # a terminal JobSet starts nothing
    assert {j["metadata"]["name"]: j["metadata"]["uid"] for j in api.all(JOBS)} == jobs
    failed = {c["reason"] for j in api.all(JOBS) for c in j["status"]["conditions"]}
    assert failed == {"DeadlineExceeded"}

    api.clear_log()
    again = sweep_at(api, PAST_DEADLINE + 100)
    assert [r.action for r in again] == ["Note"]  # the TTL's wait, nothing to do
    assert [r.method for r in api.requests] == ["GET"] * 6  # the lists, no write at all
    assert writes_to_git_objects(api) == []


def test_after_the_ttl_the_jobs_go_and_the_jobset_stays_terminal(
    cluster: FakeApiServer, manifests: list[Obj]
) -> None:
    api = cluster
    sweep_at(api, PAST_DEADLINE)
    job_controller(api, DEADLINE_FAILED)
    jobset_controller(api, DEADLINE_FAILED)
    declared = git_declared(api)

    (record,) = sweep_at(api, PAST_TTL)

    assert (record.action, record.reason, record.outcome) == ("DeleteJobs", "TTLExpired", "done")
    assert "remove jobs/llama.yaml from git" in record.message
    assert api.all(JOBS) == []
    synced = versions(api)
    sync(api, manifests)
    assert versions(api) == synced
    jobset_controller(api, PAST_TTL + 1)
    assert git_declared(api) == declared
    assert api.all(JOBS) == []  # nothing runs again
    assert api.get(JOBSETS, NS, "llama")["status"]["terminalState"] == "Failed"  # type: ignore[index]

    api.clear_log()
    assert sweep_at(api, PAST_TTL + 300) == []
    assert {r.method for r in api.requests} == {"GET"}
    assert writes_to_git_objects(api) == []
