"""``trainc sweep`` as the CronJob runs it: JSON lines, a summary, exit codes, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster import (
    NS,
    condition,
    live_companion,
    live_job,
    live_jobset,
    write_kubeconfig,
)
from tests.support.fakeapi import JOBS, PVCS, FakeApiServer

#: Long past, against the real clock the command reads: every deadline and TTL has expired.
DEADLINE = {"trainc.dev/active-deadline-seconds": "600"}
TTL = {"trainc.dev/ttl-seconds-after-finished": "60"}


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    with FakeApiServer() as server:
        server.put(live_jobset("running", annotations=DEADLINE))
        server.put(live_job("running", started=10))
        done = [condition("Completed", "True", 100)]
        server.put(live_jobset("done", annotations=TTL, conditions=done))
        server.put(live_job("done", conditions=[condition("Complete", "True", 100)]))
        server.put(live_companion(PVCS, "orphan", "gone"))
        yield server


@pytest.fixture
def kubeconfig(api: FakeApiServer, tmp_path: Path) -> Path:
    return write_kubeconfig(tmp_path / "kubeconfig", api)


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
    return {**env, "KUBECONFIG": "/nonexistent"}


def trainc(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trainc", "sweep", *args],
        capture_output=True,
        text=True,
        env={**environment(), **variables},
        check=False,
        timeout=120,
    )


def lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_once_writes_one_json_line_per_action_and_a_summary(
    api: FakeApiServer, kubeconfig: Path
) -> None:
    result = trainc("-n", NS, "--once", "--kubeconfig", str(kubeconfig))

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    *records, last = lines(result.stdout)
    assert [(r["action"], r["object"], r["outcome"]) for r in records] == [
        ("DeleteJobs", "JobSet/done", "done"),
        ("DeleteObject", "PersistentVolumeClaim/orphan", "done"),
        ("FailJobs", "JobSet/running", "done"),
    ]
    assert all(set(r) == set(records[0]) for r in records)
    assert "remove jobs/done.yaml from git" in records[0]["message"]
    summary = last["summary"]
    assert summary["outcomes"] == {"done": 3, "failed": 0, "skipped": 0}
    assert summary["actions"] == {"DeleteJobs": 1, "DeleteObject": 1, "FailJobs": 1}
    assert summary["dryRun"] is False
    assert summary["interrupted"] is False
    assert summary["calls"] == len(api.requests)
    assert {r["timestamp"] for r in records} == {summary["timestamp"]}  # one clock reading


def test_kubeconfig_variable_is_read_as_kubectl_reads_it(
    api: FakeApiServer, kubeconfig: Path, tmp_path: Path
) -> None:
    # As a platform team runs it from a laptop: `export KUBECONFIG=...`, no flag.
    listed = os.pathsep.join([str(tmp_path / "not-there"), str(kubeconfig)])

    result = trainc("-n", NS, "--once", "--dry-run", KUBECONFIG=listed)

    assert result.returncode == 0, result.stderr
    *records, _ = lines(result.stdout)
    assert [r["object"] for r in records] == [
        "JobSet/done",
        "PersistentVolumeClaim/orphan",
        "JobSet/running",
    ]


def test_without_any_configuration_it_says_where_it_looked(tmp_path: Path) -> None:
    result = trainc("-n", NS, "--once", HOME=str(tmp_path), KUBECONFIG="")

    assert result.returncode == 2
    assert result.stdout == ""
    assert f"~/.kube/config ({tmp_path}/.kube/config): no kubeconfig file exists" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_failed_action_exits_1_and_the_sweep_goes_on(
    api: FakeApiServer, kubeconfig: Path
) -> None:
    api.fail("DELETE", f"/apis/batch/v1/namespaces/{NS}/jobs/done-node-0", status=403)

    result = trainc("-n", NS, "--once", "--kubeconfig", str(kubeconfig))

    assert result.returncode == 1
    *records, last = lines(result.stdout)
    assert [r["outcome"] for r in records] == ["failed", "done", "done"]
    assert "HTTP 403" in records[0]["error"]
    assert last["summary"]["outcomes"] == {"done": 2, "failed": 1, "skipped": 0}


def test_a_dry_run_changes_nothing(api: FakeApiServer, kubeconfig: Path) -> None:
    before = api.dump()

    result = trainc("--all-namespaces", "--once", "--dry-run", "--kubeconfig", str(kubeconfig))

    assert result.returncode == 0, result.stderr
    assert api.dump() == before
    assert {r.method for r in api.requests} == {"GET"}
    *records, last = lines(result.stdout)
    assert {(r["outcome"], r["dryRun"]) for r in records} == {("skipped", True)}
    assert last["summary"]["dryRun"] is True


def test_namespace_options_are_exclusive_and_one_is_required(kubeconfig: Path) -> None:
    for args in ([], ["-n", NS, "--all-namespaces"]):
        result = trainc(*args, "--once", "--kubeconfig", str(kubeconfig))
        assert result.returncode == 2
        assert "--namespace" in result.stderr
        assert result.stdout == ""


def test_without_a_cluster_configuration_it_exits_2_with_a_message() -> None:
    result = trainc("-n", NS, "--once")
    assert result.returncode == 2
    assert result.stderr.startswith("trainc: error: cannot configure the Kubernetes client")
    assert "--kubeconfig" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_help_shows_the_options_and_examples() -> None:
    result = trainc("--help")
    assert result.returncode == 0
    for text in ("--all-namespaces", "--dry-run", "--once", "--interval", "--grace", "Examples:"):
        assert text in result.stdout


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_loop_runs_until_a_signal(
    api: FakeApiServer, kubeconfig: Path, stop: signal.Signals
) -> None:
    command = [sys.executable, "-m", "trainc", "sweep", "-n", NS, "--kubeconfig", str(kubeconfig)]
    with subprocess.Popen(
        [*command, "--interval", "3600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if "summary" in json.loads(line):
                break
        process.send_signal(stop)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out == ""
    assert api.get(JOBS, NS, "done-node-0") is None
