"""``--jobs N``: the same output bytes and findings whatever N, errors as in one process,
and no worker left behind by an interrupt or a killed run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bench.generate import generate
from tests.cli.conftest import Invoke
from tests.emit.trees import file_contents
from tests.support.compiled import compile_collected
from tests.test_cases import ALL_CASES, Case, materialise
from trainc.app import validate_paths
from trainc.checks.output.objects import OutputCheck
from trainc.engine import job_pass, workers

EXAMPLES = Path(__file__).parents[2] / "examples"

#: An environment variable the API server refuses in a Job (a name with "=").
BAD_ENV = '      - name: "A=B"\n        value: x\n'

#: Enough TrainJobs for three workers at the shipped threshold, each sent several chunks.
JOBS = 200


@pytest.fixture(scope="module")
def bench_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Each of three workers gets several chunks: a smaller repository would test fewer.
    assert workers.workers_for(JOBS, 3) == 3
    root = tmp_path_factory.mktemp("pool") / "repo"
    generate(root, jobs=JOBS, seed=3)
    return root


@pytest.fixture
def small_runs_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run with two TrainJobs or more uses a pool, so small repositories exercise it."""
    monkeypatch.setattr(workers, "MIN_ITEMS_PER_WORKER", 1)


def _with_errors(source: Path, target: Path) -> Path:
    """``source`` copied, with errors and warnings in some of its TrainJobs: an invalid
    environment variable name (Jobs the API server refuses) in every 37th file, and no
    ``team`` label (the repository policy's warning) in every 53rd."""
    shutil.copytree(source, target)
    for number, path in enumerate(sorted((target / "jobs").rglob("*.yaml"))):
        text = path.read_text()
        if number % 37 == 5:
            text = text.replace("    env:\n", f"    env:\n{BAD_ENV}", 1)
        if number % 53 == 7:
            text = text.replace("    team: ", "    owner: ")
        path.write_text(text)
    return target


def test_compile_writes_the_same_bytes_whatever_the_workers(
    bench_repo: Path, tmp_path: Path, invoke: Invoke
) -> None:
    trees = []
    streams = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out-{jobs}"
        assert invoke(bench_repo, "compile", "-q", "-o", str(out), "--jobs", jobs).code == 0
        trees.append(file_contents(out))
        streamed = invoke(bench_repo, "compile", "-q", "-o", "-", "--jobs", jobs)
        assert streamed.code == 0
        streams.append(streamed.out)

    assert len(trees[0]) > JOBS
    assert trees[1] == trees[0]
    assert trees[2] == trees[0]
    assert streams[1] == streams[0]
    assert streams[2] == streams[0]


