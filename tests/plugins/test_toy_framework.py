"""A framework added from one module: validated, resolved and compiled through ``trainc``.

The toy plugin (:mod:`tests.plugins.toy_framework`) joins the registry the way a new
framework does, by one more entry in :data:`trainc.plugins.registry.PLUGINS`, here for
one test; the command line then runs its validate, enforce and build parts with no other
change anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import Invoke
from tests.plugins.toy_framework import TOY_ANNOTATION, ToyPlugin
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.plugins import registry

TOY_RUNTIME = TORCH_RUNTIME.replace(
    "name: torch", f"name: toy\n  annotations:\n    {TOY_ANNOTATION}: '4'"
).replace("torch: {}", "numNodes: 2")


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry with the toy plugin's line added after the other frameworks'."""
    frameworks = [plugin.name for plugin in registry.PLUGINS].index("flux") + 1
    plugins = registry.PLUGINS
    monkeypatch.setattr(
        registry, "PLUGINS", (*plugins[:frameworks], ToyPlugin(), *plugins[frameworks:])
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the toy runtime and one TrainJob on it."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TOY_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha", runtime="toy", namespace="team-a"))
    return tmp_path


def _compiled(invoke: Invoke, repo: Path) -> list[dict[str, Any]]:
    outcome = invoke(repo, "compile", "-o", "-", "-j", "1", "--no-cache")
    assert outcome.code == 0, outcome.err
    return list(YAML(typ="safe").load_all(outcome.out))


@pytest.mark.usefixtures("toy_registered")
def test_the_plugin_enforces_its_environment_and_builds_its_object(
    invoke: Invoke, repo: Path
) -> None:
    objects = _compiled(invoke, repo)

    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ConfigMap", "alpha-toy"),
        ("JobSet", "alpha"),
    ]
    config_map, jobset = objects
    assert config_map["data"] == {"workers": "4"}
    assert config_map["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "trainc"
    [job] = jobset["spec"]["replicatedJobs"]
    [node] = job["template"]["spec"]["template"]["spec"]["containers"]
    assert {"name": "TOY_WORKERS", "value": "4"} in node["env"]


@pytest.mark.usefixtures("toy_registered")
def test_the_plugin_validates_the_trainjob(invoke: Invoke, repo: Path) -> None:
    trainjob = trainjob_yaml("alpha", runtime="toy", namespace="team-a")
    write(
        repo,
        "jobs/a.yaml",
        trainjob + "  trainer:\n    env:\n      - name: TOY_WORKERS\n        value: '8'\n",
    )

    outcome = invoke(repo, "validate", "--format", "json", "-j", "1", "--no-cache")

    assert outcome.code == 1
    [finding] = json.loads(outcome.out)["diagnostics"]
    assert (finding["code"], finding["file"], finding["line"]) == (
        "xobj.reserved-env",
        "jobs/a.yaml",
        11,
    )
    assert (
        finding["message"] == "TOY_WORKERS is reserved for the toy runtime: the toy plugin sets it"
    )


def test_without_its_registry_line_the_framework_does_nothing(invoke: Invoke, repo: Path) -> None:
    objects = _compiled(invoke, repo)

    assert [o["kind"] for o in objects] == ["JobSet"]
