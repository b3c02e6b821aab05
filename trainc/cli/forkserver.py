"""The preloaded server's loop: one fresh fork per command, nothing kept between commands.

The server process imports what the served commands need (:func:`preload`) and then only
waits, on one selector: its listening socket, a wake-up descriptor for SIGTERM, and for
each running command the client's connection (a client that goes away has its command
terminated) and a pidfd of the command's process (https://man7.org/linux/man-pages/man2/pidfd_open.2.html),
readable when it ends, so the server reaps it and sends the client its status without a
thread or a second fork.

A request is refused, and the client runs the command itself, when it comes from another
user (``SO_PEERCRED``), from another interpreter or trainc package, or after trainc's code
changed on disk (:func:`trainc.cache.keys.code_fingerprint`, computed anew per request): the
server then stops, since it can serve no one any more. The command's process
(:func:`_run_command`) takes over the client's working directory, environment, umask,
locale and standard streams before it calls the console script's entry point, so its
output is the in-process output, byte for byte.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import locale
import os
import pkgutil
import selectors
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trainc
from trainc import __version__
from trainc.cache.keys import code_fingerprint
from trainc.cli.server_wire import (
    STANDARD_STREAMS,
    WireError,
    interpreter,
    peer_uid,
    receive,
    send,
)

#: trainc's modules the server does not import itself: ``__main__`` modules (importing
#: one runs it), the code generators, the server's own, and the commands it never runs
#: with what only they import (the Kubernetes client). Every other module is imported,
#: those a served command imports late (inside the function that needs it) included.
_NOT_PRELOADED = (
    "trainc.__main__",
    "trainc.rulebook",
    "trainc.recordgen",
    "trainc.sweep",
    "trainc.cluster",
    "trainc.app.sweep",
    "trainc.app.snapshot",
    "trainc.cli.sweep",
    "trainc.cli.cluster_pull",
    "trainc.cli.server",
    "trainc.cli.forkserver",
)
#: Libraries and standard modules trainc imports late, for some commands or inputs only
#: (templates, round-trip YAML, worker pools, ``syncfs``, diffs).
_LIBRARIES = ("jsonschema_rs", "ruamel.yaml", "jinja2", "multiprocessing", "ctypes", "difflib")
#: How long the server waits for a connected client's request before it drops it.
_REQUEST_SECONDS = 5.0


def preload() -> list[str]:
    """Import every trainc module a served command may need, and the libraries they import
    late; the names of those that failed to import (logged, never fatal: the command then
    imports them, or fails, as it would in process)."""
    failed = []
    names = [info.name for info in pkgutil.walk_packages(trainc.__path__, "trainc.", _skip)]
    for name in [*names, *_LIBRARIES]:
        if name.startswith(_NOT_PRELOADED):
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an import that fails here fails in the command too
            failed.append(name)
    return failed


def _skip(name: str) -> None:
    """``walk_packages``' handler of a package that fails to import: its modules are not
    listed, and preload's import of the package itself reports it."""
    del name


@dataclass
class _Command:
    """A running command: its process, the pidfd telling its end, the client's connection."""

    pid: int
    pidfd: int
    connection: socket.socket | None


