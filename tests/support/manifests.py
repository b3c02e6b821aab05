"""YAML text of small, valid manifests, for tests that go through files and line numbers."""

from __future__ import annotations

from pathlib import Path

TORCH_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    torch: {}
  template:
    spec:
      network:
        publishNotReadyAddresses: true
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.13.0
"""
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
