"""A queued job Kueue can never admit, met as a new user meets it.

`trainc validate` in a fresh repository: trainc.yaml points `cluster.manifests` at a
`platform/` directory holding the team's Namespace and Kueue's queues (a ClusterQueue of 8
GPUs in flavor a100, the team's LocalQueue), and a 4-node torch TrainJob with 4 GPUs per
node names that LocalQueue. Nothing refuses the JobSet: it would wait suspended forever.
The finding must sit on the GPU line, name the TrainJob and say it in Kueue's words.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_quota_gang import CONFIG
from tests.support.cli import run
from tests.support.manifests import runtime_yaml, write

PLATFORM = """\
apiVersion: v1
kind: Namespace
metadata:
  name: research
  labels: {team: research}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: a100
          resources:
            - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: research
  namespace: research
spec:
  clusterQueue: gpu
"""

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 4
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 4
"""

#: The line of the TrainJob's ``nvidia.com/gpu: 4`` limit.
GPU_LINE = 15


def _repo(root: Path, trainjob: str) -> Path:
    (root / ".git").mkdir()
    write(root, "trainc.yaml", CONFIG)
    write(root, "platform/research.yaml", PLATFORM)
    write(root, "runtimes/torch-distributed.yaml", runtime_yaml("torch-distributed"))
    write(root, "jobs/llama.yaml", trainjob)
    return root


def test_a_job_above_its_cluster_queue_is_reported_at_its_gpu_request(tmp_path: Path) -> None:
    completed = run(_repo(tmp_path, TRAINJOB), "validate")

    assert completed.returncode == 1, completed.stderr
    assert f"jobs/llama.yaml:{GPU_LINE}:9: error[kueue.inadmissible]: " in completed.stdout
    assert "TrainJob research/llama, field: spec.trainer.resourcesPerNode.limits" in (
        completed.stdout
    )
    assert (
        "couldn't assign flavors to pod set node: insufficient quota for nvidia.com/gpu in "
        "flavor a100, previously considered podsets requests (0) + current podset request "
        "(16) > maximum capacity (8)"
    ) in completed.stdout


def test_the_json_report_names_the_trainjob_and_a_missing_queue(tmp_path: Path) -> None:
    trainjob = TRAINJOB.replace("queue-name: research", "queue-name: team-b")
    completed = run(_repo(tmp_path, trainjob), "validate", "--format", "json")

    assert completed.returncode == 1, completed.stderr
    [finding] = json.loads(completed.stdout)["diagnostics"]
    assert finding["code"] == "kueue.queue-missing"
    assert (finding["file"], finding["line"]) == ("jobs/llama.yaml", 7)
    assert (finding["kind"], finding["namespace"], finding["name"]) == (
        "TrainJob",
        "research",
        "llama",
    )
    assert finding["message"].endswith("(queue 'team-b'): LocalQueue team-b doesn't exist")


def test_a_job_that_fits_passes(tmp_path: Path) -> None:
    completed = run(_repo(tmp_path, TRAINJOB.replace("numNodes: 4", "numNodes: 2")), "validate")

    assert completed.returncode == 0, completed.stdout + completed.stderr
