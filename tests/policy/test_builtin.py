"""The built-in policy pack: each policy loads, is documented, and judges as documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.resolve.builders import defaulted_objects
from tests.support.builders import policy_findings
from trainc.config.limits import InputLimits
from trainc.config.settings import PolicySettings, RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, get_path
from trainc.policy.apply import load_policies
from trainc.resources import data_dir

BUILTINS = sorted(path.stem for path in data_dir("policies").glob("*.yaml"))

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  initContainers:
                    - name: warmup
                      image: busybox:1.36
                  containers:
                    - name: node
                      image: ghcr.io/kubeflow/trainer/torch:1
                      resources:
                        limits:
                          nvidia.com/gpu: 4
"""


def trainjob(spec: str) -> str:
    return (
        "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata:\n  name: job\nspec:\n  runtimeRef:\n    name: torch\n" + spec
    )


def run(
    tmp_path: Path, name: str, objects: str, params: JsonObject | None = None
) -> list[Diagnostic]:
    settings = PolicySettings(
        enable=frozenset({name}), params={name: params} if params is not None else {}
    )
    policies = load_policies(RepoConfig(root=tmp_path, policies=settings))
    assert policies.diagnostics == ()
    loaded = defaulted_objects(objects)
    return policy_findings(policies, loaded)


@pytest.mark.parametrize("name", BUILTINS)
def test_each_builtin_is_valid_named_after_its_file_and_documented(
    tmp_path: Path, name: str
) -> None:
    settings = PolicySettings(enable=frozenset({name}))
    loaded = load_policies(RepoConfig(root=tmp_path, policies=settings))
    assert loaded.diagnostics == ()
    assert [p.name for p in loaded.policies] == [name]
    text = (data_dir("policies") / f"{name}.yaml").read_text(encoding="utf-8")
    (document,) = parse_documents(SourceFile(name, text), InputLimits()).documents
    description = get_path(document.data, ("metadata", "annotations", "trainc.dev/description"))
    assert isinstance(description, str)
    assert len(description) > 40


def test_the_pack_is_the_documented_one() -> None:
    assert BUILTINS == [
        "allowed-image-registries",
        "max-gpus-per-job",
        "require-active-deadline",
        "require-runtime-ttl",
    ]


# --- require-active-deadline ---------------------------------------------------------


def test_active_deadline_missing(tmp_path: Path) -> None:
    (diagnostic,) = run(tmp_path, "require-active-deadline", trainjob(""))
    assert diagnostic.code == "policy.require-active-deadline"
    assert diagnostic.field_path == "spec.activeDeadlineSeconds"
    assert diagnostic.message.startswith("spec.activeDeadlineSeconds must be set")


def test_active_deadline_set(tmp_path: Path) -> None:
    job = trainjob("  activeDeadlineSeconds: 86400\n")
    assert run(tmp_path, "require-active-deadline", job) == []


def test_active_deadline_above_the_configured_maximum(tmp_path: Path) -> None:
    job = trainjob("  activeDeadlineSeconds: 86400\n")
    (diagnostic,) = run(tmp_path, "require-active-deadline", job, {"maxSeconds": 3600})
    assert diagnostic.message == (
        "spec.activeDeadlineSeconds is 86400; at most 3600 seconds are allowed"
    )
    assert run(tmp_path, "require-active-deadline", job, {"maxSeconds": 86400}) == []


# --- max-gpus-per-job ----------------------------------------------------------------


def test_gpus_within_the_default_limit(tmp_path: Path) -> None:
    objects = RUNTIME + trainjob("  trainer:\n    numNodes: 2\n")
    assert run(tmp_path, "max-gpus-per-job", objects) == []


def test_gpus_above_the_default_limit(tmp_path: Path) -> None:
    objects = RUNTIME + trainjob("  trainer:\n    numNodes: 3\n")
    (diagnostic,) = run(tmp_path, "max-gpus-per-job", objects)
    assert diagnostic.code == "policy.max-gpus-per-job"
    assert diagnostic.message == (
        "the job takes 12 GPUs (3 nodes x 4 per node); at most 8 are allowed per TrainJob"
    )


