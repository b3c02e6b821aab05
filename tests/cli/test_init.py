"""``trainc init``: a starter repository that validates and compiles cleanly as written."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import Invoke
from trainc import __version__
from trainc.argocd import argocd_overrides
from trainc.config.read import load_config
from trainc.config.settings import SweeperSettings, build_config
from trainc.resources import data_dir
from trainc.scaffold import FILES, IMAGE

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(invoke: Invoke) -> Invoke:
    """Runs ``trainc ARGS`` in a directory, in process, as the console script would."""
    return invoke


def test_init_creates_every_file_and_says_so_on_stderr(tmp_path: Path, run) -> None:
    result = run(tmp_path, "init", "repo")
    assert result.code == 0
    assert result.out == ""
    for path, text in FILES.items():
        assert (tmp_path / "repo" / path).read_text(encoding="utf-8") == text
        assert f"created {Path('repo') / path}" in result.err


def test_the_scaffold_validates_and_compiles_with_only_its_placeholders_to_replace(
    tmp_path: Path, run
) -> None:
    run(tmp_path, "init")
    validated = run(tmp_path, "validate", "-v", "--format", "json")
    assert validated.code == 0, validated.out
    findings = json.loads(validated.out)["diagnostics"]
    # The sweeper image and pre-commit's repository name nothing real until a team does.
    assert [(d["code"], d["file"]) for d in findings] == [
        ("config.placeholder", ".pre-commit-config.yaml"),
        ("config.placeholder", "trainc.yaml"),
    ]
    compiled = run(tmp_path, "compile", "-v", "-o", "-")
    assert compiled.code == 0, compiled.err
    assert compiled.err.count("warning[") == compiled.err.count("warning[config.placeholder]") == 2
    assert "info" not in compiled.err
    kinds = [doc["kind"] for doc in YAML(typ="safe").load_all(compiled.out)]
    assert "JobSet" in kinds
    assert "CronJob" in kinds


def test_existing_files_are_refused_by_name_and_left_alone(tmp_path: Path, run) -> None:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "example.yaml").write_text("mine\n", encoding="utf-8")
    (tmp_path / "trainc.yaml").write_text("mine\n", encoding="utf-8")
    result = run(tmp_path, "init")
    assert result.code == 2
    assert result.out == ""
    assert "would overwrite jobs/example.yaml, trainc.yaml; use --force" in result.err
    assert (tmp_path / "trainc.yaml").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "README.md").exists()


def test_force_replaces_the_scaffold_files_and_nothing_else(tmp_path: Path, run) -> None:
    (tmp_path / "trainc.yaml").write_text("mine\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    result = run(tmp_path, "init", "--force")
    assert result.code == 0
    assert "replaced trainc.yaml" in result.err
    assert "created README.md" in result.err
    assert (tmp_path / "trainc.yaml").read_text(encoding="utf-8") == FILES["trainc.yaml"]
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine\n"


def test_a_link_or_directory_in_the_way_is_refused_even_with_force(tmp_path: Path, run) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep\n", encoding="utf-8")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "README.md").symlink_to(outside)
    (tmp_path / "repo" / "jobs").write_text("a file where a directory goes\n")
    result = run(tmp_path, "init", "repo", "--force")
    assert result.code == 2
    assert "cannot write README.md, jobs/example.yaml" in result.err
    assert outside.read_text(encoding="utf-8") == "keep\n"
    assert not (tmp_path / "repo" / "trainc.yaml").exists()


def test_the_config_states_the_defaults_trainc_applies(tmp_path: Path, run) -> None:
    run(tmp_path, "init")
    scaffold = load_config(cwd=tmp_path).config
    assert scaffold is not None
    defaults = build_config(tmp_path, None, config_file=None, environment=None)
    chosen = {"config_file", "exclude", "compile", "sweeper"}
    for field in dataclasses.fields(defaults):
        if field.name not in chosen:
            assert getattr(scaffold, field.name) == getattr(defaults, field.name), field.name
    assert scaffold.compile == dataclasses.replace(defaults.compile, output="rendered")
    assert scaffold.sweeper == SweeperSettings(image=IMAGE)


def test_the_config_names_every_built_in_policy() -> None:
    for policy in sorted(data_dir("policies").glob("*.yaml")):
        assert policy.stem in FILES["trainc.yaml"]


def test_the_pre_commit_config_uses_hooks_this_repository_defines() -> None:
    hooks = YAML(typ="safe").load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    config = YAML(typ="safe").load(FILES[".pre-commit-config.yaml"])
    [repo] = config["repos"]
    assert repo["rev"] == f"v{__version__}"
    assert {hook["id"] for hook in repo["hooks"]} <= {hook["id"] for hook in hooks}


def test_the_scaffolds_team_label_reaches_the_jobset_its_policy_asks_for(
    tmp_path: Path, run
) -> None:
    """The team-label policy enforces a label on TrainJobs: the JobSet, which stands for
    the TrainJob in the cluster, carries it, so ``kubectl get jobsets -l team=vision``
    finds the job."""
    run(tmp_path, "init")
    job = tmp_path / "jobs" / "example.yaml"
    job.write_text(job.read_text(encoding="utf-8").replace("team: my-team", "team: vision"))
    compiled = run(tmp_path, "compile", "-o", "-")
    assert compiled.code == 0, compiled.err
    (jobset,) = [d for d in YAML(typ="safe").load_all(compiled.out) if d["kind"] == "JobSet"]
    assert jobset["metadata"]["labels"]["team"] == "vision"
    assert "metadata-clash" not in compiled.err


def test_the_cluster_release_applies_under_argo_cd_as_the_config_says(tmp_path: Path, run) -> None:
    """A team adopting trainc found that init pinned 1.33, so Argo CD's KUBE_VERSION
    never applied. Now it pins none: the destination cluster's release applies, and a
    pin, once made, wins."""
    run(tmp_path, "init")
    assert "\nkubernetesVersion:" not in FILES["trainc.yaml"]
    argo = argocd_overrides({"ARGOCD_APP_NAME": "training", "KUBE_VERSION": "v1.35.2+k3s1"})
    under_argo = load_config(cwd=tmp_path, overrides=argo).config
    assert under_argo is not None
    assert under_argo.kubernetes_version == "1.35"
    config = tmp_path / "trainc.yaml"
    pinned = config.read_text(encoding="utf-8").replace(
        '# kubernetesVersion: "1.36"', 'kubernetesVersion: "1.34"'
    )
    config.write_text(pinned, encoding="utf-8")
    pinned_config = load_config(cwd=tmp_path, overrides=argo).config
    assert pinned_config is not None
    assert pinned_config.kubernetes_version == "1.34"
