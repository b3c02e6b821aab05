"""Operating-system errors are usage errors: exit 2, one line naming the path and the reason.

A path that cannot be created or written, a full disk or a read-only filesystem is the
user's environment, never "internal error ... report it". Full disks and read-only
filesystems are simulated by making the system call fail as the kernel would (the
tests run as any user, root included, where permissions stop nothing).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.cli import run
from trainc.errors import UsageError, describe_os_error, os_errors_as_usage


def _one_usage_line(err: str) -> str:
    """The single ``trainc: error:`` line of a usage error, checked to be alone."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("trainc: error: "), err
    assert "internal error" not in err
    return lines[0]


def _failing(
    real: Callable[..., object], code: int, *, when: Callable[[str], bool]
) -> Callable[..., object]:
    """``real``, except that a call on a path ``when`` accepts fails with errno ``code``."""

    def call(path: object, *args: object, **kwargs: object) -> object:
        name = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else ""
        if when(name):
            raise OSError(code, os.strerror(code), name)
        return real(path, *args, **kwargs)

    return call


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_directory_that_cannot_be_created(repo: Path) -> None:
    result = run(repo, "compile", "-o", "/proc/trainc-out")
    assert (result.returncode, result.stdout) == (2, "")
    line = _one_usage_line(result.stderr)
    assert line.startswith("trainc: error: cannot write /proc/trainc-out: ")
    assert os.strerror(errno.ENOENT) in line


def test_init_below_a_file(tmp_path: Path, invoke: Invoke) -> None:
    (tmp_path / "afile").write_text("not a directory\n", encoding="utf-8")
    result = invoke(tmp_path, "init", "afile/sub")
    assert (result.code, result.out) == (2, "")
    line = _one_usage_line(result.err)
    assert "cannot write afile/sub/" in line
    assert os.strerror(errno.ENOTDIR) in line


def test_an_output_on_a_read_only_filesystem(
    repo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    readonly = repo / "mnt"
    readonly.mkdir()
    inside = str(readonly) + os.sep
    monkeypatch.setattr(
        os, "mkdir", _failing(os.mkdir, errno.EROFS, when=lambda p: p.startswith(inside))
    )
    result = invoke(repo, "compile", "-o", "mnt/rendered")
    assert result.code == 2
    line = _one_usage_line(result.err)
    assert line.startswith("trainc: error: cannot write mnt/rendered: ")
    assert os.strerror(errno.EROFS) in line
    assert list(readonly.iterdir()) == []


def _full(*args: object) -> int:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


#: (module or class, the function that writes, the command) of each writer of files.
FULL_DISKS = {
    "manifests": (os, "write", ("compile", "-o", "out")),  # on each file's descriptor
    "schemas": (Path, "write_bytes", ("schemas", "-o", "out")),
}


@pytest.mark.parametrize("writer", sorted(FULL_DISKS))
def test_a_full_disk_while_writing(
    repo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    owner, call, args = FULL_DISKS[writer]
    monkeypatch.setattr(owner, call, _full)
    result = invoke(repo, *args)
    assert result.code == 2
    line = _one_usage_line(result.err)
    assert line == f"trainc: error: cannot write out: {os.strerror(errno.ENOSPC)}"
    assert [p.name for p in repo.iterdir() if "trainc" in p.name] == []  # no staged tree


def test_an_output_path_that_is_a_symbolic_link_loop(repo: Path) -> None:
    (repo / "loop").symlink_to("loop")
    result = run(repo, "compile", "-o", "loop")
    assert result.returncode == 2
    line = _one_usage_line(result.stderr)
    assert line.startswith("trainc: error: cannot write loop: ")
    assert os.strerror(errno.ELOOP) in line


@pytest.mark.parametrize(
    ("command", "target"),
    [
        (("validate",), "trainc.app.Session.validate"),
        (("compile", "-o", "-"), "trainc.app.Session.compile"),
        (("sweep", "-n", "ns", "--once"), "trainc.app.cluster.connect"),
    ],
)
def test_every_command_reports_an_os_error_as_a_usage_error(
    repo: Path,
    invoke: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    target: str,
) -> None:
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "jobs/a.yaml")

    monkeypatch.setattr(target, denied)
    result = invoke(repo, *command)
    assert (result.code, result.out) == (2, "")
    assert _one_usage_line(result.err) == (
        f"trainc: error: jobs/a.yaml: {os.strerror(errno.EACCES)}"
    )


def test_an_unreadable_input_is_a_finding_that_names_it(
    repo: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a usage error: the run goes on with the other files (README, "load.unreadable").
    monkeypatch.setattr(
        os, "open", _failing(os.open, errno.EACCES, when=lambda p: p.endswith("a.yaml"))
    )
    result = invoke(repo, "validate", "jobs/a.yaml")
    assert result.code == 1
    assert "internal error" not in result.err
    assert (
        f"jobs/a.yaml: error[load.unreadable]: cannot open the file: {os.strerror(errno.EACCES)}"
        in result.out
    )


def test_the_wording_of_an_os_error() -> None:
    assert describe_os_error(OSError(errno.EACCES, "Permission denied", "a")) == (
        "a: Permission denied"
    )
    assert describe_os_error(OSError(errno.EXDEV, "Invalid cross-device link", "a", None, "b")) == (
        "a -> b: Invalid cross-device link"
    )
    assert describe_os_error(OSError(errno.ENOSPC, "No space left on device")) == (
        "No space left on device"
    )
    assert describe_os_error(OSError(errno.EBADF, "Bad file descriptor", 7)) == (
        "7: Bad file descriptor"
    )
    expected = r"^cannot write out: Read-only file system \(out/x\)$"
    with pytest.raises(UsageError, match=expected), os_errors_as_usage("write", Path("out")):
        raise OSError(errno.EROFS, "Read-only file system", "out/x")


def _trainc_into(stdout: int, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``trainc ARGS`` in a child process whose standard output is the descriptor given."""
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        cwd=cwd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        check=False,
        timeout=300,
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("validate",), ("compile", "-o", "-")])
def test_a_full_standard_output(repo: Path, args: tuple[str, ...]) -> None:
    with Path("/dev/full").open("wb") as full:
        result = _trainc_into(full.fileno(), repo, *args)
    assert result.returncode == 2
    assert _one_usage_line(result.stderr) == (
        f"trainc: error: cannot write to <stdout>: {os.strerror(errno.ENOSPC)}"
    )


def test_a_closed_pipe_ends_quietly(repo: Path) -> None:
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = _trainc_into(writer, repo, "compile", "-o", "-")
    finally:
        os.close(writer)
    assert "error" not in result.stderr
    assert result.returncode != 0
