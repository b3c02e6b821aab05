from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.resolve.builders import defaulted_object, defaulted_objects
from tests.support.builders import resolved
from trainc.load.defaulted import DefaultedObject
from trainc.model.labels import FLUX_INSTALLER_IMAGE
from trainc.policy.summary import ResolvedSummary, summarize
from trainc.resolve.index import RuntimeIndex

TORCH_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer
            spec:
              template:
                spec:
                  containers:
                    - name: dataset-initializer
                      image: ghcr.io/kubeflow/trainer/dataset-initializer
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  initContainers:
                    - name: fetch
                      image: busybox:1.36
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.5
                      resources:
                        requests:
                          cpu: "1"
                        limits:
                          nvidia.com/gpu: 2
                    - name: sidecar
                      image: busybox:1.36
"""


def summarize_job(trainjob: DefaultedObject, runtime: DefaultedObject) -> ResolvedSummary:
    return summarize(resolved(trainjob, runtime))


def trainjob(trainer: str = "", name: str = "job") -> DefaultedObject:
    text = f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: torch
"""
    if trainer:
        text += "  trainer:\n" + textwrap.indent(textwrap.dedent(trainer), "    ")
    return defaulted_object(text)


def runtime(text: str = TORCH_RUNTIME) -> DefaultedObject:
    return defaulted_object(text, "runtime.yaml")


def test_torch_job_with_overrides() -> None:
    job = trainjob("""\
        numNodes: 3
        image: registry.example.com/train:1
        resourcesPerNode:
          limits:
            nvidia.com/gpu: 4
    """)
    summary = summarize_job(job, runtime())
    assert summary == {
        "numNodes": 3,
        "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}, "requests": {"cpu": "1"}},
        "gpusPerNode": 4,
        "totalGPUs": 12,
        "images": [
            "busybox:1.36",
            "ghcr.io/kubeflow/trainer/dataset-initializer",
            "registry.example.com/train:1",
        ],
        "framework": "torch",
        "runtime": {"kind": "ClusterTrainingRuntime", "name": "torch"},
    }


def test_runtime_defaults_apply_without_trainer() -> None:
    summary = summarize_job(trainjob(), runtime())
    assert summary["numNodes"] == 2
    assert summary["gpusPerNode"] == 2
    assert summary["totalGPUs"] == 4
    assert "pytorch/pytorch:2.5" in summary["images"]


@pytest.mark.parametrize(
    ("trainer", "ml_policy", "expected"),
    [
        ("numNodes: 5\n", "numNodes: 2\n    torch: {}", 5),
        ("numNodes: 0\n", "numNodes: 2\n    torch: {}", 0),  # legal, and not clamped
        ("", "numNodes: 2\n    torch: {}", 2),
        ("", "numNodes: 0\n    torch: {}", 1),  # the runtime count is clamped to 1
        ("", "torch: {}", 1),
    ],
)
def test_num_nodes_precedence(trainer: str, ml_policy: str, expected: int) -> None:
    text = TORCH_RUNTIME.replace("numNodes: 2\n    torch: {}", ml_policy)
    assert summarize_job(trainjob(trainer), runtime(text))["numNodes"] == expected


def test_without_ml_policy_parallelism_counts_and_resources_per_node_is_ignored() -> None:
    text = TORCH_RUNTIME.replace("  mlPolicy:\n    numNodes: 2\n    torch: {}\n", "").replace(
        "            spec:\n              template:\n                spec:\n                  init",
        "            spec:\n              parallelism: 3\n              template:\n"
        "                spec:\n                  init",
    )
    job = trainjob("""\
        resourcesPerNode:
          limits:
            nvidia.com/gpu: 8
    """)
    summary = summarize_job(job, runtime(text))
    assert summary["framework"] == "plain"
    assert summary["numNodes"] == 3
    assert summary["gpusPerNode"] == 2
    assert summary["resourcesPerNode"] == {
        "limits": {"nvidia.com/gpu": 2},
        "requests": {"cpu": "1"},
    }


def test_merge_keeps_runtime_keys_and_trainjob_wins() -> None:
    job = trainjob("""\
        resourcesPerNode:
          requests:
            cpu: "8"
            memory: 64Gi
          claims:
            - name: gpu-claim
    """)
    merged = summarize_job(job, runtime())["resourcesPerNode"]
    assert merged == {
        "limits": {"nvidia.com/gpu": 2},
        "requests": {"cpu": "8", "memory": "64Gi"},
        "claims": [{"name": "gpu-claim"}],
    }


def _gpus(resources: str) -> int:
    job = trainjob("resourcesPerNode:\n" + textwrap.indent(textwrap.dedent(resources), "  "))
    return summarize_job(job, runtime(TORCH_RUNTIME.replace("nvidia.com/gpu: 2", "cpu: 1")))[
        "gpusPerNode"
    ]


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ("limits:\n  amd.com/GPU: 3\n", 3),  # any case
        ("requests:\n  nvidia.com/gpu: '2'\nlimits:\n  nvidia.com/gpu: 4\n", 2),  # requests first
        ("requests:\n  nvidia.com/gpu: '0'\nlimits:\n  nvidia.com/gpu: 4\n", 4),  # 0 → limits
        ("limits:\n  nvidia.com/gpu: 500m\n", 1),  # rounded up
        ("limits:\n  nvidia.com/mig-1g.5gb: 1\n", 0),  # no "gpu" in the name
        ("limits:\n  b.com/gpu: 1\n  a.com/gpu: 2\n", 2),  # name order, not map order
        ("limits:\n  nvidia.com/gpu: lots\n", 0),  # malformed: the schema layer reports it
    ],
)
def test_gpu_detection(resources: str, expected: int) -> None:
    assert _gpus(resources) == expected


