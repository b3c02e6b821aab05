"""Validate-only adoption: ``deploy: TrainJob`` in trainc.yaml, for teams whose TrainJobs go
to the Trainer controller as they are.

Each test replays what such a team does: upstream's runtime and example TrainJobs in a
repository, then ``trainc validate`` (and the pre-commit hook's run on named files) and
``trainc compile``. The same repository with the default ``deploy: JobSet`` is the twin
that shows each rule is switched off by the mode, not gone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

VALIDATE_ONLY = "deploy: TrainJob\n"
KUEUE_EXAMPLE = "03-kueue-integration.yaml"


def _codes(result_out: str) -> list[str]:
    return [d["code"] for d in json.loads(result_out)["diagnostics"]]


@pytest.fixture
def upstream_repo(tmp_path: Path, shared_dir: Path) -> Path:
    """A repository with upstream's torch-distributed runtime and Kueue example, as copied."""
    examples = shared_dir / "upstream" / "trainer-examples"
    (tmp_path / ".git").mkdir()
    (tmp_path / "runtimes").mkdir()
    (tmp_path / "jobs").mkdir()
    shutil.copy(examples / "torch_distributed.yaml", tmp_path / "runtimes")
    shutil.copy(examples / KUEUE_EXAMPLE, tmp_path / "jobs")
    return tmp_path


def test_upstreams_kueue_example_passes_when_trainjobs_are_deployed(
    upstream_repo: Path, invoke: Invoke
) -> None:
    write(upstream_repo, "trainc.yaml", VALIDATE_ONLY)
    result = invoke(upstream_repo, "validate")
    assert result.code == 0, result.err
    assert "All checks passed: 2 files, 2 objects." in result.out
    # The pre-commit hook names the changed file; the runtime is found as context.
    hook = invoke(upstream_repo, "validate", f"jobs/{KUEUE_EXAMPLE}")
    assert hook.code == 0, hook.err


def test_the_same_example_fights_gitops_when_trainc_deploys_its_jobset(
    upstream_repo: Path, invoke: Invoke
) -> None:
    result = invoke(upstream_repo, "validate", "--format", "json")
    assert result.code == 1
    assert _codes(result.out) == ["kueue.suspend-in-git"]


def test_kueues_rules_about_the_trainjob_still_apply(upstream_repo: Path, invoke: Invoke) -> None:
    """Kueue's TrainJob integration refuses the bad queue name as its JobSet one would."""
    write(upstream_repo, "trainc.yaml", VALIDATE_ONLY)
    job = upstream_repo / "jobs" / KUEUE_EXAMPLE
    text = job.read_text(encoding="utf-8")
    job.write_text(text.replace("queue-name: training-queue", "queue-name: Training_Queue"))
    result = invoke(upstream_repo, "validate", "--format", "json")
    assert result.code == 1
    assert _codes(result.out) == ["kueue.queue-name"]


def test_the_jobs_trainer_would_create_are_judged_although_the_job_is_suspended(
    upstream_repo: Path, invoke: Invoke
) -> None:
    """The API server refuses the Jobs of the JobSet Trainer builds: in validate-only mode
    no rule that is off hides that (in JobSet mode suspend-in-git stops the run first)."""
    write(upstream_repo, "trainc.yaml", VALIDATE_ONLY)
    job = upstream_repo / "jobs" / KUEUE_EXAMPLE
    text = job.read_text(encoding="utf-8")
    env = (
        "    env:\n"
        "      - name: POD\n"
        "        valueFrom:\n"
        "          fieldRef:\n"
        "            fieldPath: metadata.nosuch\n"
    )
    job.write_text(text.replace("    resourcesPerNode:\n", env + "    resourcesPerNode:\n"))
    result = invoke(upstream_repo, "validate", "--format", "json")
    assert result.code == 1
    assert _codes(result.out) == ["pod.env"]


def test_no_sweeper_and_no_secrets_are_asked_for(tmp_path: Path, invoke: Invoke) -> None:
    """Trainer enforces deadlines and generates MPI's SSH keys itself."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))
    deploying = invoke(tmp_path, "validate", "--format", "json")
    assert _codes(deploying.out) == ["compile.no-sweeper"]
    write(tmp_path, "trainc.yaml", VALIDATE_ONLY)
    validating = invoke(tmp_path, "validate", "--format", "json")
    assert validating.code == 0
    assert _codes(validating.out) == []


def test_compile_says_it_is_not_used_and_writes_nothing(
    upstream_repo: Path, invoke: Invoke
) -> None:
    write(upstream_repo, "trainc.yaml", VALIDATE_ONLY)
    for args in (("-o", "rendered"), ("-o", "rendered", "--check"), ("-o", "-")):
        result = invoke(upstream_repo, "compile", *args)
        assert result.code == 2, args
        assert result.out == ""
        assert "trainc.yaml sets deploy: TrainJob" in result.err
        assert "Run `trainc validate`" in result.err
        assert "remove `deploy` from trainc.yaml" in result.err
    assert not (upstream_repo / "rendered").exists()


def test_an_unknown_mode_is_a_config_error(upstream_repo: Path, invoke: Invoke) -> None:
    write(upstream_repo, "trainc.yaml", "deploy: Trainjob\n")
    result = invoke(upstream_repo, "validate")
    assert result.code == 1
    assert "error[config.invalid]: deploy must be one of 'JobSet', 'TrainJob'" in result.out
    assert "did you mean 'TrainJob'?" in result.out


def test_the_compile_and_sweeper_sections_are_said_to_be_unused(
    upstream_repo: Path, invoke: Invoke
) -> None:
    write(
        upstream_repo,
        "trainc.yaml",
        "deploy: TrainJob\n"
        "compile:\n"
        "  output: rendered\n"
        "sweeper:\n"
        "  image: ghcr.io/example/trainc:0.1.0\n"
        "  resources:\n"
        "    requests: {memory: 1Gi}\n"
        "    limits: {memory: 256Mi}\n",
    )
    result = invoke(upstream_repo, "validate", "--format", "json")
    assert result.code == 0
    found = json.loads(result.out)["diagnostics"]
    assert [(d["code"], d["line"]) for d in found] == [
        ("config.not-deployed", 2),
        ("config.not-deployed", 4),
    ]
    assert "its `sweeper` section is not used" in found[1]["message"]
