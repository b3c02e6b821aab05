"""A gang that can never fit its namespace's GPU quota, met as a new user meets it.

`trainc validate` in a fresh repository: trainc.yaml points `cluster.manifests` at a
`platform/` directory holding the Namespace and its ResourceQuota of 8 GPUs, and a
4-node torch TrainJob asks for 4 GPUs per node. Each pod fits the quota alone; the four
together need 16, so the job can never start. The finding must sit on the numNodes line,
name the TrainJob, and give the totals and the limit.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run
from tests.support.manifests import runtime_yaml, write

CONFIG = """\
cluster:
  manifests: ["platform/*.yaml"]
"""

PLATFORM = """\
apiVersion: v1
kind: Namespace
metadata:
  name: research
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: gpus
  namespace: research
spec:
  hard:
    requests.nvidia.com/gpu: "8"
"""

RUNTIME = runtime_yaml("torch-distributed")

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama
  namespace: research
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 4
    resourcesPerNode:
      requests:
        nvidia.com/gpu: 4
"""

#: The GPU limit a new user adds once told that GPUs cannot be overcommitted.
LIMITED = TRAINJOB + "      limits:\n        nvidia.com/gpu: 4\n"

#: The line of ``numNodes: 4`` in the TrainJob.
NODES_LINE = 10
GPU_LINE = 13


def _repo(root: Path, trainjob: str) -> Path:
    (root / ".git").mkdir()
    write(root, "trainc.yaml", CONFIG)
    write(root, "platform/research.yaml", PLATFORM)
    write(root, "runtimes/torch-distributed.yaml", RUNTIME)
    write(root, "jobs/llama.yaml", trainjob)
    return root


def test_a_gang_above_the_gpu_quota_is_refused_at_its_node_count(tmp_path: Path) -> None:
    completed = run(_repo(tmp_path, LIMITED), "validate")

    assert completed.returncode == 1, completed.stderr
    assert f"jobs/llama.yaml:{NODES_LINE}:5: error[quota.gang-exceeds]: " in completed.stdout
    assert f"{NODES_LINE} |     numNodes: 4" in completed.stdout
    assert "TrainJob research/llama, field: spec.trainer.numNodes" in completed.stdout
    assert (
        "quota 'gpus' can never admit all 4 pods of this gang at once: together they "
        "request requests.nvidia.com/gpu=16, but the quota allows requests.nvidia.com/gpu=8 "
        "in the whole namespace"
    ) in completed.stdout
    assert "raise the hard limit of quota 'gpus' to at least requests.nvidia.com/gpu=16" in (
        completed.stdout
    )


def test_the_json_report_names_the_trainjob_and_the_node_count_line(tmp_path: Path) -> None:
    completed = run(_repo(tmp_path, LIMITED), "validate", "--format", "json")

    assert completed.returncode == 1, completed.stderr
    [finding] = json.loads(completed.stdout)["diagnostics"]
    assert finding["code"] == "quota.gang-exceeds"
    assert (finding["file"], finding["line"]) == ("jobs/llama.yaml", NODES_LINE)
    assert (finding["kind"], finding["namespace"], finding["name"]) == (
        "TrainJob",
        "research",
        "llama",
    )
    assert finding["fieldPath"] == "spec.trainer.numNodes"
    assert "requests.nvidia.com/gpu=16" in finding["message"]
    assert "requests.nvidia.com/gpu=8" in finding["message"]


def test_a_gpu_request_without_a_limit_is_refused_before_any_pod_exists(tmp_path: Path) -> None:
    """Without the limit the API server refuses the Job itself, so no pod reaches the
    quota: the first finding a new user meets is the missing limit, not the quota."""
    completed = run(_repo(tmp_path, TRAINJOB), "validate", "--format", "json")

    assert completed.returncode == 1, completed.stderr
    found = json.loads(completed.stdout)["diagnostics"]
    assert [(d["code"], d["line"]) for d in found] == [("pod.resource-limits", GPU_LINE)]
