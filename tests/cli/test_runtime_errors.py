"""A runtime's errors and the checks of the TrainJobs on it.

A platform team took upstream's runtimes (no ``ttlSecondsAfterFinished``) and switched on
the built-in ``require-runtime-ttl``: every pod and Job check of every TrainJob on them
was skipped without a word, and fixing the runtime surfaced the jobs' own errors. A
policy the cluster does not enforce stops nothing now, and a TrainJob whose runtime the
cluster would refuse says that it was not fully checked.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.cli.conftest import Invoke
from tests.support.manifests import RESNET_DDP, write

#: The team's TrainJob with GPUs requested without a limit.
GPU_WITHOUT_LIMIT = RESNET_DDP.replace("limits:", "requests:")
#: A name too long for the pod names JobSet generates from it.
LONG_NAME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama-finetune-with-a-very-long-descriptive-name-v2
  namespace: nlp
spec:
  runtimeRef:
    name: torch-distributed
"""
#: A Kueue queue name Kueue refuses (no DNS-1123 subdomain).
BAD_QUEUE = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: bert
  namespace: nlp
  labels:
    kueue.x-k8s.io/queue-name: Team_NLP
spec:
  runtimeRef:
    name: torch-distributed
"""
#: What the jobs themselves get wrong, whatever the runtime's TTL.
JOB_ERRORS = [
    ("jobs/bert.yaml", "kueue.queue-name"),
    ("jobs/llama.yaml", "xobj.jobset-name-budget"),
    ("jobs/resnet.yaml", "pod.resource-limits"),
]
RUNTIME = "runtimes/torch_distributed.yaml"


def _repository(root: Path, shared_dir: Path) -> Path:
    (root / ".git").mkdir()
    (root / "runtimes").mkdir()
    upstream = shared_dir / "upstream" / "trainer-examples" / "torch_distributed.yaml"
    shutil.copy(upstream, root / RUNTIME)
    write(root, "trainc.yaml", "policies:\n  enable: [require-runtime-ttl]\n")
    write(root, "jobs/resnet.yaml", GPU_WITHOUT_LIMIT)
    write(root, "jobs/llama.yaml", LONG_NAME)
    write(root, "jobs/bert.yaml", BAD_QUEUE)
    return root


def _errors(invoke: Invoke, root: Path, *paths: str) -> list[tuple[str, str]]:
    result = invoke(root, "validate", "--format", "json", *paths)
    assert result.code == 1, result.out
    report = json.loads(result.out)
    return [(d["file"], d["code"]) for d in report["diagnostics"] if d["severity"] == "error"]


def test_a_runtime_without_ttl_hides_none_of_its_jobs_errors(
    tmp_path: Path, shared_dir: Path, invoke: Invoke
) -> None:
    root = _repository(tmp_path, shared_dir)

    assert _errors(invoke, root) == [*JOB_ERRORS, (RUNTIME, "policy.require-runtime-ttl")]
    # The pre-commit hook names the changed TrainJob: its errors show there too.
    assert _errors(invoke, root, "jobs/resnet.yaml") == [
        ("jobs/resnet.yaml", "pod.resource-limits"),
        (RUNTIME, "policy.require-runtime-ttl"),
    ]

    runtime = root / RUNTIME
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("  mlPolicy:", "  ttlSecondsAfterFinished: 3600\n  mlPolicy:"))
    assert _errors(invoke, root) == JOB_ERRORS  # fixing the runtime surfaces nothing new


def test_a_job_on_a_runtime_the_cluster_refuses_says_it_was_not_fully_checked(
    tmp_path: Path, shared_dir: Path, invoke: Invoke
) -> None:
    root = _repository(tmp_path, shared_dir)
    runtime = root / RUNTIME
    text = runtime.read_text(encoding="utf-8")
    coordinator = "    spec:\n      coordinator:\n        replicatedJob: nope\n"
    broken = text.replace("    spec:\n", coordinator, 1)
    runtime.write_text(broken, encoding="utf-8")

    result = invoke(root, "validate", "jobs/resnet.yaml")

    assert result.code == 1
    assert "pod.resource-limits" not in result.out
    assert (
        "jobs/resnet.yaml:10:5: warning[xobj.not-fully-checked]: TrainJob vision/resnet-ddp was "
        "not fully checked: its runtime ClusterTrainingRuntime torch-distributed "
        "(runtimes/torch_distributed.yaml:18) has errors the cluster would refuse it with, so "
        "the checks of the JobSet, Jobs and pods this TrainJob becomes did not run"
    ) in result.out
    assert "error[xobj.jobset-coordinator]: coordinator replicatedJob nope" in result.out
    # A whole-repository run says it of each job on the runtime, and of no other.
    typo = GPU_WITHOUT_LIMIT.replace("resnet-ddp", "typo") + "  numNode: 2\n"
    write(root, "jobs/typo.yaml", typo)
    whole = invoke(root, "validate").out
    assert re.findall(r"^(\S+): warning\[xobj.not-fully-checked\]", whole, re.MULTILINE) == [
        "jobs/bert.yaml:10:5",
        "jobs/llama.yaml:8:5",
        "jobs/resnet.yaml:10:5",
    ]
    assert "jobs/typo.yaml:16:3: error[schema.unknown-field]" in whole
