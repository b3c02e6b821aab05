"""The runner's process measurement: peak memory counts what a process tree really holds."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.measure import run

MB = 1_000_000

#: A parent that fills 200 MB, then forks two children that only read it (as trainc's
#: workers read the validated repository) and wait for them.
FORKED_READERS = """
import os, time
data = bytearray(200_000_000)
for i in range(0, len(data), 4096):
    data[i] = 1
children = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        total = sum(data[i] for i in range(0, len(data), 4096))
        time.sleep(0.5)
        os._exit(0 if total else 1)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""


#: A process that fills 150 MB and holds it a moment, long enough to be sampled.
FILLS = (
    "import time; b = bytearray(150_000_000); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.3)"
)


def test_a_process_that_fills_memory_is_measured_with_it(tmp_path: Path) -> None:
    sample = run([sys.executable, "-c", FILLS], cwd=tmp_path)
    assert sample.returncode == 0
    assert 150 * MB <= sample.peak_memory < 250 * MB


def test_a_large_runner_does_not_count_in_a_small_process(tmp_path: Path) -> None:
    # Before its exec the child is a copy of the runner, whose high-water mark the
    # kernel's ru_maxrss keeps: a runner holding 300 MB made every process measure that.
    held = bytearray(300_000_000)
    held[::4096] = b"x" * len(held[::4096])
    sample = run([sys.executable, "-c", "import time; time.sleep(0.3)"], cwd=tmp_path)
    assert sample.returncode == 0
    assert sample.peak_memory < 100 * MB
    assert held[0] == ord("x")


def test_pages_forked_workers_share_are_counted_once(tmp_path: Path) -> None:
    sample = run([sys.executable, "-c", FORKED_READERS], cwd=tmp_path)
    assert sample.returncode == 0
    # Three processes map the same 200 MB: summed resident sets would say over 600 MB.
    assert 200 * MB <= sample.peak_memory < 350 * MB
