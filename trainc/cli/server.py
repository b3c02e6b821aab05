"""``trainc server start|stop|status``: the opt-in preloaded server (docs/server.md).

``start`` detaches a process (two forks and ``setsid``, as a daemon does:
https://man7.org/linux/man-pages/man7/daemon.7.html) that imports trainc, listens on a
Unix socket in the user's private directory (:func:`~trainc.cli.server_wire.server_directory`)
and runs each served command in a fresh fork of itself (:mod:`.forkserver`). It answers
only when that process listens, or with the reason it could not start.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from pathlib import Path
from typing import Any

import click

from trainc.cli.forkserver import ForkServer, preload
from trainc.cli.server_wire import (
    LOG_NAME,
    SOCKET_NAME,
    WireError,
    is_private,
    peer_uid,
    receive,
    send,
    server_directory,
)
from trainc.errors import UsageError

#: The default idle timeout: a working day's pauses keep it, a night ends it.
IDLE_TIMEOUT = 30 * 60
#: How long ``start`` waits for the new server to listen (its imports take about a second).
_START_SECONDS = 60.0
#: The longest socket path ``AF_UNIX`` takes (``sun_path``, less its terminating NUL).
_MAX_SOCKET_PATH = 107


@click.group("server")
def server_group() -> None:
    """Run commands in a preloaded server: a pre-commit hook without the start-up cost.

    A started server has imported trainc; `trainc validate`, `compile`, `diff`,
    `explain` and `migrate` then run in a fresh fork of it, with the caller's
    directory, environment and terminal, and print what they print without it. It stops
    after --idle-timeout seconds without a command, on `trainc server stop`, and when
    trainc's code changes. Without a server, every command runs in its own process, as
    always (see docs/server.md).

    \b
    Examples:
      trainc server start                     # then commit away
      trainc server start --idle-timeout 600  # gone after ten quiet minutes
      trainc server status                    # pid, version and socket; exit 1 if none
      trainc server stop
    """


@server_group.command("start")
@click.option(
    "--idle-timeout",
    type=click.IntRange(min=1),
    default=IDLE_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Stop after this long without a command.",
)
def start_command(*, idle_timeout: int) -> None:
    """Start the server, unless one runs already."""
    directory = _private_directory()
    path = str(directory / SOCKET_NAME)
    if len(os.fsencode(path)) + len(".4194304") > _MAX_SOCKET_PATH:  # see _listen
        raise UsageError(f"the server's socket path is too long for a Unix socket: {path}")
    running = _ask(path, "status")
    if running is not None and running.get("python") != sys.executable:
        raise UsageError(
            f"a server of another Python runs ({running.get('python')}, pid "
            f"{running.get('pid')}): one server per user; `trainc server stop` it first"
        )
    if running is not None:
        click.echo(_describe("already running", running))
        return
    click.echo(_describe("started", _launch(directory, path, idle_timeout)))


@server_group.command("stop")
def stop_command() -> None:
    """Stop the server; the commands it runs finish first."""
    path = _socket_path()
    stopped = _ask(path, "stop") if path is not None else None
    click.echo(_describe("stopping", stopped) if stopped else "trainc server: not running")


@server_group.command("status")
def status_command() -> None:
    """Say whether the server runs, and its pid, version and socket. Exit code 0 when it
    runs, 1 when not (for scripts)."""
    path = _socket_path()
    running = _ask(path, "status") if path is not None else None
    if running is None:
        click.echo("trainc server: not running")
        sys.exit(1)
    click.echo(_describe("running", running))


def _describe(state: str, status: dict[str, Any]) -> str:
    """One line about a server."""
    return (
        f"trainc server: {state}, pid {status.get('pid')}, version {status.get('version')}, "
        f"socket {status.get('socket')}"
    )


def _socket_path() -> str | None:
    """The socket's path, None without a home directory."""
    directory = server_directory(os.environ)
    return str(Path(directory) / SOCKET_NAME) if directory is not None else None


def _private_directory() -> Path:
    """The server's directory, made if missing (mode 0700); refused unless private."""
    name = server_directory(os.environ)
    if name is None:
        raise UsageError("no directory for the server: set XDG_RUNTIME_DIR or HOME")
    directory = Path(name)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not is_private(directory.stat()):
        raise UsageError(
            f"{directory} is not private (owned by you, mode 0700): the server's socket "
            "would let others in"
        )
    return directory


def _ask(path: str, kind: str) -> dict[str, Any] | None:
    """The server's answer to a status or stop request; None when none answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5.0)
            connection.connect(path)
            if peer_uid(connection) != os.getuid():
                return None
            send(connection, {"kind": kind})
            answer, _ = receive(connection)
    except (OSError, WireError, ValueError):
        return None
    return answer if answer.get("accepted") else None


def _launch(directory: Path, path: str, idle_timeout: int) -> dict[str, Any]:
    """Detach the server and wait until it listens; its status."""
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_read)
        _detach(directory, path, idle_timeout, ready_write)  # never returns
    os.close(ready_write)
    os.waitpid(pid, 0)
    with os.fdopen(ready_read, "rb") as ready:
        said = ready.read().decode(errors="replace")
    started = _ask(path, "status")
    if started is None:
        raise UsageError(f"the server did not start: {said.strip() or directory / LOG_NAME}")
    return started


def _detach(directory: Path, path: str, idle_timeout: int, ready: int) -> None:
    """In the first child: a new session, a second fork (so the server is no session
    leader and can never get a terminal), then the server itself; never returns."""
    code = 0
    try:
        os.setsid()
        if os.fork() == 0:
            code = _serve(directory, path, idle_timeout, ready)
    except BaseException as error:  # noqa: BLE001 - the process must reach os._exit
        with contextlib.suppress(OSError):
            os.write(ready, f"{type(error).__name__}: {error}".encode())
        code = 1
    os._exit(code)


def _serve(directory: Path, path: str, idle_timeout: int, ready: int) -> int:
    """The server: stdio on its log, imports, the socket, then the loop."""
    log = os.open(directory / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir("/")
    # Forked from `trainc server start`, inside its click contexts: a served command must
    # start with none, as a process of its own does (click.echo reads the innermost).
    while click.get_current_context(silent=True) is not None:
        click.globals.pop_context()
    failed = preload()
    sys.stdout.write(f"trainc server {os.getpid()}: failed to preload: {failed or 'none'}\n")
    listener = _listen(Path(path))
    server = ForkServer(listener, path, float(idle_timeout))
    os.close(ready)  # start_command reads the end of the pipe: the server listens
    sys.stdout.write(f"listening on {path}\n")
    sys.stdout.flush()
    server.serve()
    return 0


def _listen(path: Path) -> socket.socket:
    """A listening socket at ``path``: bound under a temporary name and renamed, so a
    client never connects to a socket that does not listen yet."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staging = path.with_name(f"{path.name}.{os.getpid()}")
    staging.unlink(missing_ok=True)
    listener.bind(str(staging))
    staging.chmod(0o600)
    listener.listen(64)
    staging.rename(path)
    return listener
