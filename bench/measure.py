"""Time one command in a fresh process: wall time, CPU time, peak memory; and the machine.

Wall time runs from just before the process is spawned to its exit, so interpreter start
and imports count, as they do for a user. Peak memory is the sum of proportional set
sizes (PSS) over the whole process tree, sampled every few milliseconds from /proc (what a
process pool really holds at once, though a peak shorter than the interval can slip
between samples). PSS, not RSS, because forked workers share their parent's pages until
they write to them: summing their resident sets would count every shared page once per
process, PSS counts it once in all (``/proc/PID/smaps_rollup``, Linux 4.14; without it,
the resident set). Not the kernel's ``ru_maxrss`` of the child: before its ``exec`` the
child is a copy of the runner, and the kernel keeps that image's high-water mark, so a
runner holding 260 MB made every small process measure 260 MB. It stands in only for a
process that ended before the first sample.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

_SAMPLE_INTERVAL = 0.02  # seconds between /proc readings of the process tree
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class Sample:
    """One finished run: times in seconds, memory in bytes, and what the process printed."""

    argv: tuple[str, ...]
    wall: float
    cpu: float  # user + system, the process and the children it waited for
    peak_memory: int  # bytes: see the module docstring
    returncode: int
    stdout: str
    stderr: str


def run(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None) -> Sample:
    """Run ``argv`` in ``cwd`` (environment ``env``, default ours) and measure it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(  # noqa: S603 -- the bench's own argv lists, no shell
            list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        sampler = _TreeSampler(process.pid)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        # Reaped here (wait4 alone reports the child's rusage); tell Popen it is done.
        process.returncode = os.waitstatus_to_exitcode(status)
        sampler.stop()
        out.seek(0)
        err.seek(0)
        return Sample(
            argv=tuple(argv),
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            peak_memory=sampler.peak or usage.ru_maxrss * 1024,
            returncode=process.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
        )


class _TreeSampler(threading.Thread):
    """Polls the summed memory (PSS) of a process and its descendants until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self._root = pid
        self._done = threading.Event()
        self.peak = 0

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, sum(_memory(pid) for pid in _tree(self._root)))
            self._done.wait(_SAMPLE_INTERVAL)

    def stop(self) -> None:
        """Stop polling and wait for the last reading."""
        self._done.set()
        self.join()


def _tree(root: int) -> list[int]:
    """``root`` and its live descendants, from /proc/PID/task/TID/children."""
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:  # the process ended between readings
            continue
    return found


def _memory(pid: int) -> int:
    """The process's proportional set size in bytes (its resident set where PSS is unknown)."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except FileNotFoundError:  # gone, or a kernel before 4.14
        return _rss(pid)
    except OSError:
        return 0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024  # kB
    return 0  # a zombie: no mappings left


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):  # gone, or a zombie with no statm content
        return 0


def machine(source: Path) -> dict[str, str]:
    """What the numbers were measured on: hardware, Python, versions, trainc's ``source``."""
    cpu = _proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown"
    memory_kib = _proc_field("/proc/meminfo", "MemTotal").split()[0] or "0"
    usable = len(os.sched_getaffinity(0))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return {
        "CPU": cpu,
        "cores": f"{os.cpu_count()} ({usable} usable by this process)",
        "memory": f"{int(memory_kib) / 1024**2:.1f} GiB",
        "load average when the results were written (1, 5, 15 min)": load,
        "OS": platform.platform(),
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "trainc": f"{_version('trainc')} from {source}, git {_git_revision(source)}",
        "libraries": ", ".join(
            f"{name} {_version(name)}"
            for name in ("ruamel.yaml", "ruamel.yaml.clib", "PyYAML", "check-jsonschema")
        ),
    }


def _proc_field(path: str, name: str) -> str:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return ""


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _git_revision(repo: Path) -> str:
    """The short commit hash, with ``+changes`` when tracked files differ from it."""
    git = shutil.which("git")
    if git is None:
        return "unknown (no git)"
    head = run([git, "rev-parse", "--short", "HEAD"], cwd=repo)
    if head.returncode:
        return "unknown (not a git checkout)"
    status = run([git, "status", "--porcelain", "--untracked-files=no"], cwd=repo)
    return head.stdout.strip() + ("+changes" if status.stdout.strip() else "")


def executable(name: str) -> str | None:
    """The console script ``name`` of this interpreter's environment, else from PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)