def test_gpus_with_a_configured_limit_and_resources_per_node(tmp_path: Path) -> None:
    spec = (
        "  trainer:\n    numNodes: 4\n    resourcesPerNode:\n      limits:\n"
        "        nvidia.com/gpu: 8\n"
    )
    objects = RUNTIME + trainjob(spec)
    assert run(tmp_path, "max-gpus-per-job", objects, {"maxGPUs": 32}) == []
    assert len(run(tmp_path, "max-gpus-per-job", objects, {"maxGPUs": 31})) == 1


def test_gpus_of_an_unresolved_runtime_are_not_judged(tmp_path: Path) -> None:
    assert run(tmp_path, "max-gpus-per-job", trainjob("")) == []


# --- allowed-image-registries --------------------------------------------------------

REGISTRY_OBJECTS = RUNTIME + trainjob("")


def test_registries_default_allows_nothing_and_says_what_to_configure(tmp_path: Path) -> None:
    (diagnostic,) = run(tmp_path, "allowed-image-registries", REGISTRY_OBJECTS)
    assert diagnostic.code == "policy.allowed-image-registries"
    assert "policies.params.allowed-image-registries.registries" in diagnostic.message


def test_registries_all_allowed(tmp_path: Path) -> None:
    params: JsonObject = {"registries": ["ghcr.io/kubeflow/", "docker.io/library"]}
    assert run(tmp_path, "allowed-image-registries", REGISTRY_OBJECTS, params) == []


def test_registries_report_the_images_outside(tmp_path: Path) -> None:
    params: JsonObject = {"registries": ["ghcr.io/kubeflow"]}
    (diagnostic,) = run(tmp_path, "allowed-image-registries", REGISTRY_OBJECTS, params)
    assert diagnostic.message == (
        "images from registries that are not allowed: docker.io/library/busybox:1.36 "
        "(allowed: ghcr.io/kubeflow)"
    )


@pytest.mark.parametrize(
    ("image", "allowed"),
    [
        ("ghcr.io/kubeflow-fork/torch:1", False),  # prefixes match whole segments
        ("ghcr.io/kubeflow/trainer:1", True),
        ("localhost:5000/train:1", False),
        ("pytorch/pytorch:2.5", False),  # docker.io/pytorch/pytorch
    ],
)
def test_registries_match_whole_segments(tmp_path: Path, image: str, allowed: bool) -> None:
    objects = RUNTIME.replace("busybox:1.36", image) + trainjob("")
    params: JsonObject = {"registries": ["ghcr.io/kubeflow"]}
    diagnostics = run(tmp_path, "allowed-image-registries", objects, params)
    assert (diagnostics == []) is allowed


def test_registries_see_the_trainer_image_override(tmp_path: Path) -> None:
    objects = RUNTIME + trainjob("  trainer:\n    image: evil.example.com/miner:1\n")
    params: JsonObject = {"registries": ["ghcr.io/kubeflow", "docker.io/library"]}
    (diagnostic,) = run(tmp_path, "allowed-image-registries", objects, params)
    assert "evil.example.com/miner:1" in diagnostic.message


# --- require-runtime-ttl -------------------------------------------------------------


def test_runtime_ttl_missing(tmp_path: Path) -> None:
    (diagnostic,) = run(tmp_path, "require-runtime-ttl", RUNTIME + trainjob(""))
    assert (diagnostic.code, diagnostic.kind, diagnostic.name) == (
        "policy.require-runtime-ttl",
        "ClusterTrainingRuntime",
        "torch",
    )


def test_runtime_ttl_set(tmp_path: Path) -> None:
    runtime = RUNTIME.replace("  mlPolicy:", "  ttlSecondsAfterFinished: 3600\n  mlPolicy:")
    assert run(tmp_path, "require-runtime-ttl", runtime) == []
