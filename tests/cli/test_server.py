"""``trainc server``: a command run by the preloaded server prints, writes and exits as the
same command run in its own process, byte for byte; and whenever the server cannot serve
(none, a dead one, new code, another user or interpreter), the command runs in process.

Every command here runs as the console script runs (``trainc.cli.client.main``) in a new
process, with the server's directory in a short private temporary directory of its own.
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.support.manifests import trainjob_yaml, write
from trainc.cache.keys import code_fingerprint
from trainc.cli.client import served
from trainc.cli.forkserver import refusal_of, standard_stream
from trainc.cli.server_wire import LOG_NAME, SOCKET_NAME, interpreter

#: The console script (pyproject.toml's ``trainc``), under the name a shell gives it.
_CONSOLE = "import sys; from trainc.cli.client import main; sys.argv[0] = 'trainc'; main()"


class Run(NamedTuple):
    """A command's exit code and the bytes of its two streams."""

    code: int
    out: bytes
    err: bytes


class Trainc:
    """Runs ``trainc`` in a repository, with or without the test's server."""

    def __init__(self, runtime: Path, cache: Path) -> None:
        self.runtime = runtime
        self.environ = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("TRAINC_", "NO_COLOR", "FORCE_COLOR", "XDG_"))
        }
        self.environ |= {"XDG_RUNTIME_DIR": str(runtime), "TRAINC_CACHE_DIR": str(cache)}
        self.directory = runtime / "trainc"

    def __call__(
        self,
        cwd: Path,
        *args: str,
        served: bool = True,
        stdin: bytes = b"",
        environ: dict[str, str] | None = None,
        umask: int = 0o022,
    ) -> Run:
        """``trainc ARGS`` in ``cwd``; with ``served=False`` where no server listens."""
        runtime = self.runtime if served else self.runtime / "none"
        completed = subprocess.run(
            [sys.executable, "-c", _CONSOLE, *args],
            cwd=cwd,
            env={**self.environ, "XDG_RUNTIME_DIR": str(runtime), **(environ or {})},
            input=stdin,
            capture_output=True,
            check=False,
            umask=umask,
        )
        return Run(completed.returncode, completed.stdout, completed.stderr)

    def log(self) -> str:
        """What the server wrote to its log."""
        return (self.directory / LOG_NAME).read_text()

    def served_commands(self) -> list[str]:
        """The command lines the server ran, in order."""
        return re.findall(r"^command \d+: (.*)$", self.log(), re.MULTILINE)


@pytest.fixture
def trainc(tmp_path: Path) -> Iterator[Trainc]:
    """The runner, with a server directory short enough for a socket's path."""
    runtime = Path(tempfile.mkdtemp(prefix="trs", dir="/tmp"))
    runtime.chmod(0o700)
    try:
        yield Trainc(runtime, tmp_path / "cache")
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def server(trainc: Trainc) -> Iterator[int]:
    """A started server's pid; stopped, and killed if need be, whatever the test did."""
    started = trainc(Path("/"), "server", "start", "--idle-timeout", "120")
    assert started.code == 0, started.err
    match = re.search(rb"pid (\d+)", started.out)
    assert match is not None, started.out
    pid = int(match.group(1))
    try:
        yield pid
    finally:
        trainc(Path("/"), "server", "stop")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


@pytest.fixture
def findings(repo: Path) -> Path:
    """The conftest repository and a TrainJob on a runtime nobody defines: an error."""
    write(repo, "jobs/b.yaml", trainjob_yaml("beta", runtime="nowhere"))
    return repo


def _both(
    trainc: Trainc, cwd: Path, *args: str, environ: dict[str, str] | None = None
) -> tuple[Run, Run]:
    """The same command in process and by the server."""
    return trainc(cwd, *args, served=False, environ=environ), trainc(cwd, *args, environ=environ)


