"""``trainc explain``: each line of a compiled manifest, and each field's history, traced
to the line or rule it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, write
from trainc.app import explain_paths
from trainc.errors import UsageError
from trainc.explain import ExplainedObject, FieldStep

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RESNET = "jobs/vision/resnet-ddp.yaml"
LLAMA = "jobs/llm/llama-finetune.yaml"


def line_of(path: str, text: str, root: Path = EXAMPLES) -> int:
    """The line number of the first line of ``root/path`` holding ``text``."""
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def explained(path: str, root: Path = EXAMPLES) -> list[ExplainedObject]:
    report = explain_paths([root / path], cwd=root)
    assert report.exit_code == 0
    return list(report.objects)


def origins(obj: ExplainedObject, text: str) -> list[str]:
    """The origins of the lines of ``obj`` that hold ``text``."""
    return [line.origin for line in obj.lines if text in line.text]


def test_image_command_env_and_replicas_of_a_jobset_name_their_origin() -> None:
    jobset, podgroup = explained(RESNET)

    assert jobset.title == "JobSet ml-team/resnet50-ddp"
    job_line = f"{RESNET}:{line_of(RESNET, 'image: registry.example.com/vision/resnet')}"
    assert origins(jobset, "image: registry.example.com/vision/resnet:1.4.0") == [job_line]
    assert origins(jobset, "- torchrun")[0] == f"{RESNET}:{line_of(RESNET, 'command:')}"
    assert origins(jobset, "name: NCCL_DEBUG") == [f"{RESNET}:{line_of(RESNET, 'NCCL_DEBUG')}"]
    assert origins(jobset, "name: PET_NNODES")[0].startswith("torch plugin: torchrun environment")
    assert origins(jobset, "completions: 4")[0].startswith("jobset plugin: parallelism")
    runtime = "runtimes/torch-distributed.yaml"
    assert origins(jobset, "schedulerName:") == [f"{runtime}:{line_of(runtime, 'schedulerName')}"]
    assert origins(jobset, "restartPolicy: OnFailure")[0].startswith("JobSet default:")
    # What no rule of resolution wrote is trainc's own, and every line is explained.
    assert origins(jobset, "apiVersion:") == ["trainc"]
    assert all(line.origin for line in jobset.lines + podgroup.lines)
    assert podgroup.title == "PodGroup ml-team/resnet50-ddp"


def test_a_runtime_patch_names_its_manager_and_line() -> None:
    (jobset, *_) = explained(LLAMA)
    where = f"{LLAMA}:{line_of(LLAMA, 'node.kubernetes.io/instance-type')}"
    assert origins(jobset, "node.kubernetes.io/instance-type: p5.48xlarge") == [
        f"patch platform.example.com/scheduling ({where})"
    ]


#: A runtime with a node selector a patch can replace and an env the TrainJob overrides.
RUNTIME = TORCH_RUNTIME.replace(
    "                  containers:\n",
    "                  nodeSelector:\n                    pool: runtime\n"
    "                  containers:\n",
) + (
    "                      env:\n"
    "                        - name: LEVEL\n"
    "                          value: runtime\n"
)

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: torch
  runtimePatches:
    - manager: example.com/team
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector:
                          pool: patch
  trainer:
    env:
      - name: LEVEL
        value: override
"""


@pytest.fixture
def patched(tmp_path: Path) -> Path:
    """A runtime whose nodeSelector a patch replaces and whose env the TrainJob overrides."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", RUNTIME)
    write(tmp_path, "job.yaml", TRAINJOB)
    return tmp_path


def where(root: Path, path: str, text: str) -> str:
    return f"{path}:{line_of(path, text, root)}"


def test_a_field_shows_the_runtime_value_a_patch_replaced(patched: Path) -> None:
    report = explain_paths([patched / "job.yaml"], cwd=patched, field="nodeSelector.pool")

    (history,) = report.fields
    assert history.title == "JobSet default/job"
    assert history.steps == (
        FieldStep("runtime", where(patched, "runtime.yaml", "pool: runtime")),
        FieldStep("patch", f"patch example.com/team ({where(patched, 'job.yaml', 'pool: patch')})"),
    )


def test_a_field_shows_the_runtime_value_the_trainjob_overrode(patched: Path) -> None:
    report = explain_paths([patched / "job.yaml"], cwd=patched, field="env[LEVEL].value")

    (history,) = report.fields
    assert history.steps == (
        FieldStep("runtime", where(patched, "runtime.yaml", "value: runtime")),
        FieldStep("override", where(patched, "job.yaml", "value: override")),
    )


def test_selectors_that_name_nothing_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="--object JobSet/nope"):
        explain_paths([EXAMPLES / RESNET], cwd=EXAMPLES, object_name="JobSet/nope")
    with pytest.raises(UsageError, match="KIND/NAME"):
        explain_paths([EXAMPLES / RESNET], cwd=EXAMPLES, object_name="JobSet")
    with pytest.raises(UsageError, match=r"--field a\.\.b"):
        explain_paths([EXAMPLES / RESNET], cwd=EXAMPLES, field="a..b")
    with pytest.raises(UsageError, match="--field nope"):
        explain_paths([EXAMPLES / RESNET], cwd=EXAMPLES, field="nope")


def test_the_command_prints_manifest_lines_with_their_origin_column() -> None:
    result = run(EXAMPLES, "explain", RESNET, "--object", "podgroup/resnet50-ddp")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "# PodGroup ml-team/resnet50-ddp"
    assert lines[1].startswith("apiVersion: scheduling.x-k8s.io/v1alpha1")
    assert lines[1].endswith("  # trainc")
    assert len({line.index("  # ") for line in lines[1:] if line}) == 1  # one column
    field = run(EXAMPLES, "explain", RESNET, "--field", "containers[node].image")
    assert field.stdout.splitlines()[-1].startswith("  => registry.example.com/vision/resnet")
