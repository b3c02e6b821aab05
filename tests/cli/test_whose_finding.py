"""A finding about a TrainJob's pods names the TrainJob and sits on the value's own line.

Replayed as a new user met it: a gang runtime whose container requests CPU and memory,
and a TrainJob on it that asks for two GPUs per node without a limit. The API server
refuses the Job the JobSet controller creates; the finding must name the TrainJob and
point at its ``nvidia.com/gpu`` request, not at the runtime's ``resources:``.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Invoke
from tests.support.manifests import runtime_yaml, write

RUNTIME = runtime_yaml(
    "torch-gang",
    num_nodes=2,
    coscheduling_timeout=120,
    scheduler="scheduler-plugins-scheduler",
    requests={"cpu": '"4"', "memory": "16Gi"},
)
"""A gang runtime whose container requests CPU and memory: its resources end on line 29."""

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: torch-gang
  trainer:
    resourcesPerNode:
      requests:
        nvidia.com/gpu: 2
"""

#: The line of ``nvidia.com/gpu: 2`` in :data:`TRAINJOB`.
GPU_LINE = 11
REFUSAL = (
    "the API server would refuse the Job of replicatedJob 'node', created by the JobSet "
    "controller: spec.template.spec.containers[0].resources.limits: Required value: "
    "Limit must be set for non overcommitable resources"
)


def _repo(tmp_path: Path, *names: str) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", "apiVersion: trainc.dev/v1alpha1\nkind: Config\n")
    write(tmp_path, "runtimes/torch-gang.yaml", RUNTIME)
    for name in names:
        write(tmp_path, f"jobs/{name}.yaml", TRAINJOB.format(name=name))
    return tmp_path


def test_the_console_names_the_trainjob_and_its_gpu_line(tmp_path: Path, invoke: Invoke) -> None:
    outcome = invoke(_repo(tmp_path, "llama-ft"), "validate")

    assert outcome.code == 1
    assert f"jobs/llama-ft.yaml:{GPU_LINE}:9: error[pod.resource-limits]: {REFUSAL}" in outcome.out
    assert f"{GPU_LINE} |         nvidia.com/gpu: 2" in outcome.out
    assert (
        "= note: TrainJob default/llama-ft, field: "
        "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]"
    ) in outcome.out
    assert "runtimes/torch-gang.yaml" not in outcome.out


def test_the_json_report_names_the_trainjob_and_its_gpu_line(
    tmp_path: Path, invoke: Invoke
) -> None:
    outcome = invoke(_repo(tmp_path, "llama-ft"), "validate", "--format", "json")

    [finding] = json.loads(outcome.out)["diagnostics"]
    assert finding["code"] == "pod.resource-limits"
    assert (finding["file"], finding["line"]) == ("jobs/llama-ft.yaml", GPU_LINE)
    assert (finding["kind"], finding["namespace"], finding["name"]) == (
        "TrainJob",
        "default",
        "llama-ft",
    )
    assert finding["fieldPath"] == "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]"
    assert finding["message"] == REFUSAL
    assert str(finding["hint"]).startswith("nvidia.com/gpu is requested (2) without a limit")


def test_each_trainjob_that_asks_is_reported_on_its_own_line(
    tmp_path: Path, invoke: Invoke
) -> None:
    outcome = invoke(_repo(tmp_path, "a", "b"), "validate", "--format", "json")

    found = json.loads(outcome.out)["diagnostics"]
    assert [(d["file"], d["line"], d["name"]) for d in found] == [
        ("jobs/a.yaml", GPU_LINE, "a"),
        ("jobs/b.yaml", GPU_LINE, "b"),
    ]


def test_a_runtime_mistake_is_one_finding_counting_the_trainjobs_it_breaks(
    tmp_path: Path, invoke: Invoke
) -> None:
    repo = _repo(tmp_path)
    write(
        repo,
        "runtimes/torch-gang.yaml",
        RUNTIME.replace('cpu: "4"', '"nvidia.com/gpu": 1'),
    )
    names = [f"job-{number:02}" for number in range(50)]
    for name in names:
        write(repo, f"jobs/{name}.yaml", TRAINJOB.format(name=name).split("  trainer:")[0])

    outcome = invoke(repo, "validate", "--format", "json")

    [finding] = json.loads(outcome.out)["diagnostics"]
    assert (finding["file"], finding["line"], finding["kind"]) == (
        "runtimes/torch-gang.yaml",
        29,
        "ClusterTrainingRuntime",
    )
    assert str(finding["fieldPath"]).endswith("resources.requests[nvidia.com/gpu]")
    assert finding["message"] == (
        "50 TrainJobs (default/job-00, default/job-01, default/job-02 and 47 more): " + REFUSAL
    )
