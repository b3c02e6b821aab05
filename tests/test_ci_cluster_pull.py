"""The cluster-pull recipe of ``examples/ci`` runs its real ``trainc cluster pull`` command.

Its command is run, as the CI system would, in a copy of ``examples/`` against a stand-in
API server holding one Namespace with a ResourceQuota: the snapshot appears where the
recipe says, and a second run changes nothing, so the pull request action sees no change.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.support.cluster import write_kubeconfig
from tests.support.fakeapi import ALL_RESOURCES, CLUSTER_OBJECTS, FakeApiServer
from tests.test_ci_examples import CI, EXAMPLES, trainc_commands
from trainc.cli.main import main

RECIPE = "github-cluster-pull.yml"


def _commands() -> list[str]:
    document: Any = YAML(typ="safe").load((CI / RECIPE).read_text(encoding="utf-8"))
    steps = [step for job in document["jobs"].values() for step in job["steps"]]
    return trainc_commands([step["run"] for step in steps if "run" in step])


def test_the_recipe_writes_the_snapshot_and_a_second_run_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (command,) = _commands()
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo)
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    with FakeApiServer(resources=(*ALL_RESOURCES, *CLUSTER_OBJECTS)) as api:
        api.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml-team"}})
        api.put(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "gpus", "namespace": "ml-team"},
                "spec": {"hard": {"requests.nvidia.com/gpu": "8"}},
            }
        )
        write_kubeconfig(runner_temp / "kubeconfig", api)
        argv = shlex.split(command.replace("$RUNNER_TEMP", str(runner_temp)))
        assert argv[:3] == ["trainc", "cluster", "pull"]
        monkeypatch.chdir(repo)
        for _ in range(2):
            with pytest.raises(SystemExit) as exited:
                main(argv[1:])
            assert exited.value.code == 0, capsys.readouterr().err
        assert "is up to date" in capsys.readouterr().err
    quota = repo / "platform/cluster/namespaces/ml-team/resourcequotas.yaml"
    assert "requests.nvidia.com/gpu: '8'" in quota.read_text(encoding="utf-8")