def test_compile_writes_the_same_bytes_with_and_without_a_cache(
    bench_repo: Path, tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cold, warm and ``--no-cache`` (whose whole objects wait in a spill file) write the
    same tree, and the uncached run leaves no file in the temporary directory."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    cache = ["--cache-dir", str(tmp_path / "cache")]
    trees = []
    for way, flags in (("cold", cache), ("warm", cache), ("uncached", ["--no-cache"])):
        out = tmp_path / way
        assert invoke(bench_repo, "compile", "-q", "-o", str(out), "--jobs", "2", *flags).code == 0
        trees.append(file_contents(out))

    assert len(trees[0]) > JOBS
    assert trees[1] == trees[0]
    assert trees[2] == trees[0]
    assert list(scratch.iterdir()) == []


def test_findings_are_the_same_whatever_the_workers(
    bench_repo: Path, tmp_path: Path, invoke: Invoke
) -> None:
    repo = _with_errors(bench_repo, tmp_path / "repo")
    found = [invoke(repo, "validate", "--format", "json", "--jobs", n) for n in ("1", "2", "3")]
    compiled = [invoke(repo, "compile", "-o", "-", "--jobs", n) for n in ("1", "3")]

    findings = json.loads(found[0].out)["diagnostics"]
    assert {finding["code"] for finding in findings} == {"policy.team-label", "pod.env"}
    assert len(findings) > 2 * JOBS // 53
    assert [outcome.code for outcome in found] == [1, 1, 1]
    assert found[1].out == found[0].out
    assert found[2].out == found[0].out
    assert [outcome.code for outcome in compiled] == [1, 1]
    assert compiled[0].out == compiled[1].out == ""
    assert compiled[1].err == compiled[0].err


@pytest.mark.usefixtures("small_runs_fork")
def test_the_examples_compile_to_the_same_bytes_whatever_the_workers() -> None:
    runs = [compile_collected([], cwd=EXAMPLES, jobs=jobs) for jobs in (1, 2, 3)]

    assert runs[0].report.exit_code == 0
    for run in runs[1:]:
        assert run.files == runs[0].files
        assert run.stream == runs[0].stream
        assert run.report.diagnostics == runs[0].report.diagnostics


def _forking_cases() -> list[Case]:
    """The cases of the corpus with two TrainJobs or more: those a pool judges."""
    return [
        case
        for case in ALL_CASES
        if sum(
            path.read_text(errors="replace").count("kind: TrainJob\n")
            for path in case.path.rglob("*")
            if path.is_file()
        )
        >= 2
    ]


@pytest.mark.usefixtures("small_runs_fork")
def test_every_case_of_the_corpus_finds_the_same_whatever_the_workers(tmp_path: Path) -> None:
    cases = _forking_cases()
    assert len(cases) > 10
    assert any(case.has_base for case in cases)
    for case in cases:
        root = tmp_path / f"{case.area}-{case.validity}-{case.name}"
        base = materialise(case, root)
        one = validate_paths([], cwd=root, base=base, jobs=1)
        three = validate_paths([], cwd=root, base=base, jobs=3)
        assert three.diagnostics == one.diagnostics, case.path


def _build_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(job: object) -> None:
        raise ValueError("a builder broke")

    monkeypatch.setattr(job_pass, "build_job", broken)


def _output_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(OutputCheck, "problems", lambda self, objects, jobs=True: ["bad"])


@pytest.mark.parametrize("breaks", [_build_fails, _output_check_fails])
def test_an_error_in_a_worker_is_the_error_of_one_process(
    bench_repo: Path, monkeypatch: pytest.MonkeyPatch, invoke: Invoke, breaks: object
) -> None:
    assert callable(breaks)
    breaks(monkeypatch)
    outcomes = [invoke(bench_repo, "compile", "-o", "-", "--jobs", n) for n in ("1", "2")]

    assert outcomes[0].code == 2
    assert "internal error" in outcomes[0].err
    assert outcomes[1] == outcomes[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_a_killed_compile_without_a_cache_leaves_no_temporary_file(
    big_repo: Path, tmp_path: Path
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "TMPDIR": str(scratch)}
    command = [sys.executable, "-m", "trainc", "compile", "-q", "-o", str(tmp_path / "out")]
    process = subprocess.Popen(
        [*command, "--jobs", "2", "--no-cache"],
        cwd=big_repo,
        env=env,
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    try:
        _workers_of(process)
        time.sleep(1)  # the file pass under way: the spill file holds wholes
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        assert list(scratch.iterdir()) == []
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("command", ["validate", "compile"])
@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_fewer_than_one_job_is_a_usage_error(
    bench_repo: Path, invoke: Invoke, command: str, jobs: str
) -> None:
    outcome = invoke(bench_repo, command, "--jobs", jobs)

    assert outcome.code == 2
    assert f"--jobs {jobs}: give at least 1" in outcome.err


# ------------------------------------------------------------------ interrupts and kills


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough TrainJobs that the workers run for seconds on a busy machine."""
    root = tmp_path_factory.mktemp("pool-big") / "repo"
    generate(root, jobs=3000, seed=4)
    return root


def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return set()
    return {int(child) for child in text.split()}


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _workers_of(process: subprocess.Popen[bytes]) -> set[int]:
    """The worker processes of ``process``, once it has started two."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        children = _children(process.pid)
        if len(children) >= 2:
            return children
        time.sleep(0.02)
    pytest.fail("the compile never started its workers")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
@pytest.mark.parametrize(
    ("sig", "group"),
    [(signal.SIGINT, True), (signal.SIGTERM, False), (signal.SIGKILL, False)],
    ids=["ctrl-c", "terminated", "killed"],
)
def test_no_worker_outlives_an_interrupted_or_killed_compile(
    big_repo: Path, tmp_path: Path, sig: signal.Signals, *, group: bool
) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    command = [sys.executable, "-m", "trainc", "compile", "-q", "-o", str(tmp_path / "out")]
    errors = tmp_path / "stderr"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            [*command, "--jobs", "2"],
            cwd=big_repo,
            env=env,
            start_new_session=True,
            stderr=stderr,
        )
    started = time.monotonic()
    try:
        pids = _workers_of(process)
        signalled = time.monotonic() - started
        if group:  # a terminal's Ctrl-C reaches every process of the group
            os.killpg(process.pid, sig)
        else:
            os.kill(process.pid, sig)
        code = process.wait(timeout=60)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in pids if _alive(pid)]
        # Said when it fails (seen once on a machine at load 12-16, not reproduced since):
        # when the signal went out, how the compile ended, and what it printed.
        assert not (tmp_path / "out").exists(), (
            f"signalled {signalled:.2f} s after the start, when workers {sorted(pids)} ran;"
            f" exit {code}; stderr: {errors.read_text(errors='replace')[-2000:]!r}"
        )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("command", ["validate", "compile"])
def test_validate_and_compile_say_what_jobs_does(invoke: Invoke, command: str) -> None:
    assert "-j, --jobs N" in invoke(EXAMPLES, command, "--help").out
