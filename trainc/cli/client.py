"""The console script: a command run by the user's preloaded server when one runs, else
in this process.

``trainc server start`` (:mod:`.server`) leaves a process that has imported trainc; each
command it runs gets a fresh fork of it (:mod:`.forkserver`), so a command costs no
imports and no request sees another's state. Before click or trainc's modules load, this
module looks for the server's socket: one ``stat`` when there is none, the whole cost of
the feature to a user who never starts a server. When there is one, it hands the server
the command line, working directory, environment, umask and its standard streams' file
descriptors (so a terminal is still a terminal), forwards SIGINT, SIGTERM and SIGHUP to
the command's process and exits with its status.

Anything else runs here, as before: no server, a dead server's socket (removed), a server
of another user, of other code or another interpreter (it refuses), a closed standard
stream, or any failure of the exchange before the server accepted. Once it accepted, the
command runs there and only there, never twice.
"""

# os and strings: pathlib is not imported yet (see above)
# ruff: noqa: PTH108, PTH109, PTH116, PTH118

from __future__ import annotations

import os
import sys

from trainc.cli.server_wire import (
    SOCKET_NAME,
    STANDARD_STREAMS,
    WireError,
    interpreter,
    is_private,
    peer_uid,
    receive,
    send,
    server_directory,
)

#: Not ``typing.TYPE_CHECKING``: importing typing costs a run without a server more than
#: the rest of this module (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import Any, NoReturn

#: The commands a server runs: those that read a repository and nothing else, where
#: imports are most of a small run. Not ``server`` (it manages the server), ``sweep``,
#: ``prune`` and ``cluster`` (they talk to a cluster, whose client the server does not
#: import), ``init`` (once per repository), ``cache`` and ``schemas`` (maintenance).
SERVED = frozenset({"validate", "compile", "diff", "explain", "migrate"})
#: How long the client waits for the server to accept or refuse before it runs the
#: command itself: a server that is stopped (SIGSTOP) or swapped out must not hang a commit.
HANDSHAKE_SECONDS = 5.0
#: The exit code of a command whose server ended before it reported (usage or internal
#: error: see :mod:`trainc.cli.main`).
EXIT_LOST = 2


def main() -> NoReturn:
    """Entry point of the ``trainc`` console script."""
    code = delegate(sys.argv)
    if code is None:
        from trainc.cli.main import main as run_here  # noqa: PLC0415 - see the module docstring

        run_here()
    if code is not None and code < 0:
        _die_by(-code)
    sys.exit(code)


def delegate(argv: list[str]) -> int | None:
    """The exit status of ``argv`` run by the server (a negative number for the signal that
    ended it), or None when this process should run it (see the module docstring)."""
    if not served(argv[1:]):
        return None
    directory = server_directory(os.environ)
    if directory is None:
        return None
    path = os.path.join(directory, SOCKET_NAME)
    try:
        found = os.stat(path)
        private = is_private(os.stat(directory))
    except OSError:
        return None
    if not private:
        return None
    try:
        return _run_by_server(path, found, argv)
    except (OSError, WireError, ValueError, KeyError, TypeError):
        return None


def served(args: list[str]) -> bool:
    """Whether the command line names a command the server runs (after ``--debug``)."""
    names = [arg for arg in args if arg != "--debug"]
    return bool(names) and names[0] in SERVED


def _run_by_server(path: str, found: os.stat_result, argv: list[str]) -> int | None:
    """Hand ``argv`` to the server at ``path``; None if it refuses or cannot be reached."""
    import socket  # noqa: PLC0415 - see the module docstring

    streams = _stream_settings()
    if streams is None:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(HANDSHAKE_SECONDS)
        try:
            connection.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            _remove_stale(path, found)
            return None
        if peer_uid(connection) != os.getuid():
            return None
        umask = os.umask(0)
        os.umask(umask)
        request = {
            "kind": "run",
            "argv": argv,
            "cwd": os.getcwd(),
            "environ": dict(os.environ),
            "umask": umask,
            "streams": streams,
            "interpreter": interpreter(),
        }
        send(connection, request, [0, 1, 2])
        answer, _ = receive(connection)
        if not answer.get("accepted"):
            return None
        connection.settimeout(None)
        return _outcome(connection, int(answer["pid"]))


def _outcome(connection: socket.socket, pid: int) -> int:
    """The accepted command's status, its signals forwarded while it runs."""
    import signal  # noqa: PLC0415 - see the module docstring

    def forward(signum: int, _frame: object) -> None:
        try:  # noqa: SIM105 - contextlib is not imported (see TYPE_CHECKING)
            os.kill(pid, signum)
        except OSError:
            pass  # ended already: its status is on the way

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    try:
        status, _ = receive(connection)
        return -int(status["signal"]) if "signal" in status else int(status["exit"])
    except (OSError, WireError, ValueError, KeyError, TypeError):
        sys.stderr.write("trainc: error: the trainc server ended before the command did\n")
        return EXIT_LOST


def _stream_settings() -> list[list[object]] | None:
    """How this Python set up its standard streams (encoding, errors, line buffering,
    write through), for the server's child to set up its own alike; None if one is closed."""
    settings: list[list[object]] = []
    for name in STANDARD_STREAMS:
        stream: Any = getattr(sys, name)
        if stream is None:
            return None
        settings.append(
            [stream.encoding, stream.errors, stream.line_buffering, stream.write_through]
        )
    return settings


def _remove_stale(path: str, found: os.stat_result) -> None:
    """Remove the socket of a server that is gone, unless a new one replaced it since."""
    try:
        if os.stat(path).st_ino == found.st_ino:
            os.unlink(path)
    except OSError:
        pass


def _die_by(signum: int) -> NoReturn:
    """End as the command's process ended: by the same signal, so the shell or pre-commit
    sees what it would have seen had the command run here."""
    import signal  # noqa: PLC0415 - see the module docstring

    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    sys.exit(128 + signum)
