"""The runtime families of the synthetic repository, one function each.

Each family exercises a different part of trainc, as the examples/ runtimes do: torch with
coscheduling (a PodGroup per job), DeepSpeed over MPI with the launcher as a node (a
hostfile ConfigMap, the SSH Secret mount), initializers sharing a claim (KEP-572
volumeClaimPolicies, PersistentVolumeClaims), torch queued by Volcano, and a plain
single-node torch runtime with environment defaults. Runtime ``i`` is of family
``i mod 5`` and varies with ``i`` (TTLs, node counts, image tags), so R runtimes are R
distinct objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bench.yamltext import Node, render

API_VERSION = "trainer.kubeflow.org/v1alpha1"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
TORCH_IMAGE = "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
DEEPSPEED_IMAGE = "ghcr.io/kubeflow/trainer/deepspeed-runtime:v2.1.0"


@dataclass(frozen=True, slots=True)
class Runtime:
    """One generated runtime: what a TrainJob needs to reference it, and its file."""

    family: str
    name: str
    namespace: str | None  # None for a ClusterTrainingRuntime
    path: str
    text: str

    @property
    def kind(self) -> str:
        """The kind a TrainJob's runtimeRef names."""
        return "ClusterTrainingRuntime" if self.namespace is None else "TrainingRuntime"


def _pod(container: Mapping[str, Node], **spec: Node) -> dict[str, Node]:
    """A replicated job's template: one container, with pod-level fields."""
    return {"spec": {"template": {"spec": {**spec, "containers": [container]}}}}


def _trainer_job(name: str, container: Mapping[str, Node], **spec: Node) -> dict[str, Node]:
    template = _pod(container, **spec)
    return {"name": name, "template": {"metadata": {"labels": {ANCESTOR: "trainer"}}, **template}}


def _torch_gang(variant: int) -> tuple[str, Node]:
    node: dict[str, Node] = {
        "name": "node",
        "image": TORCH_IMAGE,
        "resources": {"requests": {"cpu": str(4 + variant), "memory": f"{16 + 8 * variant}Gi"}},
    }
    spec: dict[str, Node] = {
        "ttlSecondsAfterFinished": 86400,
        "mlPolicy": {"numNodes": 2, "torch": {}},
        "podGroupPolicy": {"coscheduling": {"scheduleTimeoutSeconds": 120 + 60 * variant}},
        "template": {
            "spec": {
                "replicatedJobs": [
                    _trainer_job("node", node, schedulerName="scheduler-plugins-scheduler")
                ]
            }
        },
    }
    comment = "PyTorch multi-node runtime with gang scheduling (scheduler-plugins Coscheduling)."
    return comment, spec


def _deepspeed_mpi(variant: int) -> tuple[str, Node]:
    user: dict[str, Node] = {"runAsUser": 1000}
    launcher: dict[str, Node] = {"name": "node", "image": DEEPSPEED_IMAGE, "securityContext": user}
    worker: dict[str, Node] = {
        **launcher,
        "command": ("/usr/sbin/sshd",),
        "args": ("-De", "-f", "/home/mpiuser/.sshd_config"),
        "readinessProbe": {"tcpSocket": {"port": 2222}, "initialDelaySeconds": 5},
    }
    spec: dict[str, Node] = {
        "ttlSecondsAfterFinished": 3600 * (1 + variant),
        "mlPolicy": {
            "numNodes": 1,
            "mpi": {
                "numProcPerNode": 1,
                "mpiImplementation": "OpenMPI",
                "sshAuthMountPath": "/home/mpiuser/.ssh",
                "runLauncherAsNode": True,
            },
        },
        "template": {
            "spec": {
                "network": {"publishNotReadyAddresses": True},
                "successPolicy": {"operator": "All", "targetReplicatedJobs": ["launcher"]},
                "replicatedJobs": [
                    _trainer_job("launcher", launcher),
                    {"name": "node", "template": _pod(worker)},
                ],
            }
        },
    }
    comment = "DeepSpeed over OpenMPI: a launcher that also trains, plus SSH-reachable workers."
    return comment, spec


def _initializer_job(step: str, image: str, mount: str) -> Node:
    container: dict[str, Node] = {
        "name": step,
        "image": image,
        "volumeMounts": [{"name": "initializer", "mountPath": mount}],
    }
    return {
        "name": step,
        "template": {"metadata": {"labels": {ANCESTOR: step}}, **_pod(container)},
    }


