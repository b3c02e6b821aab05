"""Named files clash with the whole repository.

A platform team copied a job file and forgot to rename it: ``trainc validate`` on the
copy (what the pre-commit hook runs) passed, and the whole-repository run then blamed the
committed original. A run on named files now sees every TrainJob and runtime of the
repository that can clash with them, and reports the clash on the named file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Invoke
from tests.support.manifests import RESNET_DDP as RESNET
from tests.support.manifests import TORCH_RUNTIME, write

ORIGINAL = "jobs/vision/resnet-ddp.yaml"
COPY = "jobs/vision/resnet-ddp-v2.yaml"


def _initialised(root: Path, invoke: Invoke) -> Path:
    """A repository as ``trainc init`` sets it up, with the team's first TrainJob."""
    (root / ".git").mkdir()
    assert invoke(root, "init").code == 0
    write(root, ORIGINAL, RESNET)
    return root


def test_a_copied_job_file_fails_on_the_copy(tmp_path: Path, invoke: Invoke) -> None:
    root = _initialised(tmp_path, invoke)
    copy = write(root, COPY, RESNET.replace("numNodes: 2", "numNodes: 4"))

    result = invoke(root, "validate", COPY)

    assert result.code == 1, result.out
    assert (
        f"{COPY}:4:3: error[xobj.duplicate-object]: TrainJob vision/resnet-ddp is already "
        f"declared at {ORIGINAL}:4"
    ) in result.out
    assert f"{ORIGINAL}:" not in result.out.replace(f"declared at {ORIGINAL}:4", "")
    # Renamed, the copy passes.
    copy.write_text(RESNET.replace("name: resnet-ddp", "name: resnet-ddp-v2"), encoding="utf-8")
    assert invoke(root, "validate", COPY).code == 0


def test_the_namespace_a_copy_defaults_to_counts(tmp_path: Path, invoke: Invoke) -> None:
    root = _initialised(tmp_path, invoke)
    config = root / "trainc.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "namespace: vision\n")
    write(root, COPY, RESNET.replace("  namespace: vision\n", ""))

    result = invoke(root, "validate", COPY)

    assert result.code == 1
    assert f"{COPY}:4:3: error[xobj.duplicate-object]" in result.out


def test_a_copied_runtime_fails_on_the_copy(tmp_path: Path, invoke: Invoke) -> None:
    root = _initialised(tmp_path, invoke)
    shutil.copy(root / "runtimes/torch-distributed.yaml", root / "runtimes/torch-copy.yaml")

    result = invoke(root, "validate", "runtimes/torch-copy.yaml")

    assert result.code == 1
    assert (
        "runtimes/torch-copy.yaml:6:3: error[xobj.duplicate-object]: ClusterTrainingRuntime "
        "torch-distributed is already declared at runtimes/torch-distributed.yaml:6"
    ) in result.out


#: A runtime whose JobSet makes a claim ``data-<TrainJob>`` for each TrainJob on it.
CLAIMING_RUNTIME = TORCH_RUNTIME.replace(
    "      network:",
    "      volumeClaimPolicies:\n"
    "        - templates:\n"
    "            - metadata:\n"
    "                name: {template}\n"
    "              spec:\n"
    "                accessModes: [ReadWriteOnce]\n"
    "                resources:\n"
    "                  requests:\n"
    "                    storage: 1Gi\n"
    "      network:",
).replace(
    "                      image: pytorch/pytorch:2.13.0\n",
    "                      image: pytorch/pytorch:2.13.0\n"
    "                      volumeMounts:\n"
    "                        - name: {template}\n"
    "                          mountPath: /data\n",
)


def _job(name: str, runtime: str) -> str:
    return RESNET.replace("resnet-ddp", name).replace("torch-distributed", runtime)


def test_two_jobs_whose_claims_get_one_name(tmp_path: Path, invoke: Invoke) -> None:
    (tmp_path / ".git").mkdir()
    for name, template in (("data", "data"), ("data-shard", "data-shard")):
        runtime = CLAIMING_RUNTIME.replace("{template}", template)
        write(tmp_path, f"runtimes/{name}.yaml", runtime.replace("name: torch", f"name: {name}"))
    # data-shard-a (template data) and a (template data-shard) both claim data-shard-a.
    write(tmp_path, "jobs/a.yaml", _job("a", "data-shard"))
    write(tmp_path, "jobs/b.yaml", _job("shard-a", "data"))
    message = (
        "error[xobj.volume-claim-clash]: the PersistentVolumeClaim data-shard-a of claim "
        "template {mine!r} is also the claim of template {theirs!r} of TrainJob "
        "vision/{other} at {where}: both JobSets would use one volume"
    )

    whole = invoke(tmp_path, "validate")
    named = invoke(tmp_path, "validate", "jobs/a.yaml")

    assert whole.code == named.code == 1
    later = message.format(mine="data", theirs="data-shard", other="a", where="jobs/a.yaml:4")
    assert f"jobs/b.yaml:4:3: {later}" in whole.out
    assert "jobs/a.yaml:4:3" not in whole.out
    first = message.format(mine="data-shard", theirs="data", other="shard-a", where="jobs/b.yaml:4")
    assert f"jobs/a.yaml:4:3: {first}" in named.out
    assert invoke(tmp_path, "validate", "jobs/b.yaml").out.count("volume-claim-clash") == 1


def test_a_rendered_stream_does_not_clash_with_its_sources(tmp_path: Path, invoke: Invoke) -> None:
    root = _initialised(tmp_path, invoke)
    rendered = (root / ORIGINAL).read_text(encoding="utf-8")

    piped = subprocess.run(
        [sys.executable, "-m", "trainc", "validate", "-"],
        cwd=root,
        input=rendered,
        capture_output=True,
        encoding="utf-8",
        check=False,
    )

    assert piped.returncode == 0, piped.stdout