@pytest.mark.parametrize(
    "args",
    [
        ("validate",),
        ("validate", "jobs/b.yaml"),
        ("validate", "--format", "json"),
        ("validate", "--bogus"),
        ("validate", "--help"),
        ("--debug", "compile", "-o", "-"),
        ("explain", "jobs/a.yaml"),
        ("migrate",),
    ],
    ids=["findings", "one-file", "json", "usage-error", "help", "stream", "explain", "migrate"],
)
def test_a_served_command_prints_what_it_prints_in_process(
    trainc: Trainc, server: int, findings: Path, args: tuple[str, ...]
) -> None:
    del server
    here, there = _both(trainc, findings, *args)
    assert there == here
    assert here.code in {0, 1, 2}
    assert trainc.served_commands() == [" ".join(args)]


def _tree(root: Path) -> dict[Path, bytes]:
    """The files under ``root`` and their bytes."""
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _modes(root: Path) -> set[int]:
    """The permission bits of everything under ``root``."""
    return {path.stat().st_mode & 0o777 for path in root.rglob("*")}


def test_compile_to_a_directory_writes_the_same_files_and_a_cache_by_the_clients_umask(
    trainc: Trainc, server: int, repo: Path, tmp_path: Path
) -> None:
    del server
    caches = tmp_path / "here", tmp_path / "there"
    here = trainc(
        repo,
        *("compile", "-o", "out"),
        served=False,
        umask=0o077,
        environ={"TRAINC_CACHE_DIR": str(caches[0])},
    )
    written = _tree(repo / "out")
    shutil.rmtree(repo / "out")
    there = trainc(
        repo, "compile", "-o", "out", umask=0o077, environ={"TRAINC_CACHE_DIR": str(caches[1])}
    )
    assert (there, trainc.served_commands()) == (here, ["compile -o out"])
    assert _tree(repo / "out") == written
    assert _modes(caches[1]) == _modes(caches[0]) == {0o700, 0o600}


