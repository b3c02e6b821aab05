"""``trainc prune`` through the real ``kubernetes`` client against a stand-in API server:
exactly the expired TrainJobs leave the working tree, nothing else, and never the cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cluster import NS, condition, live_jobset, write_kubeconfig
from tests.support.fakeapi import FakeApiServer
from tests.support.manifests import TORCH_RUNTIME, write
from trainc.model.labels import SOURCE_ANNOTATION

TTL = {"trainc.dev/ttl-seconds-after-finished": "60"}
#: Long ago against the real clock the command reads: a TTL of 60 s has passed.
DONE = [condition("Completed", "True", 100)]


def trainjob(name: str) -> str:
    return (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        f"metadata:\n  name: {name}\n  namespace: {NS}\nspec:\n  runtimeRef:\n    name: torch\n"
    )


PAIR = (
    "# two jobs in one file\n" + trainjob("old") + "---\n# the one that stays\n" + trainjob("keep")
)


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    with FakeApiServer() as server:
        server.put(live_jobset("done", annotations=TTL, conditions=DONE))
        server.put(
            live_jobset(
                "old", annotations={**TTL, SOURCE_ANNOTATION: "jobs/pair.yaml"}, conditions=DONE
            )
        )
        server.put(live_jobset("keep", annotations={**TTL, SOURCE_ANNOTATION: "jobs/pair.yaml"}))
        server.put(live_jobset("running", annotations=TTL))
        moved = {**TTL, SOURCE_ANNOTATION: "jobs/elsewhere.yaml"}
        server.put(live_jobset("moved", annotations=moved, conditions=DONE))
        yield server


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, "runtime.yaml", TORCH_RUNTIME)
    for name in ("done", "running", "missing", "moved"):
        write(root, f"jobs/{name}.yaml", trainjob(name))
    write(root, "jobs/pair.yaml", PAIR)
    return root


def prune(
    repo: Path, api: FakeApiServer, *args: str, flag: bool = True
) -> subprocess.CompletedProcess[str]:
    """``trainc prune --kubeconfig FILE``, or with ``flag=False`` the file as ~/.kube/config."""
    (repo.parent / ".kube").mkdir(exist_ok=True)
    kubeconfig = write_kubeconfig(repo.parent / ".kube" / "config", api)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
    env.pop("KUBECONFIG", None)
    options = ["--kubeconfig", str(kubeconfig)] if flag else []
    return subprocess.run(
        [sys.executable, "-m", "trainc", "prune", *options, *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**env, "HOME": str(repo.parent), "NO_COLOR": "1"},
        check=False,
        timeout=120,
    )


def files(repo: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((repo / "jobs").iterdir())}


def test_removes_exactly_the_expired_trainjobs(repo: Path, api: FakeApiServer) -> None:
    result = prune(repo, api)

    assert result.returncode == 0, result.stderr
    assert files(repo) == {
        "missing.yaml": trainjob("missing"),
        "moved.yaml": trainjob("moved"),
        "pair.yaml": "---\n# the one that stays\n" + trainjob("keep"),
        "running.yaml": trainjob("running"),
    }
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [
        "removed jobs/done.yaml",
        "kept jobs/pair.yaml",
        "kept jobs/missing.yaml",
        "kept jobs/moved.yaml",
        "removed jobs/pair.yaml",
        "kept jobs/running.yaml",
    ]
    assert "no JobSet in the cluster" in lines[2]
    assert "compiled from 'jobs/elsewhere.yaml'" in lines[3]
    assert lines[-1] == "2 of 6 TrainJobs removed; 4 kept."
    # Read only: one list of JobSets, nothing written to the cluster.
    assert {request.method for request in api.requests} == {"GET"}


def test_home_kubeconfig_is_used_without_a_flag(repo: Path, api: FakeApiServer) -> None:
    # kubectl's default: no --kubeconfig, no $KUBECONFIG, so ~/.kube/config.
    result = prune(repo, api, "--dry-run", flag=False)

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "2 of 6 TrainJobs would be removed; 4 kept."
    assert {request.method for request in api.requests} == {"GET"}


def test_dry_run_removes_nothing(repo: Path, api: FakeApiServer) -> None:
    before = files(repo)
    result = prune(repo, api, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert files(repo) == before
    assert result.stdout.splitlines()[0].startswith("would remove jobs/done.yaml")
    assert result.stdout.splitlines()[-1] == "2 of 6 TrainJobs would be removed; 4 kept."


def test_a_repository_with_errors_is_not_touched(repo: Path, api: FakeApiServer) -> None:
    write(repo, "jobs/broken.yaml", trainjob("broken").replace("name: torch", "name: nope"))
    before = files(repo)
    result = prune(repo, api)
    assert result.returncode == 1
    assert files(repo) == before
    assert api.requests == []


def test_a_cluster_that_cannot_be_listed_leaves_everything(repo: Path, api: FakeApiServer) -> None:
    api.fail("GET", f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets", status=403)
    before = files(repo)
    result = prune(repo, api)
    assert result.returncode == 1
    assert "cannot list JobSets" in result.stderr
    assert files(repo) == before
