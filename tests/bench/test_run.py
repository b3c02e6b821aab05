"""The runner measures a whole size in one run and stops when cached results differ."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench.measure import Sample, executable
from bench.report import Runs
from bench.run import (
    BenchError,
    Setup,
    code_digest,
    code_unchanged,
    main,
    same_findings,
    same_trees,
)


def test_one_run_measures_every_row_and_judges_every_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if executable("check-jsonschema") is None:
        pytest.skip("check-jsonschema is not installed (pip install -r bench/requirements.txt)")
    results = tmp_path / "RESULTS.md"
    results.write_text("# results\n\nwritten by hand\n")
    work, users = tmp_path / "work", tmp_path / "user-cache"
    # The user's cache settings reach neither the runner's cache nor the user's cache.
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(users))
    monkeypatch.setenv("TRAINC_NO_CACHE", "1")
    argv = ["--sizes", "30", "--runs", "1", "--jobsets", "--work", str(work)]
    # The default work directory, bench/.work, sits inside trainc's own checkout.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)

    assert main([*argv, "--out", str(results)]) == 0

    assert not users.exists()
    assert any((work / "n30/cache/compile").iterdir())
    assert any((work / "n30/cache/single-file-cold").iterdir())
    block = capsys.readouterr().out
    assert f"<!-- bench:results:begin -->\n{block}<!-- bench:results:end -->" in results.read_text()
    rows = cells(block)
    assert rows["input: TrainJob files, total size"][0].startswith("30, ")
    written = rows["output: files, total size"][0].split(",")[0]
    # Committed as a GitOps repository is, so trainc reads every file even where the work
    # directory sits inside a git checkout: 30 TrainJobs, the sweeper's and shared files.
    assert (work / "n30/repo/.git").is_dir()
    assert written == "42"
    assert rows["floor: files byte-identical to trainc's"] == [written]
    warm = [line for line in block.splitlines() if line.startswith("| the same, warm, ")]
    assert len(warm) == 3  # validate, compile and Argo CD generate, each measured
    assert all(" s (" in line for line in warm)
    assert rows["compile: warm / cold"] != ["-"]
    assert rows["Argo CD `generate`: warm / cold"][0].endswith("x")
    assert " s (" in rows["the same, warm, repository unchanged"][0]
    hook_ratio = "`trainc validate FILE` / check-jsonschema FILE, with (without) `inputs.runtimes`"
    assert rows[hook_ratio][0].endswith("x)")
    assert any((work / "n30/cache/argocd").iterdir())  # filled through TRAINC_CACHE_DIR
    verdicts = [row[-1] for name, row in rows.items() if name.startswith(TARGET_NAMES)]
    assert len(verdicts) == len(TARGET_NAMES)
    assert set(verdicts) <= {"met", "**not met**"}  # all measured at N = 30
    assert "sweeper" not in block  # no JobSets asked for


#: The first words of each target the runner judges at one size.
TARGET_NAMES = (
    "one changed file, N = 30, no `inputs.runtimes`: median",
    "one changed file, N = 30, no `inputs.runtimes` / check-jsonschema",
    "one changed file, N = 30, with `inputs.runtimes`: median",
    "one changed file, N = 30, with `inputs.runtimes` / check-jsonschema",
    "compile again after changing one file",
    "validate again after changing one file",
    "Argo CD `generate`, repository unchanged",
    "`trainc compile` peak memory (PSS, workers included), N = 30",
    "`trainc compile` / floor",
    "`trainc validate` / floor",
    "check-jsonschema / `trainc validate`",
)


def cells(block: str) -> dict[str, list[str]]:
    """Each Markdown table row of ``block`` by its first cell: the other cells."""
    rows = {}
    for line in block.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            name, *rest = (cell.strip() for cell in line.strip("|").split(" | "))
            rows[name] = rest
    return rows


def sample(stdout: str = "", returncode: int = 0) -> Sample:
    return Sample(
        argv=(),
        wall=1.0,
        cpu=1.0,
        peak_memory=0,
        returncode=returncode,
        stdout=stdout,
        stderr="",
    )


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_trees_must_be_byte_identical(tmp_path: Path) -> None:
    files = {"a/job.yaml": b"kind: JobSet\n", "kustomization.yaml": b"resources: []\n"}
    warm = write(tmp_path / "warm", files)
    same_trees(warm, write(tmp_path / "same", files))
    changed = write(tmp_path / "changed", {**files, "a/job.yaml": b"kind: JobSet \n"})
    with pytest.raises(BenchError, match=r"1 files differ, e\.g\. a/job\.yaml"):
        same_trees(warm, changed)
    extra = write(tmp_path / "extra", {**files, "b/more.yaml": b"{}\n"})
    with pytest.raises(BenchError, match=r"b/more\.yaml"):
        same_trees(warm, extra)


def test_findings_must_match() -> None:
    clean = json.dumps({"diagnostics": [], "summary": {"files": 3}})
    cached = json.dumps({"diagnostics": [], "summary": {"files": 1}})
    found = json.dumps({"diagnostics": [{"code": "schema.type"}], "summary": {"files": 3}})
    same_findings(Runs(cold=sample(clean), warm=sample(cached), uncached=sample(clean)))
    with pytest.raises(BenchError, match="findings differ"):
        same_findings(Runs(cold=sample(clean), warm=sample(clean), uncached=sample(found, 1)))


def test_a_change_to_trainc_during_the_run_stops_it(tmp_path: Path) -> None:
    # Every cache key holds trainc's code: an edit between a cold and a warm run made the
    # warm compile miss its cache and measure 1.16x the cold one.
    package = write(tmp_path / "trainc", {"__init__.py": b"", "sweep/calls.py": b"PAGE = 500\n"})
    setup = Setup(
        trainc="trainc",
        check_jsonschema="check-jsonschema",
        source=tmp_path,
        package=package,
        code=code_digest(package),
        env={},
        cached=True,
        seed=0,
        runs=1,
        repeat=1,
    )
    code_unchanged(setup)
    (package / "sweep/calls.py").write_bytes(b"PAGE = 2000\n")
    with pytest.raises(BenchError, match=r"trainc's code .* changed during the run"):
        code_unchanged(setup)
