"""Sweep passes end to end: the real decision, the real client, the fake API server."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from tests.support.cluster import (
    NS,
    FakeClock,
    at,
    condition,
    live_companion,
    live_job,
    live_jobset,
    sweep_client,
    ttl_wave,
)
from tests.support.fakeapi import (
    CONFIGMAPS,
    COSCHEDULING_PODGROUPS,
    EVENTS,
    JOBS,
    JOBSETS,
    PVCS,
    FakeApiServer,
    Obj,
)
from trainc.errors import UsageError
from trainc.sweep.calls import SweepLimits
from trainc.sweep.sweep_pass import ActionRecord, Outcome, sweep

DEADLINE = {"trainc.dev/active-deadline-seconds": "600"}
TTL = {"trainc.dev/ttl-seconds-after-finished": "60"}
JOB_PATH = f"/apis/batch/v1/namespaces/{NS}/jobs"
JOBSET_PATH = f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets"
NOW = at(1000)


def run(
    api: FakeApiServer,
    clock: FakeClock,
    *,
    now: datetime = NOW,
    dry_run: bool = False,
    limits: SweepLimits | None = None,
) -> list[ActionRecord]:
    client = sweep_client(api, clock=clock, **({"limits": limits} if limits else {}))
    return list(sweep(client, namespaces=(NS,), now=now, dry_run=dry_run))


def changes(records: list[ActionRecord]) -> list[ActionRecord]:
    return [r for r in records if r.action != "Note"]


def writes(api: FakeApiServer) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in api.requests if r.method != "GET"]


def running(name: str = "llama", **annotations: str) -> tuple[Obj, Obj]:
    """A running JobSet created at 0 with one Job started at 10."""
    return live_jobset(name, annotations={**DEADLINE, **annotations}), live_job(name, started=10)


def finished(name: str = "llama", *, at_seconds: float = 100) -> tuple[Obj, Obj, Obj]:
    """A JobSet that completed at ``at_seconds`` with a TTL of 60s, and its two Jobs."""
    done = [condition("Completed", "True", at_seconds, "AllJobsCompleted")]
    complete = [condition("Complete", "True", at_seconds)]
    return (
        live_jobset(name, annotations=TTL, conditions=done),
        live_job(name, "node", conditions=complete),
        live_job(name, "launcher", conditions=complete),
    )


def put(api: FakeApiServer, *objects: Obj) -> None:
    for obj in objects:
        api.put(obj)


# --------------------------------------------------------------------------- deadline


def test_an_expired_deadline_fails_the_jobs_and_never_touches_the_jobset(
    api: FakeApiServer, clock: FakeClock
) -> None:
    jobset, job = running()
    done = live_job("llama", "init", started=5, conditions=[condition("Complete", "True", 50)])
    put(api, jobset, job, done)
    before = api.get(JOBSETS, NS, "llama")

    (record,) = run(api, clock)

    assert (record.action, record.reason, record.outcome) == (
        "FailJobs",
        "DeadlineExceeded",
        "done",
    )
    assert (record.namespace, record.subject, record.dry_run, record.error) == (
        NS,
        "JobSet/llama",
        False,
        None,
    )
    assert record.timestamp == NOW
    assert api.get(JOBS, NS, "llama-node-0")["spec"]["activeDeadlineSeconds"] == 990  # type: ignore[index]
    assert "activeDeadlineSeconds" not in api.get(JOBS, NS, "llama-init-0")["spec"]  # type: ignore[index]
    assert api.get(JOBSETS, NS, "llama") == before
    (event,) = api.all(EVENTS)
    assert (event["reason"], event["type"]) == ("DeadlineExceeded", "Warning")
    assert event["involvedObject"]["name"] == "llama"
    assert writes(api) == [
        ("PATCH", f"{JOB_PATH}/llama-node-0"),
        ("POST", f"/api/v1/namespaces/{NS}/events"),
    ]
    # The Job controller has not caught up yet, and a second pass is a quiet no-op.
    api.clear_log()
    assert run(api, clock, now=NOW + timedelta(seconds=30)) == []
    assert writes(api) == []


@pytest.mark.parametrize(("suspend", "actions"), [(False, ["FailJobs"]), (True, [])])
def test_only_a_jobset_kueue_holds_suspended_is_spared_its_deadline(
    api: FakeApiServer, clock: FakeClock, suspend: bool, actions: list[str]
) -> None:
    # trainc writes no suspend, so an absent field is a running JobSet; a suspended one
    # is one Kueue's webhook suspended in the cluster until admission (docs/kueue.md).
    held = [condition("Suspended", "True", 0)] if suspend else []
    jobset = live_jobset("llama", annotations=DEADLINE, suspend=suspend, conditions=held)
    put(api, jobset, live_job("llama", started=10))
    assert [record.action for record in changes(run(api, clock))] == actions


def test_the_jobset_is_read_fresh_before_every_change(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running())
    run(api, clock)
    calls = [(r.method, r.path) for r in api.requests]
    patch = calls.index(("PATCH", f"{JOB_PATH}/llama-node-0"))
    assert calls[patch - 1] == ("GET", f"{JOBSET_PATH}/llama")
    # The Jobs are the listed ones: the patch's resourceVersion precondition catches a Job
    # changed since the list, so they are not listed again per JobSet.
    assert [
        r
        for r in api.requests
        if r.path == JOB_PATH and "jobset-name" in r.query.get("labelSelector", "")
    ] == []


def test_a_jobset_that_finished_since_the_list_is_decided_again(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, *running())

    def finish() -> None:
        api.update(
            JOBSETS,
            NS,
            "llama",
            lambda o: o["status"]["conditions"].append(condition("Completed", "True", 990)),
        )

    api.before("GET", f"{JOBSET_PATH}/llama", finish)

    (record,) = run(api, clock)

    assert (record.action, record.outcome) == ("FailJobs", "skipped")
    assert "a fresh read shows nothing to do" in record.message
    assert writes(api) == []


def test_a_job_changed_since_the_list_is_patched_with_its_fresh_version(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, *running())
    changed: list[Obj] = []

    def become_ready() -> None:
        changed.append(api.update(JOBS, NS, "llama-node-0", lambda o: o["status"].update(ready=1)))

    api.before("GET", f"{JOBSET_PATH}/llama", become_ready)

    (record,) = run(api, clock)

    assert record.outcome == "done"
    # The listed version no longer matches: 409, then a fresh list and the fresh version.
    stale, fresh = (r for r in api.requests if r.method == "PATCH")
    assert stale.body["metadata"]["resourceVersion"] != changed[0]["metadata"]["resourceVersion"]
    assert fresh.body["metadata"]["resourceVersion"] == changed[0]["metadata"]["resourceVersion"]
    job = api.get(JOBS, NS, "llama-node-0")
    assert job is not None
    assert job["spec"]["activeDeadlineSeconds"] > 0


def test_a_conflict_on_patch_is_decided_again_then_done(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, *running())
    api.fail("PATCH", f"{JOB_PATH}/llama-node-0", status=409, times=1)

    (record,) = run(api, clock)

    assert record.outcome == "done"
    # The JobSet read fresh, the listed Job patched: 409; then the JobSet and its Jobs
    # read fresh, and the patch done; the Event.
    assert [r.method for r in api.requests[6:]] == ["GET", "PATCH", "GET", "GET", "PATCH", "POST"]
    assert clock.sleeps == [0.5]


def test_a_conflict_that_persists_fails_a_deadline(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running())
    api.fail("PATCH", f"{JOB_PATH}/llama-node-0", status=409)
    (record,) = run(api, clock)
    assert record.outcome == "failed"
    assert "HTTP 409" in (record.error or "")
    assert len([r for r in api.requests if r.method == "PATCH"]) == 4


# --------------------------------------------------------------------------- TTL


def test_an_expired_ttl_deletes_the_jobs_and_keeps_the_jobset(
    api: FakeApiServer, clock: FakeClock
) -> None:
    jobset, node, launcher = finished()
    put(api, jobset, node, launcher)
    live = {name: api.get(JOBS, NS, name) for name in ("llama-node-0", "llama-launcher-0")}
    before = api.get(JOBSETS, NS, "llama")

    (record,) = run(api, clock)

    assert (record.action, record.reason, record.outcome) == ("DeleteJobs", "TTLExpired", "done")
    assert "remove jobs/llama.yaml from git" in record.message
    assert api.all(JOBS) == []
    assert api.get(JOBSETS, NS, "llama") == before
    deletes = [r for r in api.requests if r.method == "DELETE"]
    assert {r.path.rsplit("/", 1)[1] for r in deletes} == set(live)
    for request in deletes:
        meta = live[request.path.rsplit("/", 1)[1]]["metadata"]  # type: ignore[index]
        assert request.body["preconditions"] == {
            "uid": meta["uid"],
            "resourceVersion": meta["resourceVersion"],
        }
        assert request.body["propagationPolicy"] == "Background"
    (event,) = api.all(EVENTS)
    assert (event["reason"], event["type"]) == ("TTLExpired", "Normal")
    assert "jobs/llama.yaml" in event["message"]
    api.clear_log()
    assert run(api, clock) == []
    assert writes(api) == []


def test_a_recreated_jobset_loses_nothing(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *finished())

    def recreate() -> None:
        for resource, name in ((JOBS, "llama-node-0"), (JOBS, "llama-launcher-0")):
            api.remove(resource, NS, name)
        api.remove(JOBSETS, NS, "llama")
        put(api, live_jobset("llama", created=990, annotations=TTL), live_job("llama", started=995))

    api.before("DELETE", f"{JOB_PATH}/llama-launcher-0", recreate)

    (record,) = run(api, clock)

    assert (record.action, record.outcome) == ("DeleteJobs", "skipped")
    assert api.get(JOBS, NS, "llama-node-0") is not None  # the new Job of the same name
    assert api.get(JOBSETS, NS, "llama") is not None


# --------------------------------------------------------------------------- garbage


def test_orphaned_companions_are_deleted_after_the_grace_period(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(
        api,
        live_companion(COSCHEDULING_PODGROUPS, "gone", "gone", created=0),
        live_companion(CONFIGMAPS, "young", "young", created=900),
        live_companion(
            PVCS, "kept", "gone", annotations={"argocd.argoproj.io/sync-options": "Prune=false"}
        ),
        live_jobset("alive"),
        live_companion(PVCS, "alive-data", "alive", created=0),
    )

    records = run(api, clock)

    assert [(r.action, r.reason, r.subject, r.outcome) for r in records] == [
        ("DeleteObject", "Orphaned", "PodGroup/gone", "done"),
        ("Note", "Orphaned", "ConfigMap/young", "done"),
    ]
    assert api.get(COSCHEDULING_PODGROUPS, NS, "gone") is None
    assert api.get(PVCS, NS, "kept") is not None
    assert api.get(PVCS, NS, "alive-data") is not None
    assert [e["involvedObject"]["name"] for e in api.all(EVENTS)] == ["gone"]  # no Note Event


def test_a_recreated_companion_of_the_same_name_is_never_deleted(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, live_companion(PVCS, "data", "gone", created=0))

    def recreate() -> None:
        api.remove(PVCS, NS, "data")
        api.put(live_companion(PVCS, "data", "gone", created=990))

    api.before("DELETE", f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data", recreate)

    (record,) = run(api, clock)

    assert (record.action, record.outcome) == ("DeleteObject", "skipped")
    assert api.get(PVCS, NS, "data")["metadata"]["creationTimestamp"].endswith("12:16:30Z")  # type: ignore[index]


def test_a_companion_whose_jobset_appeared_is_kept(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, live_companion(PVCS, "data", "late", created=0))
    # The JobSet appears after the list, just before the fresh look for it.
    api.before("GET", f"{JOBSET_PATH}/late", lambda: api.put(live_jobset("late", created=999)))
    (record,) = run(api, clock)
    assert record.outcome == "skipped"
    assert api.get(PVCS, NS, "data") is not None


# --------------------------------------------------------------------------- faults


def test_server_errors_on_a_write_are_retried(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running())
    api.fail("PATCH", f"{JOB_PATH}/llama-node-0", status=500, times=2)
    (record,) = run(api, clock)
    assert record.outcome == "done"
    assert clock.sleeps == [0.5, 1.0]


def test_a_failure_on_one_object_does_not_stop_the_sweep(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, *running("a"), *running("b"), *finished("c"))
    api.fail("PATCH", f"{JOB_PATH}/a-node-0", status=500)

    records = run(api, clock)

    assert [(r.subject, r.outcome) for r in records] == [
        ("JobSet/a", "failed"),
        ("JobSet/b", "done"),
        ("JobSet/c", "done"),
    ]
    assert "HTTP 500" in (records[0].error or "")
    assert api.get(JOBS, NS, "b-node-0")["spec"]["activeDeadlineSeconds"] == 990  # type: ignore[index]
    assert api.all(JOBS) == [api.get(JOBS, NS, "a-node-0"), api.get(JOBS, NS, "b-node-0")]


def test_a_slow_answer_is_retried(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running())
    api.slow("GET", f"{JOBSET_PATH}/llama", seconds=1.5)
    (record,) = run(api, clock)
    assert record.outcome == "done"
    assert clock.sleeps == [0.5]


def test_a_failed_list_decides_nothing(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running(), live_companion(PVCS, "orphan", "gone"))
    api.fail("GET", JOB_PATH, status=500)

    (record,) = run(api, clock)

    assert (record.action, record.reason, record.outcome) == ("Snapshot", "ListFailed", "failed")
    assert "HTTP 500" in (record.error or "")
    assert writes(api) == []


def test_an_event_that_cannot_be_recorded_does_not_undo_the_action(
    api: FakeApiServer, clock: FakeClock
) -> None:
    put(api, *running())
    api.fail("POST", f"/api/v1/namespaces/{NS}/events", status=500)
    (record,) = run(api, clock)
    assert record.outcome == "done"
    assert (record.error or "").startswith("the Event was not recorded")


def test_the_call_budget_fails_what_is_left(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running("a"), *running("b"))
    # 6 lists leave 2 calls: shared out in decision order, they are a's read and patch,
    # whatever the threads do; a's Event and all of b are over the budget.
    records = run(api, clock, limits=SweepLimits(max_calls=8))
    assert [(r.subject, r.outcome) for r in records] == [
        ("JobSet/a", "done"),
        ("JobSet/b", "failed"),
    ]
    assert all("call budget" in (r.error or "") for r in records)
    assert records[0].error is not None
    assert records[0].error.startswith("the Event was not recorded")
    assert len(api.requests) == 8


@pytest.mark.parametrize("concurrency", [1, 2, 8])
def test_where_the_budget_ends_does_not_depend_on_the_threads(
    api: FakeApiServer, clock: FakeClock, concurrency: int
) -> None:
    for name in "abcdef":
        put(api, *running(name))
    records = run(api, clock, limits=SweepLimits(max_calls=6 + 3 * 3 + 1, concurrency=concurrency))
    assert [r.outcome for r in records] == ["done"] * 3 + ["failed"] * 3


# --------------------------------------------------------------------------- notes, dry run


def test_notes_that_need_a_person_become_events(api: FakeApiServer, clock: FakeClock) -> None:
    put(
        api,
        live_jobset("bad", annotations={"trainc.dev/active-deadline-seconds": "soon"}),
        live_jobset("future", created=5000, annotations=DEADLINE),
        live_jobset("pending", created=900, annotations=DEADLINE),
    )
    records = run(api, clock)
    assert [(r.subject, r.reason, r.outcome) for r in records] == [
        ("JobSet/bad", "InvalidSetting", "done"),
        ("JobSet/future", "ClockSkew", "done"),
        ("JobSet/pending", "DeadlineExceeded", "done"),
    ]
    events = {e["involvedObject"]["name"]: e["type"] for e in api.all(EVENTS)}
    assert events == {"bad": "Warning", "future": "Warning"}


def test_a_dry_run_changes_nothing(api: FakeApiServer, clock: FakeClock) -> None:
    put(
        api,
        *running("a"),
        *finished("b"),
        live_companion(PVCS, "orphan", "gone"),
        live_jobset("bad", annotations={"trainc.dev/ttl-seconds-after-finished": "-1"}),
    )
    before = api.dump()

    records = run(api, clock, dry_run=True)

    assert api.dump() == before
    assert writes(api) == []
    assert all(r.dry_run for r in records)
    assert [(r.action, r.outcome) for r in changes(records)] == [
        ("FailJobs", "skipped"),
        ("DeleteJobs", "skipped"),
        ("DeleteObject", "skipped"),
    ]
    assert all(r.message.endswith("(dry run)") for r in changes(records))


# --------------------------------------------------------------------------- bounds


def test_a_thousand_jobsets_take_a_bounded_number_of_calls(
    api: FakeApiServer, clock: FakeClock
) -> None:
    for index in range(1000):
        created = 0 if index % 100 == 0 else 900  # ten have passed their deadline
        put(
            api,
            live_jobset(f"js-{index:04d}", created=created, annotations=DEADLINE),
            live_job(f"js-{index:04d}", started=created + 10),
        )

    records = run(api, clock, limits=SweepLimits())

    assert len(changes(records)) == 10
    assert all(r.outcome == "done" for r in records)
    # Lists: 1 page of JobSets, 1 of Jobs, one per companion kind; then per action a
    # fresh GET of the JobSet, one PATCH and one Event.
    assert len(api.requests) == 1 + 1 + 4 + 10 * 3


def test_a_ttl_wave_dry_run_lists_and_reads_nothing_more(
    api: FakeApiServer, clock: FakeClock
) -> None:
    ttl_wave(api, 1000)

    records = run(api, clock, limits=SweepLimits(), dry_run=True)

    assert [r.action for r in changes(records)] == ["DeleteJobs"] * 500
    assert len(api.requests) <= 20


def test_a_ttl_wave_costs_three_calls_per_action(api: FakeApiServer, clock: FakeClock) -> None:
    expired = ttl_wave(api, 1000)

    records = run(api, clock, limits=SweepLimits())

    done = changes(records)
    assert [(r.action, r.outcome) for r in done] == [("DeleteJobs", "done")] * 500
    assert [r.subject for r in done] == [f"JobSet/{name}" for name in expired]
    assert expired == [f"js-{i:04d}" for i in range(0, 1000, 2)]
    assert len(api.requests) <= 20 + 3 * len(done)
    assert len(api.all(JOBS)) == 500


def test_a_ttl_wave_of_ten_thousand_finishes_in_one_pass(
    api: FakeApiServer, clock: FakeClock
) -> None:
    # 5,000 deletions need 15,000 calls besides the lists: more than a fixed budget of
    # 10,000 allowed, which stopped this wave after 3,319 of them.
    expired = ttl_wave(api, 10_000)

    records = run(api, clock, limits=SweepLimits())

    done = changes(records)
    assert len(done) == len(expired) == 5000
    assert {(r.action, r.outcome, r.error) for r in done} == {("DeleteJobs", "done", None)}
    assert len(api.all(JOBS)) == 5000
    assert len(api.requests) <= 20 + 3 * len(done)


def test_actions_that_keep_failing_stop_within_the_budget(
    api: FakeApiServer, clock: FakeClock
) -> None:
    expired = ttl_wave(api, 20)
    for name in expired:
        api.fail("DELETE", f"{JOB_PATH}/{name}-node-0", status=500)

    records = run(api, clock, limits=SweepLimits())

    assert [(r.action, r.outcome) for r in records] == [("DeleteJobs", "failed")] * 10
    # Each action's read and first DELETE are its own; its retries come from the rest of
    # its share and what the lists left of the 20, which run out before every action has
    # retried three times.
    assert len(api.requests) <= 20 + 3 * len(records)
    errors = [r.error or "" for r in records]
    assert all(error.startswith(f"delete Job {NS}/js-00") for error in errors)
    assert all(": HTTP 500 Internal Server Error: " in error for error in errors)
    assert any(error.endswith("(after 4 attempts)") for error in errors)
    assert any(
        re.search(r" \(not retried after attempt [23]: call budget of 50 calls used up\)$", error)
        for error in errors
    )
    assert len(api.all(JOBS)) == 20


def test_the_time_budget_ends_a_pass(api: FakeApiServer, clock: FakeClock) -> None:
    ttl_wave(api, 20)

    def stall() -> None:
        clock.now += 480

    api.before("DELETE", f"{JOB_PATH}/js-0004-node-0", stall)

    records = run(api, clock, limits=SweepLimits(concurrency=1))

    assert [(r.subject, r.outcome) for r in records[:3]] == [
        ("JobSet/js-0000", "done"),
        ("JobSet/js-0002", "done"),
        ("JobSet/js-0004", "done"),
    ]
    assert (records[2].error or "").startswith("the Event was not recorded: time budget")
    assert [r.outcome for r in records[3:]] == ["failed"] * 7
    assert all("time budget of 480s used up" in (r.error or "") for r in records[3:])
    assert [r.method for r in api.requests][-2:] == ["GET", "DELETE"]


def test_either_namespaces_or_all_of_them(api: FakeApiServer, clock: FakeClock) -> None:
    client = sweep_client(api, clock=clock)
    sweeps: list[Callable[[], object]] = [
        lambda: next(sweep(client, now=NOW, dry_run=False)),
        lambda: next(sweep(client, namespaces=(NS,), all_namespaces=True, now=NOW, dry_run=False)),
    ]
    for start in sweeps:
        with pytest.raises(UsageError):
            start()


def test_records_are_json_lines(api: FakeApiServer, clock: FakeClock) -> None:
    put(api, *running())
    (record,) = run(api, clock)
    assert record.to_json() == {
        "timestamp": "2025-03-01T12:16:40+00:00",
        "action": "FailJobs",
        "reason": "DeadlineExceeded",
        "namespace": NS,
        "object": "JobSet/llama",
        "message": record.message,
        "dryRun": False,
        "outcome": "done",
        "error": None,
    }
    assert isinstance(record.outcome, Outcome)