@dataclass
class ForkServer:
    """The loop of one server; see the module docstring."""

    listener: socket.socket
    socket_path: str
    idle_timeout: float
    fingerprint: str = field(default_factory=code_fingerprint)
    started: float = field(default_factory=time.time)
    _selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    _commands: dict[int, _Command] = field(default_factory=dict)
    _stopping: bool = False
    _last_seen: float = field(default_factory=time.monotonic)
    _wake: tuple[socket.socket, socket.socket] = field(default_factory=socket.socketpair)
    #: The socket file's inode (a descriptor's ``fstat`` tells the socket's, not the file's).
    _inode: int = 0

    def __post_init__(self) -> None:
        self._inode = Path(self.socket_path).stat().st_ino

    def serve(self) -> None:
        """Serve until stopped, idle for ``idle_timeout`` seconds, or refused by new code."""
        wake_read, wake_write = self._wake
        wake_read.setblocking(False)  # noqa: FBT003 - socket's own signature
        wake_write.setblocking(False)  # noqa: FBT003 - socket's own signature
        signal.set_wakeup_fd(wake_write.fileno())
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, _noted)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        self._selector.register(self.listener, selectors.EVENT_READ, self._accept)
        self._selector.register(wake_read, selectors.EVENT_READ, self._woken)
        try:
            while not (self._stopping and not self._commands):
                for key, _ in self._selector.select(self._timeout()):
                    key.data(key.fileobj)
                if not self._commands and self._timeout() == 0:
                    self._stop("idle")
        finally:
            self._stop("end")
            signal.set_wakeup_fd(-1)
            wake_read.close()
            wake_write.close()

    def status(self) -> dict[str, Any]:
        """What ``trainc server status`` shows."""
        return {
            "pid": os.getpid(),
            "version": __version__,
            "socket": self.socket_path,
            "python": sys.executable,
            "started": self.started,
            "idle_timeout": self.idle_timeout,
            "running": len(self._commands),
        }

    def _timeout(self) -> float | None:
        """Seconds until the server is idle long enough to stop; None while it works.
        Idle means without a command: asking its status does not keep it."""
        if self._commands or self._stopping:
            return None
        return max(0.0, self._last_seen + self.idle_timeout - time.monotonic())

    def _woken(self, wake: Any) -> None:
        """SIGTERM or SIGINT arrived: stop taking commands, finish the running ones."""
        with contextlib.suppress(OSError):
            wake.recv(64)
        self._stop("signal")

    def _stop(self, reason: str) -> None:
        """Stop listening (once): remove the socket, unless a new server took its name."""
        if self.listener.fileno() < 0:
            return
        _log(f"stopping: {reason}")
        with contextlib.suppress(OSError):
            socket_file = Path(self.socket_path)
            if socket_file.stat().st_ino == self._inode:
                socket_file.unlink()
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(self.listener)
        self.listener.close()
        self._stopping = True

    def _accept(self, listener: Any) -> None:
        """Answer one connection: a status, a stop, or a command to run."""
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        connection.settimeout(_REQUEST_SECONDS)
        fds: list[int] = []
        try:
            request, fds = receive(connection, len(STANDARD_STREAMS))
            refusal = refusal_of(request, peer_uid(connection), self.fingerprint)
            if refusal is not None:
                _log(f"refused: {refusal}")
                send(connection, {"accepted": False, "reason": refusal})
                if refusal.startswith(_CODE_CHANGED):
                    self._stop(refusal)
            elif request.get("kind") == "status":
                send(connection, {"accepted": True, **self.status()})
            elif request.get("kind") == "stop":
                send(connection, {"accepted": True, **self.status()})
                self._stop("trainc server stop")
            elif len(fds) == len(STANDARD_STREAMS) and not self._stopping:
                self._start(connection, request, fds)
                return
            else:
                send(connection, {"accepted": False, "reason": "stopping"})
        except (OSError, WireError, ValueError, KeyError, TypeError) as error:
            _log(f"dropped a request: {type(error).__name__}: {error}")
        finally:
            for fd in fds:
                os.close(fd)
        connection.close()

    def _start(self, connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
        """Fork the command's process and tell the client its pid.

        The signals the client forwards are blocked across the fork: one that arrives
        before the command's process has its own handlers waits for them."""
        signal.pthread_sigmask(signal.SIG_BLOCK, _FORWARDED)
        pid = os.fork()
        if pid == 0:
            self._close_inherited()
            connection.close()
            _run_command(request, fds)  # never returns
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _FORWARDED)
        _log(f"command {pid}: {' '.join(request['argv'][1:])}")
        self._last_seen = time.monotonic()
        pidfd = os.pidfd_open(pid)
        self._commands[pidfd] = _Command(pid, pidfd, connection)
        self._selector.register(pidfd, selectors.EVENT_READ, self._ended)
        try:
            send(connection, {"accepted": True, "pid": pid})
        except OSError:
            self._client_gone(connection)
            return
        connection.settimeout(None)
        self._selector.register(connection, selectors.EVENT_READ, self._client_gone)

    def _ended(self, pidfd: Any) -> None:
        """A command's process ended: reap it and send its client the status."""
        command = self._commands.pop(pidfd)
        self._selector.unregister(pidfd)
        os.close(pidfd)
        _, status, usage = os.wait4(command.pid, 0)
        self._last_seen = time.monotonic()
        signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        outcome = {"signal": signum} if signum else {"exit": os.waitstatus_to_exitcode(status)}
        cpu = usage.ru_utime + usage.ru_stime  # its workers included, as they were waited for
        _log(f"ended {command.pid}: {outcome}, {cpu * 1000:.0f} ms of CPU")
        connection = command.connection
        if connection is None:
            return
        self._selector.unregister(connection)
        with contextlib.suppress(OSError):
            send(connection, outcome)
        connection.close()

    def _client_gone(self, connection: socket.socket) -> None:
        """The client closed its end (killed by a signal it cannot forward): the command
        it waited for is terminated, as it would have ended with it."""
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(connection)
        connection.close()
        for command in self._commands.values():
            if command.connection is connection:
                command.connection = None
                with contextlib.suppress(OSError):
                    os.kill(command.pid, signal.SIGTERM)

    def _close_inherited(self) -> None:
        """In a command's process: let go of everything of the server's."""
        signal.set_wakeup_fd(-1)
        self._wake[1].close()
        for key in list(self._selector.get_map().values()):
            fileobj = key.fileobj
            if isinstance(fileobj, socket.socket):
                fileobj.close()
            else:
                os.close(fileobj if isinstance(fileobj, int) else fileobj.fileno())
        self._selector.close()


