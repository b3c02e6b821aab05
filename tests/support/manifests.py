"""YAML text of small, valid manifests, for tests that go through files and line numbers."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def runtime_yaml(
    name: str = "torch",
    *,
    num_nodes: int | None = None,
    coscheduling_timeout: int | None = None,
    publish_not_ready: bool = False,
    scheduler: str | None = None,
    requests: Mapping[str, str] | None = None,
) -> str:
    """A ClusterTrainingRuntime ``name`` in torch-distributed's shape: one ``node``
    replicatedJob whose container ``node`` runs ``pytorch/pytorch:2.13.0``. Each option
    adds its lines: ``mlPolicy.numNodes``, a coscheduling ``podGroupPolicy`` with its
    timeout, ``network.publishNotReadyAddresses``, the pod's ``schedulerName``, the
    container's ``resources.requests`` (values as YAML text, ``'"4"'``)."""
    lines = [
        "apiVersion: trainer.kubeflow.org/v1alpha1",
        "kind: ClusterTrainingRuntime",
        "metadata:",
        f"  name: {name}",
        "spec:",
        "  mlPolicy:",
        *([f"    numNodes: {num_nodes}"] if num_nodes is not None else []),
        "    torch: {}",
    ]
    if coscheduling_timeout is not None:
        lines += [
            "  podGroupPolicy:",
            "    coscheduling:",
            f"      scheduleTimeoutSeconds: {coscheduling_timeout}",
        ]
    lines += ["  template:", "    spec:"]
    if publish_not_ready:
        lines += ["      network:", "        publishNotReadyAddresses: true"]
    lines += [
        "      replicatedJobs:",
        "        - name: node",
        "          template:",
        "            metadata:",
        "              labels:",
        "                trainer.kubeflow.org/trainjob-ancestor-step: trainer",
        "            spec:",
        "              template:",
        "                spec:",
        *([f"                  schedulerName: {scheduler}"] if scheduler else []),
        "                  containers:",
        "                    - name: node",
        "                      image: pytorch/pytorch:2.13.0",
    ]
    if requests:
        lines += ["                      resources:", "                        requests:"]
        lines += [f"                          {key}: {value}" for key, value in requests.items()]
    return "\n".join(lines) + "\n"


TORCH_RUNTIME = runtime_yaml(publish_not_ready=True)
"""A ClusterTrainingRuntime ``torch`` in torch-distributed's shape (one ``node`` job)."""


RESNET_DDP = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: resnet-ddp
  namespace: vision
  labels:
    team: vision
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 1
"""
"""A team's TrainJob as data scientists write it, on upstream's ``torch-distributed``
(as ``trainc init`` scaffolds it): its name on line 4, its runtime's on line 10."""


def trainjob_yaml(
    name: str = "job", *, runtime: str = "torch", deadline: object = None, namespace: str = ""
) -> str:
    """A TrainJob on ``runtime``; ``spec.activeDeadlineSeconds`` is on line 6 when given
    (7 with a ``namespace``, which is on line 5)."""
    lines = [
        "apiVersion: trainer.kubeflow.org/v1alpha1",
        "kind: TrainJob",
        "metadata:",
        f"  name: {name}",
        *([f"  namespace: {namespace}"] if namespace else []),
        "spec:",
    ]
    if deadline is not None:
        lines.append(f"  activeDeadlineSeconds: {deadline}")
    lines += ["  runtimeRef:", f"    name: {runtime}"]
    return "\n".join(lines) + "\n"


def write(root: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``root/name``, creating directories; returns the path."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
