"""The synthetic benchmark repository is valid, compiles, and is the same for the same seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.generate import edit_job, generate
from bench.runtimes import FAMILIES
from tests.support.compiled import compile_collected
from trainc.app import validate_paths
from trainc.config.read import load_config

JOBS = 20


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "repo"
    generate(root, jobs=JOBS, seed=1)
    return root


def test_validates_without_findings(repository: Path) -> None:
    report = validate_paths([], cwd=repository)
    assert [(d.code, d.file) for d in report.diagnostics] == []
    assert report.objects == JOBS + 10


def test_compiles_every_job(repository: Path) -> None:
    report = compile_collected([], cwd=repository)
    assert report.diagnostics == ()
    config = load_config(cwd=repository).config
    assert config is not None
    assert config.compile.output == "rendered"
    files = report.files
    assert sum(path.count("/") == 1 and not path.startswith("_shared") for path in files) == JOBS
    assert any(path.startswith("_shared/trainc-system/cronjob-") for path in files)


def test_every_runtime_family_and_feature_is_used(repository: Path) -> None:
    texts = [path.read_text() for path in sorted((repository / "jobs").rglob("*.yaml"))]
    runtimes = "".join(path.read_text() for path in (repository / "runtimes").rglob("*.yaml"))
    for family, _, _ in FAMILIES:
        assert f"name: {family}-" in runtimes
    for feature in ("runtimePatches:", "initializer:", "kind: TrainingRuntime", "valueFrom:"):
        assert any(feature in text for text in texts), feature
    assert "runLauncherAsNode: true" in runtimes
    assert "volumeClaimPolicies:" in runtimes
    assert len({text.split("namespace: ")[1].split()[0] for text in texts}) > 1


def test_job_files_have_realistic_sizes(repository: Path) -> None:
    sizes = [path.stat().st_size for path in (repository / "jobs").rglob("*.yaml")]
    assert len(sizes) == JOBS
    assert all(900 <= size <= 3000 for size in sizes), sizes


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    def snapshot(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.yaml")}

    first = generate(tmp_path / "a", jobs=5, seed=7)
    again = generate(tmp_path / "b", jobs=5, seed=7)
    other = generate(tmp_path / "c", jobs=5, seed=8)
    assert first.jobs == again.jobs
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert snapshot(tmp_path / "a") != snapshot(tmp_path / "c")
    assert len(other.jobs) == 5


def test_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        generate(tmp_path, jobs=1)


def test_an_edit_changes_the_deadline_only_and_keeps_the_job_valid(tmp_path: Path) -> None:
    generated = generate(tmp_path, jobs=3, seed=2)
    path = tmp_path / generated.jobs[1]
    original = path.read_text()
    first, second = edit_job(original, 1), edit_job(original, 2)
    assert len({original, first, second}) == 3
    changed = [
        (before, after)
        for before, after in zip(original.splitlines(), first.splitlines(), strict=True)
        if before != after
    ]
    ((before, after),) = changed
    assert int(after.split(": ")[1]) == int(before.split(": ")[1]) + 1
    assert before.strip().startswith("activeDeadlineSeconds:")
    path.write_text(second)
    report = validate_paths([], cwd=tmp_path)
    assert [(d.code, d.file) for d in report.diagnostics] == []


def test_an_edit_refuses_text_without_a_deadline() -> None:
    with pytest.raises(ValueError, match="activeDeadlineSeconds"):
        edit_job("kind: TrainJob\n", 1)