_CODE_CHANGED = "trainc's code changed"
#: The signals a client forwards to its command (:func:`trainc.cli.client._outcome`).
_FORWARDED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def refusal_of(request: dict[str, Any], uid: int, fingerprint: str) -> str | None:
    """Why the server must not serve ``request`` from a process of user ``uid``, or None.

    Another user's process must not run as this one; after trainc's code changed on disk
    the preloaded modules are stale (so a ``status`` finds no server and ``start`` starts
    a new one; ``stop`` is always served); a command from another interpreter or trainc
    package, or a Python started with other flags, would get other results."""
    if uid != os.getuid():
        return f"a request of user {uid}"
    kind = request.get("kind")
    if kind != "stop" and code_fingerprint.__wrapped__() != fingerprint:
        return _CODE_CHANGED + " since the server started"
    if kind == "run" and request.get("interpreter") != interpreter():
        return "another Python interpreter, trainc package or interpreter flags"
    return None


def _log(line: str) -> None:
    """A line in the server's log (its standard output: see trainc.cli.server)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _noted(signum: int, frame: object) -> None:
    """A signal handler that does nothing itself: the wake-up descriptor tells the loop."""
    del signum, frame


def _run_command(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked process: become the client's command, run it, exit with its status."""
    code = 2
    try:
        _take_over(request, fds)
        code = _console(request["argv"], request["streams"])
    except BaseException as error:  # noqa: BLE001 - the process must reach os._exit
        with contextlib.suppress(BaseException):
            os.write(2, f"trainc: error: {type(error).__name__}: {error}\n".encode())
    os._exit(code)


def _take_over(request: dict[str, Any], fds: list[int]) -> None:
    """The client's signals' defaults, streams, directory, environment, umask and locale."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _FORWARDED)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["environ"])
    os.umask(int(request["umask"]))
    with contextlib.suppress(locale.Error):
        locale.setlocale(locale.LC_CTYPE, "")
    os.chdir(request["cwd"])


def _console(argv: list[str], streams: list[list[Any]]) -> int:
    """Run the console script's entry point as Python would run it: standard streams
    set up as the client's were, ``SystemExit`` and ``KeyboardInterrupt`` ending the
    process as they end an interpreter; the status to exit with."""
    sys.stdin, sys.stdout, sys.stderr = (
        standard_stream(fd, mode, streams[fd]) for fd, mode in enumerate("rww")
    )
    sys.argv = list(argv)
    from trainc.cli.main import main  # noqa: PLC0415 - imported by preload already

    code = _exit_status(main)
    try:
        sys.stdout.flush()
    except OSError:
        code = 120  # what Python exits with when flushing stdout fails at exit
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    return code


def _exit_status(run: Callable[[], None]) -> int:
    """The status an interpreter would exit with after ``run``."""
    try:
        run()
    except SystemExit as end:
        if end.code is None or isinstance(end.code, int):
            return end.code or 0
        sys.stderr.write(f"{end.code}\n")
        return 1
    except KeyboardInterrupt:
        traceback.print_exc()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return 0


def standard_stream(fd: int, mode: str, setting: list[Any]) -> io.TextIOWrapper:
    """A standard stream on ``fd`` as Python makes one at start (no newline translation
    on POSIX), with the client's ``setting``: encoding, errors, line buffering and write
    through (``python -u`` or ``PYTHONUNBUFFERED``: then no binary buffer either)."""
    encoding, errors, line_buffering, write_through = setting
    unbuffered = write_through and mode == "w"
    binary = open(fd, mode + "b", buffering=0 if unbuffered else -1, closefd=False)  # noqa: SIM115 - lives as long as the process
    return io.TextIOWrapper(
        binary,
        encoding=encoding,
        errors=errors,
        newline="\n",
        line_buffering=line_buffering,
        write_through=write_through,
    )