def _llm_finetune(variant: int) -> tuple[str, Node]:
    node: dict[str, Node] = {
        "name": "node",
        "image": TORCH_IMAGE,
        "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}],
    }
    trainer = _trainer_job("node", node)
    claim: dict[str, Node] = {
        "metadata": {"name": "initializer"},
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "resources": {"requests": {"storage": f"{100 * (variant + 1)}Gi"}},
        },
    }
    spec: dict[str, Node] = {
        "ttlSecondsAfterFinished": 7200,
        "mlPolicy": {"numNodes": 1, "torch": {}},
        "template": {
            "spec": {
                "volumeClaimPolicies": [
                    {"templates": [claim], "retentionPolicy": {"whenDeleted": "Delete"}}
                ],
                "replicatedJobs": [
                    _initializer_job(
                        "dataset-initializer",
                        "ghcr.io/kubeflow/trainer/dataset-initializer:v2.1.0",
                        "/workspace/dataset",
                    ),
                    _initializer_job(
                        "model-initializer",
                        "ghcr.io/kubeflow/trainer/model-initializer:v2.1.0",
                        "/workspace/model",
                    ),
                    {
                        **trainer,
                        "dependsOn": [
                            {"name": "dataset-initializer", "status": "Complete"},
                            {"name": "model-initializer", "status": "Complete"},
                        ],
                    },
                ],
            }
        },
    }
    comment = (
        "LLM fine-tuning: dataset and model initializers download into a claim shared by\n"
        "every pod (KEP-572 volumeClaimPolicies), then torchrun trains."
    )
    return comment, spec


def _torch_volcano(variant: int) -> tuple[str, Node]:
    node: dict[str, Node] = {"name": "node", "image": TORCH_IMAGE}
    queue = ("research", "production", "batch")[variant % 3]
    spec: dict[str, Node] = {
        "ttlSecondsAfterFinished": 86400,
        "mlPolicy": {"numNodes": 1, "torch": {}},
        "podGroupPolicy": {"volcano": {}},
        "template": {
            "metadata": {"annotations": {"scheduling.volcano.sh/queue-name": queue}},
            "spec": {"replicatedJobs": [_trainer_job("node", node, schedulerName="volcano")]},
        },
    }
    comment = f"PyTorch gangs queued by Volcano in the queue `{queue}`."
    return comment, spec


def _torch_single(variant: int) -> tuple[str, Node]:
    node: dict[str, Node] = {
        "name": "node",
        "image": TORCH_IMAGE,
        "env": [
            {"name": "OMP_NUM_THREADS", "value": str(4 * (variant + 1))},
            {"name": "HF_HOME", "value": "/cache/huggingface"},
        ],
        "resources": {"requests": {"cpu": "8", "memory": "32Gi"}},
    }
    selector: dict[str, Node] = {
        "node.kubernetes.io/instance-type": ("g5.2xlarge", "g6.4xlarge")[variant % 2]
    }
    spec: dict[str, Node] = {
        "ttlSecondsAfterFinished": 43200,
        "mlPolicy": {"numNodes": 1, "torch": {}},
        "template": {
            "spec": {"replicatedJobs": [_trainer_job("node", node, nodeSelector=selector)]}
        },
    }
    comment = "Single-node PyTorch on a small GPU instance, for experiments and evaluation."
    return comment, spec


#: family name → (builds the spec for a variant, namespaced?). The order fixes runtime i's
#: family as ``FAMILIES[i % len(FAMILIES)]``.
FAMILIES: Sequence[tuple[str, Callable[[int], tuple[str, Node]], bool]] = (
    ("torch-gang", _torch_gang, False),
    ("deepspeed-mpi", _deepspeed_mpi, False),
    ("llm-finetune", _llm_finetune, True),
    ("torch-volcano", _torch_volcano, False),
    ("torch-single", _torch_single, True),
)


def make_runtime(index: int, namespaces: Sequence[str]) -> Runtime:
    """Runtime ``index``: its family's spec for variant ``index // len(FAMILIES)``.

    Namespaced families land in ``namespaces[index % len(namespaces)]``; their TrainJobs
    must live there too.
    """
    family, build, namespaced = FAMILIES[index % len(FAMILIES)]
    variant = index // len(FAMILIES)
    name = f"{family}-{variant}"
    namespace = namespaces[index % len(namespaces)] if namespaced else None
    comment, spec = build(variant)
    metadata: dict[str, Node] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    framework = "deepspeed" if family == "deepspeed-mpi" else "torch"
    metadata["labels"] = {"trainer.kubeflow.org/framework": framework}
    kind = "ClusterTrainingRuntime" if namespace is None else "TrainingRuntime"
    document: dict[str, Node] = {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": metadata,
        "spec": spec,
    }
    path = f"runtimes/{namespace or 'cluster'}/{name}.yaml"
    return Runtime(family, name, namespace, path, render(document, comment=comment))
