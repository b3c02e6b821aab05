"""A runtime that was not found, explained by the file a run left out (upstream's
``manifests/base/runtimes`` copied with its kustomization.yaml, every job then saying
``xobj.runtime-not-found`` with the reason visible only with ``-v``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

UPSTREAM_RUNTIMES = ("torch_distributed", "deepspeed_distributed", "mlx_distributed")
KUSTOMIZATION = (
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
    + "".join(f"  - {name}.yaml\n" for name in UPSTREAM_RUNTIMES)
)


@pytest.fixture
def repo(tmp_path: Path, shared_dir: Path) -> Path:
    """Upstream's runtimes copied with a kustomization, and a TrainJob on one of them."""
    (tmp_path / ".git").mkdir()
    runtimes = tmp_path / "manifests/base/runtimes"
    runtimes.mkdir(parents=True)
    for name in UPSTREAM_RUNTIMES:
        shutil.copy(shared_dir / f"upstream/trainer-examples/{name}.yaml", runtimes)
    write(runtimes, "kustomization.yaml", KUSTOMIZATION)
    write(tmp_path, "jobs/resnet.yaml", trainjob_yaml("resnet", runtime="torch-distributed"))
    return tmp_path


@pytest.mark.parametrize("named", [(), ("jobs/resnet.yaml",)], ids=["repository", "pre-commit"])
def test_a_runtime_in_a_kustomize_directory_is_named_in_the_hint(
    repo: Path, named: tuple[str, ...]
) -> None:
    result = run(repo, "validate", *named)
    assert result.returncode == 1
    assert "error[xobj.runtime-not-found]" in result.stdout
    assert (
        "help: a ClusterTrainingRuntime named 'torch-distributed' is defined in "
        "manifests/base/runtimes/torch_distributed.yaml, which trainc does not read: "
        "manifests/base/runtimes/kustomization.yaml makes manifests/base/runtimes a kustomize "
        "directory, read only through its build."
    ) in result.stdout
    assert "kustomize build manifests/base/runtimes | trainc validate - ." in result.stdout


def test_the_fix_the_hint_gives_passes(repo: Path) -> None:
    (repo / "manifests/base/runtimes/kustomization.yaml").unlink()
    result = run(repo, "validate")
    assert result.returncode == 0, result.stdout


def test_a_runtime_under_inputs_exclude_is_named_in_the_hint(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", "inputs:\n  exclude: [vendor/**]\n")
    write(tmp_path, "vendor/runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/resnet.yaml", trainjob_yaml("resnet"))
    result = run(tmp_path, "validate")
    assert result.returncode == 1
    assert (
        "help: a ClusterTrainingRuntime named 'torch' is defined in vendor/runtimes/torch.yaml, "
        "which trainc does not read: inputs.exclude in trainc.yaml leaves it out"
    ) in result.stdout


def test_no_hint_without_a_left_out_runtime_of_that_name(tmp_path: Path) -> None:
    """Another name, or a link out of the repository, is not offered as the runtime."""
    (tmp_path / ".git").mkdir()
    outside = write(tmp_path / "elsewhere", "torch.yaml", TORCH_RUNTIME)
    runtimes = tmp_path / "repo/runtimes"
    write(runtimes, "kustomization.yaml", "resources: [torch.yaml]\n")
    (runtimes / "torch.yaml").symlink_to(outside)
    write(runtimes, "other.yaml", TORCH_RUNTIME.replace("name: torch", "name: other"))
    (tmp_path / "repo/.git").mkdir()
    write(tmp_path / "repo", "jobs/resnet.yaml", trainjob_yaml("resnet"))
    result = run(tmp_path / "repo", "validate")
    assert result.returncode == 1
    assert "error[xobj.runtime-not-found]" in result.stdout
    assert "which trainc does not read" not in result.stdout