MPI_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      runLauncherAsNode: true
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi:1
                      resources:
                        limits:
                          nvidia.com/gpu: 1
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi:1
"""


@pytest.mark.parametrize(
    ("num_nodes", "expected"), [("", 2), ("numNodes: 1\n", 2), ("numNodes: 4\n", 4)]
)
def test_mpi_launcher_as_node_counts_the_launcher(num_nodes: str, expected: int) -> None:
    summary = summarize_job(trainjob(num_nodes), runtime(MPI_RUNTIME))
    assert summary["framework"] == "mpi"
    assert summary["numNodes"] == expected
    assert summary["totalGPUs"] == expected


def test_trainer_image_replaces_only_node_of_trainer_jobs() -> None:
    summary = summarize_job(trainjob("image: mine:2\n"), runtime(MPI_RUNTIME))
    # `launcher` is trainer-labelled; the `node` job keeps the runtime image.
    assert summary["images"] == ["mine:2", "mpi:1"]


FLUX_RUNTIME = TORCH_RUNTIME.replace("torch: {}", "flux: {}")


def test_flux_adds_its_installer_image() -> None:
    assert FLUX_INSTALLER_IMAGE in summarize_job(trainjob(), runtime(FLUX_RUNTIME))["images"]
    job = trainjob("""\
        env:
          - name: FLUX_VIEW_IMAGE
            value: registry.example.com/flux-view:1
    """)
    images = summarize_job(job, runtime(FLUX_RUNTIME))["images"]
    assert "registry.example.com/flux-view:1" in images
    assert FLUX_INSTALLER_IMAGE not in images


@pytest.mark.parametrize(
    ("policy", "framework"),
    [
        ("torch: {}", "torch"),
        ("jax: {}", "jax"),
        ("xgboost: {}", "xgboost"),
        ("flux: {}", "flux"),
        ("mpi: {}", "mpi"),
    ],
)
def test_framework(policy: str, framework: str) -> None:
    text = TORCH_RUNTIME.replace("torch: {}", policy)
    assert summarize_job(trainjob(), runtime(text))["framework"] == framework


UPSTREAM_EXPECTATIONS = {
    # runtime name: (framework, numNodes, gpusPerNode, images)
    "torch-distributed": ("torch", 1, 0, ["pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"]),
    "deepspeed-distributed": ("mpi", 2, 0, ["ghcr.io/kubeflow/trainer/deepspeed-runtime"]),
    "torchtune-llama3.2-1b": (
        "torch",
        1,
        2,
        [
            "ghcr.io/kubeflow/trainer/dataset-initializer",
            "ghcr.io/kubeflow/trainer/model-initializer",
            "ghcr.io/kubeflow/trainer/torchtune-trainer",
        ],
    ),
    "flux-distributed": ("flux", 1, 0, [FLUX_INSTALLER_IMAGE, "ubuntu:jammy"]),
}


def _upstream_objects(shared_dir: Path) -> list[DefaultedObject]:
    objects = []
    for path in sorted((shared_dir / "upstream" / "trainer-examples").glob("*.yaml")):
        if path.name.startswith("v2.1.0_"):
            continue  # older API revision
        objects.extend(defaulted_objects(path.read_text(encoding="utf-8"), path.name))
    return objects


def test_upstream_runtimes(shared_dir: Path) -> None:
    runtimes = {
        o.name: o for o in _upstream_objects(shared_dir) if o.kind == "ClusterTrainingRuntime"
    }
    for name, (framework, nodes, gpus, images) in UPSTREAM_EXPECTATIONS.items():
        summary = summarize_job(trainjob(), runtimes[name])
        assert (summary["framework"], summary["numNodes"], summary["gpusPerNode"]) == (
            framework,
            nodes,
            gpus,
        ), name
        assert summary["images"] == images, name


def test_upstream_trainjobs_on_their_runtimes(shared_dir: Path) -> None:
    objects = _upstream_objects(shared_dir)
    index = RuntimeIndex(objects)
    summaries = {}
    for job in (o for o in objects if o.kind == "TrainJob"):
        found = index.lookup(job)
        if isinstance(found, DefaultedObject):
            summaries[job.loaded.path, job.name] = summarize_job(job, found)
    assert summaries["01-multi-node.yaml", "multi-node-example"]["numNodes"] == 3
    lammps = summaries["lammps-train-gpus.yaml", "lammps-flux"]
    assert (lammps["numNodes"], lammps["gpusPerNode"], lammps["totalGPUs"]) == (2, 1, 2)
    assert "ghcr.io/flux-framework/tutorials:gpu-lammps-hwloc" in lammps["images"]
