"""Live objects as the API server holds them, and a sweeper client for the fake API server.

The builders write what the controllers write: creation timestamps, JobSet conditions,
a child Job's ``startTime`` and counters, the labels the JobSet controller adds.
:class:`FakeClock` stands in for ``time.monotonic``/``time.sleep`` so retries and budgets
are tested without waiting.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kubernetes import client as k8s

from tests.support.fakeapi import JOBS, JOBSETS, FakeApiServer, Obj, Resource, rfc3339
from trainc.model.labels import (
    JOBSET_NAME_LABEL,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    SOURCE_ANNOTATION,
    TRAINJOB_NAME_LABEL,
    TTL_ANNOTATION,
)
from trainc.sweep.calls import SweepLimits
from trainc.sweep.client import SweepClient

NS = "team-a"
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

#: Fast limits for tests: short timeouts, small pages, the default attempts.
TEST_LIMITS = SweepLimits(page_size=50, request_timeout=0.5)


def at(seconds: float) -> datetime:
    """``T0`` plus ``seconds``."""
    return T0 + timedelta(seconds=seconds)


def condition(kind: str, status: str, seconds: float, reason: str = "") -> Obj:
    """A status condition whose ``lastTransitionTime`` is ``at(seconds)``."""
    return {
        "type": kind,
        "status": status,
        "reason": reason or kind,
        "message": "",
        "lastTransitionTime": rfc3339(at(seconds)),
    }


def labels(trainjob: str, **extra: str) -> dict[str, str]:
    """trainc's labels for an object of TrainJob ``trainjob``."""
    return {MANAGED_BY_LABEL: MANAGED_BY_TRAINC, TRAINJOB_NAME_LABEL: trainjob, **extra}


def live_jobset(
    name: str,
    namespace: str = NS,
    *,
    created: float = 0,
    annotations: dict[str, str] | None = None,
    conditions: Iterable[Obj] = (),
    suspend: bool = False,
) -> Obj:
    """A compiled JobSet as it lives in the cluster, with its status conditions.

    ``spec.suspend`` is there only when true: trainc writes no ``false`` (docs/kueue.md),
    so the sweeper meets JobSets without the field.
    """
    spec: Obj = {"replicatedJobs": [{"name": "node", "replicas": 1, "template": _job_template()}]}
    if suspend:
        spec["suspend"] = True
    return {
        "apiVersion": JOBSETS.api_version,
        "kind": JOBSETS.kind,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "creationTimestamp": rfc3339(at(created)),
            "labels": labels(name),
            "annotations": {SOURCE_ANNOTATION: f"jobs/{name}.yaml", **(annotations or {})},
        },
        "spec": spec,
        "status": {"conditions": list(conditions)},
    }


def live_job(
    jobset: str,
    replicated_job: str = "node",
    namespace: str = NS,
    *,
    started: float | None = 0,
    deadline: int | None = None,
    ready: int = 0,
    conditions: Iterable[Obj] = (),
) -> Obj:
    """A child Job the JobSet controller made, named ``<jobset>-<replicatedJob>-0``."""
    spec: Obj = _job_template()["spec"]
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    status: Obj = {"active": 1, "ready": ready, "conditions": list(conditions)}
    if started is not None:
        status["startTime"] = rfc3339(at(started))
    return {
        "apiVersion": JOBS.api_version,
        "kind": JOBS.kind,
        "metadata": {
            "name": f"{jobset}-{replicated_job}-0",
            "namespace": namespace,
            "creationTimestamp": rfc3339(at(0 if started is None else started)),
            "labels": labels(jobset, **{JOBSET_NAME_LABEL: jobset}),
        },
        "spec": spec,
        "status": status,
    }


def live_companion(
    resource: Resource,
    name: str,
    trainjob: str,
    namespace: str = NS,
    *,
    created: float = 0,
    annotations: dict[str, str] | None = None,
) -> Obj:
    """A PodGroup, claim or ConfigMap of ``trainjob``."""
    return {
        "apiVersion": resource.api_version,
        "kind": resource.kind,
        "metadata": {
            "name": name,
            "namespace": namespace,
            "creationTimestamp": rfc3339(at(created)),
            "labels": labels(trainjob),
            "annotations": annotations or {},
        },
    }


def _job_template() -> Obj:
    return {
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "node", "image": "example.com/node:1"}],
                }
            }
        }
    }


def ttl_wave(server: FakeApiServer, jobsets: int, namespace: str = NS) -> list[str]:
    """``jobsets`` JobSets with their Job; every other one (even index) finished at
    ``at(10)`` with a 60-second TTL, so a sweep at ``at(1000)`` deletes its Job.

    Returns the names of the expired JobSets. The sweeper's cost tests and its benchmark
    (``bench/sweeper.py``) share this workload.
    """
    expired = []
    for index in range(jobsets):
        name = f"js-{index:0{max(4, len(str(jobsets - 1)))}d}"
        if index % 2:
            server.put(live_jobset(name, namespace))
            server.put(live_job(name, namespace=namespace, started=10))
            continue
        finished = [condition("Completed", "True", 10)]
        server.put(
            live_jobset(name, namespace, annotations={TTL_ANNOTATION: "60"}, conditions=finished)
        )
        complete = [condition("Complete", "True", 10)]
        server.put(live_job(name, namespace=namespace, conditions=complete))
        expired.append(name)
    return expired


@dataclass
class FakeClock:
    """A monotonic clock that only moves when slept on; every sleep is remembered."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def sweep_client(
    server: FakeApiServer, *, limits: SweepLimits = TEST_LIMITS, clock: FakeClock | None = None
) -> SweepClient:
    """A real ``kubernetes`` client pointed at ``server``, with a fake clock."""
    clock = clock or FakeClock()
    configuration: Any = k8s.Configuration(host=server.url)
    return SweepClient(configuration, limits=limits, sleep=clock.sleep, monotonic=clock.monotonic)


def write_kubeconfig(path: Path, server: FakeApiServer) -> Path:
    """A kubeconfig whose current context is the fake API server, without credentials."""
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
        f"clusters:\n- name: fake\n  cluster: {{server: '{server.url}'}}\n"
        "users:\n- name: me\n  user: {}\n"
        "contexts:\n- name: fake\n  context: {cluster: fake, user: me}\n",
        encoding="utf-8",
    )
    return path
