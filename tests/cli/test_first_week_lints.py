"""The lints a platform team adopting trainc expected, replayed as they met them.

Upstream's DeepSpeed runtime names ``deepspeed-runtime`` without a tag and the TrainJob's
``trainer.image`` reaches only the launcher; a two-minute deadline is checked by a sweeper
that runs every five; ``namespace: reserch`` got a sweeper Role. Each is a warning now
(exit 0), with its own code, and trainc.yaml's ``rules`` can turn each off.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

_CONFIG = """\
apiVersion: trainc.dev/v1alpha1
kind: Config
compile:
  mpi:
    sshAuthSecret: mpi-ssh
"""

_DEEPSPEED_JOB = trainjob_yaml("bert", runtime="deepspeed-distributed", namespace="research") + (
    "  trainer:\n    image: registry.example.com/research/deepspeed:1.4.0\n    numNodes: 2\n"
)


def _job(namespace: str, *, deadline: int | None = None) -> str:
    return trainjob_yaml("resnet", namespace=namespace, deadline=deadline)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    return tmp_path


def test_the_untagged_deepspeed_workers_are_named_with_where_their_image_comes_from(
    repo: Path, shared_dir: Path, invoke: Invoke
) -> None:
    write(repo, "trainc.yaml", _CONFIG)
    upstream = shared_dir / "upstream/trainer-examples/deepspeed_distributed.yaml"
    shutil.copy(upstream, repo / "runtimes/deepspeed.yaml")
    write(repo, "jobs/bert.yaml", _DEEPSPEED_JOB)

    outcome = invoke(repo, "validate")

    assert outcome.code == 0, outcome.out + outcome.err
    report = outcome.out + outcome.err
    findings = [line for line in report.splitlines() if "[compile.image-tag]" in line]
    assert len(findings) == 1, report
    (finding,) = findings
    assert finding.startswith("runtimes/deepspeed.yaml:")
    assert "image 'ghcr.io/kubeflow/trainer/deepspeed-runtime' has no tag" in finding
    assert "it runs in container 'node' of replicatedJob 'node'" in finding
    assert "trainer.image reaches only replicatedJob 'launcher'" in finding


def test_a_latest_image_in_the_trainjob_is_reported_at_its_line(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/a.yaml", _job("research") + "  trainer:\n    image: team/resnet:latest\n")

    outcome = invoke(repo, "validate")

    assert outcome.code == 0
    assert "jobs/a.yaml:10:5: warning[compile.image-tag]: image 'team/resnet:latest' is " in (
        outcome.out + outcome.err
    )


@pytest.mark.parametrize(("schedule", "warned"), [(None, True), ("* * * * *", False)])
def test_a_deadline_shorter_than_the_sweepers_period(
    repo: Path, invoke: Invoke, schedule: str | None, warned: bool
) -> None:
    sweeper = "sweeper:\n  image: registry.example.com/trainc:0.1.0\n"
    if schedule is not None:
        sweeper += f"  schedule: {schedule!r}\n"
    write(repo, "trainc.yaml", "apiVersion: trainc.dev/v1alpha1\nkind: Config\n" + sweeper)
    write(repo, "jobs/a.yaml", _job("research", deadline=120))

    outcome = invoke(repo, "validate")

    assert outcome.code == 0
    report = outcome.out + outcome.err
    expected = (
        "jobs/a.yaml:7:3: warning[compile.deadline-sweep-period]: activeDeadlineSeconds is "
        "120 s, shorter than the up to 300 s the sweeper that enforces it waits between runs"
    )
    assert (expected in report) is warned, report


def test_a_mistyped_namespace_is_named_with_the_closest_known_one(
    repo: Path, invoke: Invoke
) -> None:
    write(repo, "namespaces.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: research\n")
    write(repo, "jobs/a.yaml", _job("reserch"))

    outcome = invoke(repo, "validate")

    assert outcome.code == 0
    report = outcome.out + outcome.err
    assert "jobs/a.yaml:5:3: warning[compile.unknown-namespace]: namespace 'reserch'" in report
    assert "did you mean 'research'?" in report


def test_the_hook_on_one_file_judges_namespaces_by_trainc_yaml_only(
    repo: Path, invoke: Invoke
) -> None:
    # Run on a named file, trainc reads no other Namespace manifest: without trainc.yaml's
    # list it cannot tell a typo from a namespace declared elsewhere, and says nothing.
    write(repo, "namespaces.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: research\n")
    write(repo, "jobs/a.yaml", _job("reserch"))
    alone = invoke(repo, "validate", "jobs/a.yaml")
    assert "compile.unknown-namespace" not in alone.out + alone.err

    write(
        repo,
        "trainc.yaml",
        "apiVersion: trainc.dev/v1alpha1\nkind: Config\nnamespaces: [research]\n",
    )
    outcome = invoke(repo, "validate", "jobs/a.yaml")

    assert "warning[compile.unknown-namespace]: namespace 'reserch'" in outcome.out + outcome.err


def test_each_lint_can_be_turned_off(repo: Path, invoke: Invoke) -> None:
    write(
        repo,
        "trainc.yaml",
        """\
apiVersion: trainc.dev/v1alpha1
kind: Config
namespaces: [research]
sweeper:
  image: registry.example.com/trainc:0.1.0
rules:
  compile.image-tag: "off"
  compile.deadline-sweep-period: "off"
  compile.unknown-namespace: "off"
""",
    )
    write(repo, "jobs/a.yaml", _job("reserch", deadline=60) + "  trainer:\n    image: a:latest\n")

    outcome = invoke(repo, "validate")

    assert outcome.code == 0
    assert "warning" not in outcome.out + outcome.err


def test_validate_only_repositories_have_no_sweeper_to_wait_for(repo: Path, invoke: Invoke) -> None:
    # With deploy: TrainJob the Trainer controller holds deadlines itself.
    write(
        repo,
        "trainc.yaml",
        "apiVersion: trainc.dev/v1alpha1\nkind: Config\ndeploy: TrainJob\n"
        "sweeper:\n  image: registry.example.com/trainc:0.1.0\n",
    )
    write(repo, "jobs/a.yaml", _job("research", deadline=120))

    outcome = invoke(repo, "validate")

    assert outcome.code == 0
    assert "compile.deadline-sweep-period" not in outcome.out + outcome.err