def test_commands_at_the_same_time_each_get_their_own_process(
    trainc: Trainc, server: int, findings: Path
) -> None:
    """As pre-commit runs the validate hook: several processes, each with some files."""
    del server
    files = ["jobs/a.yaml", "jobs/b.yaml", "runtime.yaml", "jobs/b.yaml"]
    alone = [trainc(findings, "validate", name, served=False) for name in files]
    environ = {**trainc.environ, "XDG_RUNTIME_DIR": str(trainc.runtime)}
    clients = [
        subprocess.Popen(
            [sys.executable, "-c", _CONSOLE, "validate", name],
            cwd=findings,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in files
    ]
    together = [Run(c.wait(timeout=120), *c.communicate()) for c in clients]
    assert together == alone
    assert sorted(trainc.served_commands()) == sorted(f"validate {name}" for name in files)


@pytest.mark.parametrize(
    "environ", [{"FORCE_COLOR": "1"}, {"FORCE_COLOR": "1", "NO_COLOR": "1"}], ids=["force", "no"]
)
def test_the_command_sees_the_clients_environment(
    trainc: Trainc, server: int, findings: Path, environ: dict[str, str]
) -> None:
    del server
    here, there = _both(trainc, findings, "validate", environ=environ)
    assert there == here
    assert (b"\x1b[" in there.out) == ("NO_COLOR" not in environ)


def _pending(read: int) -> bytes:
    """What a non-blocking pipe holds now."""
    try:
        return os.read(read, 64)
    except BlockingIOError:
        return b""


@pytest.mark.parametrize("write_through", [True, False], ids=["unbuffered", "buffered"])
def test_the_commands_streams_buffer_as_the_clients_did(*, write_through: bool) -> None:
    """``PYTHONUNBUFFERED`` (or ``python -u``) in the client: what the command writes
    reaches the pipe at once, as it would in process; otherwise at a flush."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    try:
        stream = standard_stream(write, "w", ["utf-8", "strict", False, write_through])
        stream.write("report")
        arrived = _pending(read)
        stream.flush()
        assert (arrived, _pending(read)) == (
            (b"report", b"") if write_through else (b"", b"report")
        )
    finally:
        os.close(read)
        os.close(write)


def test_the_command_uses_the_clients_cache_and_directory(
    trainc: Trainc, server: int, findings: Path, tmp_path: Path
) -> None:
    del server
    cache = tmp_path / "elsewhere"
    run = trainc(findings / "jobs", "validate", "b.yaml", environ={"TRAINC_CACHE_DIR": str(cache)})
    assert run == trainc(findings / "jobs", "validate", "b.yaml", served=False)
    assert b"jobs/b.yaml" in run.out
    assert cache.is_dir()
    assert trainc.served_commands() == ["validate b.yaml"]


def test_the_command_reads_the_clients_standard_input(
    trainc: Trainc, server: int, repo: Path
) -> None:
    del server
    text = trainjob_yaml("gamma", runtime="nowhere").encode()
    here, there = (
        trainc(repo, "validate", "-", stdin=text, served=False),
        trainc(repo, "validate", "-", stdin=text),
    )
    assert (there, here.code) == (here, 1)


def test_new_code_makes_the_server_refuse_and_stop(
    trainc: Trainc, server: int, findings: Path
) -> None:
    del server
    here = trainc(findings, "validate", served=False)
    module = Path(sys.modules["trainc.cli"].__file__ or "")
    before = module.stat()
    try:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        there = trainc(findings, "validate")
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert there == here
    assert "refused: trainc's code changed" in trainc.log()
    assert trainc.served_commands() == []
    assert trainc(Path("/"), "server", "status").code == 1


def test_a_dead_servers_socket_is_removed_and_the_command_runs(
    trainc: Trainc, findings: Path
) -> None:
    trainc.directory.mkdir(mode=0o700)
    path = trainc.directory / SOCKET_NAME
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))
    assert path.exists()
    here, there = _both(trainc, findings, "validate")
    assert (there, path.exists()) == (here, False)


def test_a_socket_in_a_directory_others_can_enter_is_not_used(
    trainc: Trainc, server: int, findings: Path
) -> None:
    del server
    trainc.directory.chmod(0o755)
    try:
        here, there = _both(trainc, findings, "validate")
    finally:
        trainc.directory.chmod(0o700)
    assert there == here
    assert trainc.served_commands() == []


def test_a_request_from_another_user_or_interpreter_is_refused() -> None:
    request = {"kind": "run", "interpreter": interpreter()}
    fingerprint = code_fingerprint()
    assert refusal_of(request, os.getuid(), fingerprint) is None
    assert (
        refusal_of(request, os.getuid() + 1, fingerprint) == f"a request of user {os.getuid() + 1}"
    )
    assert refusal_of({"kind": "status"}, os.getuid() + 1, fingerprint) is not None
    assert refusal_of({"kind": "status"}, os.getuid(), "0" * 40) is not None
    assert refusal_of({"kind": "stop"}, os.getuid(), "0" * 40) is None
    other = {**request, "interpreter": {**interpreter(), "executable": "/usr/bin/python3.99"}}
    assert "interpreter" in (refusal_of(other, os.getuid(), fingerprint) or "")
    assert "code changed" in (refusal_of(request, os.getuid(), "0" * 40) or "")


def test_the_server_runs_only_commands_that_read_a_repository() -> None:
    assert served(["validate", "jobs/a.yaml"])
    assert served(["--debug", "compile", "-o", "-"])
    assert not served(["server", "status"])
    assert not served(["sweep", "--once"])
    assert not served(["--version"])
    assert not served([])


def test_status_and_a_second_start(trainc: Trainc, server: int) -> None:
    status = trainc(Path("/"), "server", "status")
    assert status.code == 0
    assert f"trainc server: running, pid {server}, version".encode() in status.out
    assert str(trainc.directory / SOCKET_NAME).encode() in status.out
    again = trainc(Path("/"), "server", "start")
    assert again.out.startswith(f"trainc server: already running, pid {server}".encode())


def test_an_idle_server_stops(trainc: Trainc) -> None:
    assert trainc(Path("/"), "server", "status") == Run(1, b"trainc server: not running\n", b"")
    started = trainc(Path("/"), "server", "start", "--idle-timeout", "1")
    assert started.code == 0, started.err
    pid = int(re.findall(rb"pid (\d+)", started.out)[0])
    try:
        deadline = time.monotonic() + 30
        while trainc(Path("/"), "server", "status").code == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert "stopping: idle" in trainc.log()
        assert not (trainc.directory / SOCKET_NAME).exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def test_stop(trainc: Trainc, server: int) -> None:
    stopped = trainc(Path("/"), "server", "stop")
    assert stopped.out.startswith(f"trainc server: stopping, pid {server}".encode())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    assert trainc(Path("/"), "server", "stop").out == b"trainc server: not running\n"


def test_sigint_to_the_client_interrupts_the_command(
    trainc: Trainc, server: int, repo: Path
) -> None:
    del server
    client = subprocess.Popen(
        [sys.executable, "-c", _CONSOLE, "validate", "-"],
        cwd=repo,
        env=trainc.environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while "command" not in trainc.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)  # for the command to wait on its standard input
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert (client.returncode, out, err) == (2, b"", b"\nAborted.\n")


_NO_SERVER = """
import sys, os
before = set(sys.modules)
from trainc.cli.client import delegate
assert delegate(["trainc", "validate", "jobs/a.yaml"]) is None
print(*sorted(set(sys.modules) - before))
"""


def test_without_a_server_the_client_costs_a_stat_and_two_small_modules(
    trainc: Trainc, tmp_path: Path
) -> None:
    completed = subprocess.run(
        ["strace", "-f", "-e", "trace=%file,%network", sys.executable, "-c", _NO_SERVER]
        if shutil.which("strace")
        else [sys.executable, "-c", _NO_SERVER],
        cwd=tmp_path,
        env=trainc.environ,
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.split() == [
        "__future__",
        "trainc",
        "trainc.cli",
        "trainc.cli.client",
        "trainc.cli.server_wire",
    ]
    if shutil.which("strace"):
        socket_path = str(trainc.directory / SOCKET_NAME)
        touched = [line for line in completed.stderr.splitlines() if str(trainc.runtime) in line]
        assert len(touched) == 1, touched
        assert socket_path in touched[0]
        assert "ENOENT" in touched[0]
        assert "socket(" not in completed.stderr


def _on_a_terminal(trainc: Trainc, cwd: Path, *args: str, served: bool) -> Run:
    """``trainc ARGS`` with its standard output on a pseudo-terminal, read to the end."""
    main, terminal = pty.openpty()
    environ = {**trainc.environ, "TERM": "xterm"}
    if not served:
        environ["XDG_RUNTIME_DIR"] = str(trainc.runtime / "none")
    with subprocess.Popen(
        [sys.executable, "-c", _CONSOLE, *args],
        cwd=cwd,
        env=environ,
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.PIPE,
    ) as process:
        os.close(terminal)
        chunks = []
        with contextlib.suppress(OSError):  # EIO once the terminal's last writer is gone
            while chunk := os.read(main, 65536):
                chunks.append(chunk)
        err = process.stderr.read() if process.stderr else b""
    os.close(main)
    return Run(process.returncode, b"".join(chunks), err)


def test_a_terminal_stays_a_terminal(trainc: Trainc, server: int, findings: Path) -> None:
    del server
    here = _on_a_terminal(trainc, findings, "validate", served=False)
    there = _on_a_terminal(trainc, findings, "validate", served=True)
    assert there == here
    assert b"\x1b[" in there.out
    assert trainc.served_commands() == ["validate"]
