"""The pruning recipes of ``examples/ci`` run their real ``trainc prune`` command.

Each recipe's commands are run, as the CI system would, against a git copy of
``examples/`` and a stand-in API server that holds one finished JobSet past its TTL:
exactly that TrainJob's file leaves the working tree.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.support.cluster import condition, live_jobset, write_kubeconfig
from tests.support.fakeapi import FakeApiServer
from tests.test_ci_examples import CI, EXAMPLES, trainc_commands
from trainc.cli.main import main
from trainc.model.labels import SOURCE_ANNOTATION

EXPIRED = "jobs/vision/resnet-ddp.yaml"
#: The variables the recipes name their kubeconfig by.
KUBECONFIG_VARIABLES = ('"$RUNNER_TEMP/kubeconfig"', '"$TRAINC_PRUNE_KUBECONFIG"')


def _load(name: str) -> Any:
    return YAML(typ="safe").load((CI / name).read_text(encoding="utf-8"))


def _scripts(name: str) -> list[str]:
    document = _load(name)
    if name.startswith("gitlab"):
        return [line for job in document.values() for line in job["script"]]
    return [
        step["run"] for job in document["jobs"].values() for step in job["steps"] if "run" in step
    ]


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    with FakeApiServer() as server:
        annotations = {"trainc.dev/ttl-seconds-after-finished": "60", SOURCE_ANNOTATION: EXPIRED}
        done = [condition("Completed", "True", 100)]
        server.put(live_jobset("resnet50-ddp", "ml-team", annotations=annotations, conditions=done))
        yield server


@pytest.mark.parametrize("name", ["github-prune.yml", "gitlab-prune.yml"])
def test_the_recipe_removes_exactly_the_expired_trainjob(
    name: str, api: FakeApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api)
    before = {path.relative_to(repo) for path in repo.rglob("*.yaml")}
    (command,) = trainc_commands(_scripts(name))
    for variable in KUBECONFIG_VARIABLES:
        command = command.replace(variable, shlex.quote(str(kubeconfig)))
    monkeypatch.chdir(repo)
    monkeypatch.setenv("KUBECONFIG", "/nonexistent")

    with pytest.raises(SystemExit) as exited:
        main(shlex.split(command)[1:])

    assert exited.value.code == 0
    after = {path.relative_to(repo) for path in repo.rglob("*.yaml")}
    assert before - after == {Path(EXPIRED)}
    assert before >= after


def test_the_github_recipe_is_scheduled_and_opens_a_pull_request() -> None:
    workflow = _load("github-prune.yml")
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    steps = next(iter(workflow["jobs"].values()))["steps"]
    uses = [step.get("uses", step.get("run", "")).split("@")[0] for step in steps]
    prune = next(i for i, step in enumerate(steps) if "trainc prune" in step.get("run", ""))
    assert uses.index("peter-evans/create-pull-request") > prune


def test_the_gitlab_recipe_runs_on_a_schedule_and_pushes_a_branch() -> None:
    (job,) = _load("gitlab-prune.yml").values()
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert any("merge_request.create" in line for line in job["script"])
