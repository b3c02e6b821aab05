"""Upstream's torchtune runtimes with ``volumeClaimPolicies: Native``.

A platform team keeps the claims for JobSet >= 0.11 to create and puts upstream's
torchtune runtimes, whose initializer and trainer containers all mount the claim template
``initializer``, beside a TrainJob. The JobSet controller gives each Job that mounts the
template a ``persistentVolumeClaim`` volume ``initializer`` → ``initializer-<jobset>``;
trainc used to judge those Jobs without it ("Not found: \"initializer\"").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import Invoke
from tests.support.manifests import trainjob_yaml, write
from trainc.model.json import JsonObject, as_object, get_path
from trainc.resolve.childjobs import child_jobs

_VOLUMES = ("spec", "template", "spec", "volumes")

_NATIVE = """\
apiVersion: trainc.dev/v1alpha1
kind: Config
compile:
  volumeClaimPolicies: Native
"""

_TRAINJOB = trainjob_yaml("tune", runtime="torchtune-llama3.2-1b", namespace="research")


@pytest.fixture
def native_repo(tmp_path: Path, shared_dir: Path) -> Path:
    """trainc.yaml in Native mode, upstream's runtime as copied, a data scientist's job."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", _NATIVE)
    (tmp_path / "runtimes").mkdir()
    shutil.copy(shared_dir / "upstream/trainer-examples/llama3_2_1B.yaml", tmp_path / "runtimes")
    write(tmp_path, "jobs/tune.yaml", _TRAINJOB)
    return tmp_path


def test_validate_accepts_the_upstream_torchtune_runtime(native_repo: Path, invoke: Invoke) -> None:
    outcome = invoke(native_repo, "validate")

    # Upstream's images carry no tag: warnings (compile.image-tag), and no error.
    assert outcome.code == 0, outcome.out + outcome.err
    assert "error" not in outcome.out + outcome.err


def test_compile_leaves_the_claims_to_the_jobset_controller(
    native_repo: Path, invoke: Invoke
) -> None:
    outcome = invoke(native_repo, "compile", "-o", "-")

    assert outcome.code == 0, outcome.err
    documents: list[JsonObject] = list(YAML(typ="safe").load_all(outcome.out))
    assert [d["kind"] for d in documents] == ["JobSet"]
    (jobset,) = documents
    templates = get_path(jobset, ("spec", "volumeClaimPolicies", 0, "templates", 0, "metadata"))
    assert templates == {"name": "initializer"}
    # What the JobSet controller then creates from the emitted JobSet.
    jobs = child_jobs("tune", "research", as_object(jobset["metadata"]), as_object(jobset["spec"]))
    claim = {"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer-tune"}}
    assert {job.replicated_job: get_path(job.job, _VOLUMES) for job in jobs} == {
        "dataset-initializer": [claim],
        "model-initializer": [claim],
        "node": [claim],
    }
