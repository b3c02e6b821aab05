"""Conformance: upstream Trainer's own manifests, through the whole validation pipeline.

Every HEAD runtime and TrainJob in ``../shared/upstream/trainer-examples`` must validate
clean, except where upstream itself rejects the input; the ``v2.1.0_`` files use older
spellings and must get migration diagnostics, never a crash.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from trainc.app import ValidationReport, validate_paths
from trainc.diagnostics import Severity

#: Runtimes that TrainJob examples reference but define in another file.
RUNTIME_FILES = {
    "torch-distributed": "torch_distributed.yaml",
    "flux-distributed": "flux-runtime.yaml",
    "pytorch-kai-runtime": "docs_operator-guides_job-scheduling_kai_1.yaml",
    "pytorch-team-runtime": "docs_operator-guides_runtime_3.yaml",
}

_STALE_TORCH = {("migrate.torch-num-proc-per-node", "spec.mlPolicy.torch.numProcPerNode")}

#: What upstream itself rejects, and why (API history: Trainer's release notes), and what
#: trainc refuses by design, by file: only findings in the file itself count (a TrainJob's
#: runtime is judged in its own file).
EXPECTED_ERRORS = {
    # Created suspended for Kueue's TrainJob integration: compiled into a JobSet in git,
    # that suspend fights Kueue forever (docs/kueue.md).
    "03-kueue-integration.yaml": {("kueue.suspend-in-git", "spec.suspend")},
    # Its dataset-initializer container lacks the `initializer` volumeMount (v2.3.0 check).
    "05-multi-step.yaml": {("xobj.initializer-volume-mount", "spec.initializer.dataset")},
    # References a runtime that no upstream file defines.
    "docs_operator-guides_runtime-patches_1.yaml": {
        ("xobj.runtime-not-found", "spec.runtimeRef.name")
    },
    # A docs snippet in a shape the API never had: numNodes under torch, containers
    # directly in the JobSet spec.
    "docs_operator-guides_job-scheduling_kai_1.yaml": {
        ("schema.unknown-field", "spec.mlPolicy.torch.numNodes"),
        ("schema.unknown-field", "spec.template.spec.schedulerName"),
        ("schema.unknown-field", "spec.template.spec.containers"),
    },
    # Stale docs: runtime torch.numProcPerNode was removed in v2.2.0.
    "docs_operator-guides_runtime_1.yaml": _STALE_TORCH,
    "docs_operator-guides_runtime_3.yaml": _STALE_TORCH,
    "docs_user-guides_local-execution_overview_1.yaml": _STALE_TORCH,
    "docs_user-guides_pytorch-rocm_1.yaml": _STALE_TORCH,
}

#: Migration findings of the v2.1.0 files: torch numProcPerNode left the runtime API.
EXPECTED_MIGRATIONS = {
    "v2.1.0_torch_distributed.yaml": {"migrate.torch-num-proc-per-node"},
    "v2.1.0_torch_distributed_with_cache.yaml": {"migrate.torch-num-proc-per-node"},
    "v2.1.0_llama3_2_1B.yaml": {"migrate.torch-num-proc-per-node"},
    "v2.1.0_llama3_2_3B.yaml": {"migrate.torch-num-proc-per-node"},
    "v2.1.0_qwen2_5_1.5B.yaml": {"migrate.torch-num-proc-per-node"},
    # MPI's numProcPerNode is still part of the API: these two are current.
    "v2.1.0_deepspeed_distributed.yaml": set(),
    "v2.1.0_mlx_distributed.yaml": set(),
}


def _examples(shared_dir: Path) -> Path:
    return shared_dir / "upstream" / "trainer-examples"


def _head_files(shared_dir: Path) -> list[Path]:
    return sorted(p for p in _examples(shared_dir).glob("*.yaml") if "v2.1.0_" not in p.name)


def _validate(repo: Path, files: list[Path]) -> ValidationReport:
    for file in files:
        shutil.copy(file, repo / file.name)
    return validate_paths([], cwd=repo)


def _referenced_runtimes(text: str) -> list[str]:
    return [name for name in RUNTIME_FILES if f"name: {name}\n" in text]


def test_head_examples_validate_clean_unless_upstream_rejects_them(
    shared_dir: Path, tmp_path: Path
) -> None:
    examples = _examples(shared_dir)
    failures: dict[str, object] = {}
    for index, file in enumerate(_head_files(shared_dir)):
        repo = tmp_path / str(index)
        repo.mkdir()
        (repo / ".git").mkdir()  # marks the repository root
        text = file.read_text(encoding="utf-8")
        needed = {
            examples / RUNTIME_FILES[name]
            for name in _referenced_runtimes(text)
            if "kind: TrainJob" in text and RUNTIME_FILES[name] != file.name
        }
        report = _validate(repo, [file, *sorted(needed)])
        errors = {
            (d.code, d.field_path) for d in report.diagnostics if d.is_error and d.file == file.name
        }
        if errors != EXPECTED_ERRORS.get(file.name, set()):
            failures[file.name] = sorted(
                (d.code, d.file, d.line, d.message) for d in report.diagnostics if d.is_error
            )
    assert failures == {}


def test_every_head_example_object_is_read(shared_dir: Path, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = _head_files(shared_dir)
    report = _validate(tmp_path, files)
    # Several files define the same runtime names: the duplicate check must see them.
    assert report.objects == sum(
        f.read_text(encoding="utf-8").count("\napiVersion: trainer.kubeflow.org/") for f in files
    )
    assert any(d.code == "xobj.duplicate-object" for d in report.diagnostics)


@pytest.mark.parametrize("name", sorted(EXPECTED_MIGRATIONS))
def test_v2_1_examples_get_migration_diagnostics(
    shared_dir: Path, tmp_path: Path, name: str
) -> None:
    (tmp_path / ".git").mkdir()
    report = _validate(tmp_path, [_examples(shared_dir) / name])
    migrations = {d.code for d in report.diagnostics if d.code.startswith("migrate.")}
    assert migrations == EXPECTED_MIGRATIONS[name]
    for finding in report.diagnostics:
        if finding.code.startswith("migrate."):
            assert finding.severity is Severity.ERROR
            assert finding.line is not None
            assert finding.hint
