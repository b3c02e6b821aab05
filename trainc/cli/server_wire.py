"""What ``trainc`` and its preloaded server (``trainc server``) agree on: where the socket
is, how a message is framed, and which interpreter may be served.

The client side runs before click or anything heavy is imported (:mod:`.client`), so this
module imports only what Python has loaded at start (:mod:`os`, :mod:`sys`); :mod:`socket`
and :mod:`json` are imported by the functions that talk, which run only when a server's
socket exists.

A message is a 4-byte big-endian length and that many bytes of JSON; the request that runs
a command carries the client's standard input, output and error as ``SCM_RIGHTS``
ancillary data (https://man7.org/linux/man-pages/man7/unix.7.html).
"""

# os and strings: pathlib is not imported yet (see above)
# ruff: noqa: PTH111, PTH117, PTH118, PTH120

from __future__ import annotations

import os
import sys

#: Not ``typing.TYPE_CHECKING``: see :mod:`.client` (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import Any

#: The server's socket, in its directory (:func:`server_directory`).
SOCKET_NAME = "server.sock"
#: What the server writes while it runs, next to its socket.
LOG_NAME = "server.log"
#: The largest message either side accepts: a request carries the whole environment.
MAX_MESSAGE = 16 * 1024 * 1024
#: The standard streams a request hands over, in the order of their descriptors.
STANDARD_STREAMS = ("stdin", "stdout", "stderr")
#: The bytes of a message's length.
_HEAD = 4


class WireError(Exception):
    """The other side broke the protocol or went away."""


def server_directory(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The private directory of the user's server: ``$XDG_RUNTIME_DIR/trainc``, the place
    the XDG base directory specification gives sockets
    (https://specifications.freedesktop.org/basedir-spec/latest/), else ``trainc/server``
    under the user's cache home; None without a home directory.

    Not the run's cache (``TRAINC_CACHE_DIR``, ``--no-cache``): one server serves runs of
    any cache, each run taking its own from the environment it sends.
    """
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        return os.path.join(runtime, "trainc")
    cache = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):
        cache = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "trainc", "server") if os.path.isabs(cache) else None


def is_private(info: os.stat_result) -> bool:
    """Whether a directory's ``stat`` says only this user can enter it: owned by the user,
    no permission for group or others (as ssh-agent and tmux require of theirs)."""
    return info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def interpreter() -> dict[str, Any]:
    """What a forked server shares with the client only if both started alike: the Python
    executable, the trainc package it imports, and what Python fixed at start (its flags,
    warning options, the file-system encoding). JSON values, to compare after a trip."""
    package = sys.modules["trainc"].__file__ or ""
    return {
        "executable": sys.executable,
        "package": os.path.dirname(package),
        "flags": list(sys.flags),
        "warnoptions": list(sys.warnoptions),
        "filesystem": [sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()],
    }


def peer_uid(connection: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (``SO_PEERCRED``:
    https://man7.org/linux/man-pages/man7/unix.7.html), as the kernel saw it connect."""
    import socket  # noqa: PLC0415 - see the module docstring
    import struct  # noqa: PLC0415 - see the module docstring

    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return int(uid)


def send(connection: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    """Send ``message``, with ``fds`` as ancillary data when given."""
    import json  # noqa: PLC0415 - see the module docstring
    import socket  # noqa: PLC0415 - see the module docstring

    body = json.dumps(message).encode()
    data = len(body).to_bytes(_HEAD, "big") + body
    sent = socket.send_fds(connection, [data], fds) if fds else 0
    connection.sendall(data[sent:])


def receive(connection: socket.socket, fds: int = 0) -> tuple[dict[str, Any], list[int]]:
    """The next message and the descriptors that came with it (at most ``fds``)."""
    import json  # noqa: PLC0415 - see the module docstring
    import socket  # noqa: PLC0415 - see the module docstring

    received: list[int] = []
    if fds:
        head, received, _flags, _address = socket.recv_fds(connection, _HEAD, fds)
    else:
        head = connection.recv(_HEAD)
    try:
        head += _exactly(connection, _HEAD - len(head)) if head else b""
        if len(head) != _HEAD:
            raise WireError("the connection closed")
        length = int.from_bytes(head, "big")
        if length > MAX_MESSAGE:
            raise WireError(f"a message of {length} bytes")
        message = json.loads(_exactly(connection, length))
        if not isinstance(message, dict):
            raise WireError("a message that is not an object")
    except (WireError, ValueError, OSError):
        for fd in received:
            os.close(fd)
        raise
    return message, received


def _exactly(connection: socket.socket, size: int) -> bytes:
    """``size`` bytes from the connection; WireError if it closes first."""
    chunks = []
    while size > 0:
        chunk = connection.recv(min(size, 1 << 20))
        if not chunk:
            raise WireError("the connection closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
