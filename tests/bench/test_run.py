"""The runner measures a whole size in one run and stops when cached results differ."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.generate import generate
from bench.measure import Sample, executable
from bench.report import Runs
from bench.run import (
    REPO,
    BenchError,
    Setup,
    _commit_all,
    _Repository,
    code_digest,
    code_unchanged,
    has_server,
    main,
    same_findings,
    same_trees,
)


@pytest.fixture
def server_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The temporary directory the runner makes its server's runtime directory in (a short
    one: pytest's are too long for a socket's path); after the test, any server started
    there is stopped, whatever happened (the test checks the runner did it)."""
    home = Path(tempfile.mkdtemp(prefix="trainc-test-"))
    monkeypatch.setattr(tempfile, "tempdir", str(home))
    yield home
    for pid in processes_started_in(home):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)  # a server stops on SIGTERM (docs/server.md)
    shutil.rmtree(home, ignore_errors=True)


@dataclass(frozen=True)
class UsersServer:
    """A server the user started before the bench, in the runtime directory ``runtime``."""

    command: list[str]
    runtime: Path

    def status(self) -> int:
        """``trainc server status``'s exit code: 0 while it runs."""
        return subprocess.run(
            [*self.command, "status"], capture_output=True, check=False
        ).returncode

    def log(self) -> str:
        return (self.runtime / "trainc/server.log").read_text()


@pytest.fixture
def users_server(server_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[UsersServer]:
    """A server of the user's, running when the bench starts (XDG_RUNTIME_DIR names its
    directory), stopped after the test."""
    trainc = executable("trainc")
    assert trainc is not None
    runtime = Path(tempfile.mkdtemp(prefix="trainc-user-", dir=server_home.parent))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    server = UsersServer([trainc, "server"], runtime)
    subprocess.run([*server.command, "start"], check=True, capture_output=True)
    yield server
    subprocess.run([*server.command, "stop"], capture_output=True, check=False)
    shutil.rmtree(runtime, ignore_errors=True)


def processes_started_in(directory: Path) -> list[int]:
    """The processes whose environment names ``directory``: the runner's server was
    started with its runtime directory in it."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and str(directory).encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
    return found


def test_one_run_measures_every_row_and_judges_every_target(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    server_home: Path,
    users_server: UsersServer,
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

    # The user's own server served none of the runs, and still runs.
    assert users_server.status() == 0
    assert "command " not in users_server.log()

    # The runner's server (it checked that its log shows every served run) is gone, and
    # its runtime directory with it.
    assert processes_started_in(server_home) == []
    assert list(server_home.iterdir()) == []
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
    server = "preloaded server (`trainc server start`)"
    assert rows[f"`trainc validate FILE`, `inputs.runtimes` set, {server}, warm"][0].endswith(
        " ms]"
    )
    assert rows[f"the same, `inputs.runtimes` set, {server}"][0].endswith("x")
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
    "hook `validate FILE`, warm, preloaded server (`trainc server start`), N = 30, with "
    "`inputs.runtimes`: median",
    "hook `validate FILE`, warm, preloaded server (`trainc server start`), N = 30, with "
    "`inputs.runtimes` / check-jsonschema",
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
        served=True,
        seed=0,
        runs=1,
        repeat=1,
    )
    code_unchanged(setup)
    (package / "sweep/calls.py").write_bytes(b"PAGE = 2000\n")
    with pytest.raises(BenchError, match=r"trainc's code .* changed during the run"):
        code_unchanged(setup)


def test_a_trainc_without_a_server_is_told_apart(tmp_path: Path) -> None:
    # An older commit's trainc: click refuses the unknown command (exit 2), so the runner
    # skips the server's row instead of failing on `trainc server start`.
    older = tmp_path / "trainc"
    older.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = server ]; then\n'
        "  echo \"Error: No such command 'server'.\" >&2; exit 2\n"
        "fi\n"
        "echo 'Usage: trainc [OPTIONS] COMMAND [ARGS]...'\n"
    )
    older.chmod(0o755)
    assert not has_server(str(older), dict(os.environ))
    trainc = executable("trainc")
    assert trainc is not None
    assert has_server(trainc, dict(os.environ))


def test_the_server_is_stopped_when_a_run_fails(tmp_path: Path, server_home: Path) -> None:
    # check-jsonschema, the first of the alternating runs, fails: the runner reports that
    # failure, and the server it started for the runs is gone all the same.
    trainc = executable("trainc")
    assert trainc is not None
    repo = tmp_path / "repo"
    generated = generate(repo, jobs=3)
    _commit_all(repo)
    setup = Setup(
        trainc=trainc,
        check_jsonschema=str(write(tmp_path, {"failing": b"#!/bin/sh\nexit 3\n"}) / "failing"),
        source=REPO,
        package=REPO / "trainc",
        code="",
        env={**os.environ},
        cached=True,
        served=True,
        seed=0,
        runs=1,
        repeat=1,
    )
    (tmp_path / "failing").chmod(0o755)
    bench = _Repository(repo, repo / generated.jobs[0], setup)
    with pytest.raises(BenchError, match="exited with 3"):
        bench.served_single_file(tmp_path / "caches")
    assert processes_started_in(server_home) == []
    assert list(server_home.iterdir()) == []
