"""How long ``compile -o DIR`` waits on the disk: the writer's ways of syncing, side by side.

Each round writes one output-like tree of N files (4.4 KB each, the size of a compiled
TrainJob of the bench workload, in four namespace directories) with
:class:`trainc.emit.writer.TreeWriter`, once per way of syncing (``batched``: one
``syncfs`` of the staging tree; ``per-file``: an fsync per file and directory), in
alternating order, into a fresh directory after a global ``sync`` so that no earlier
round's dirty pages are flushed on its account. The time runs from the first file to
the end of the commit (swap and clean-up included), in-process: no interpreter start.

Usage, from the repository root::

    python -m bench.durable --files 1000 10000 --rounds 5 --out bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.results import say, store
from trainc.emit.durable import Sync, default_sync
from trainc.emit.writer import TreeWriter

REPO = Path(__file__).resolve().parents[1]
FILE_SIZE = 4_360  # bytes: 43.6 MB of output over 10,000 TrainJobs
NAMESPACES = 4


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: time each way at each size, print the block, store it in ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.durable",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--files", type=int, nargs="+", default=[1000, 10000], help="files per tree")
    add("--rounds", type=int, default=5, help="timed writes of each way at each size")
    add("--work", type=Path, default=REPO / "bench/.work/durable", help="scratch directory")
    add("--out", type=Path, help="Markdown file to store the results in")
    add("--section", default="durable", help="name of the block replaced in --out")
    options = parser.parse_args(argv)
    ways: list[Sync] = sorted({default_sync(), "per-file"})
    timings = {
        (files, way): times
        for files in sorted(set(options.files))
        for way, times in _rounds(files, ways, options.rounds, options.work).items()
    }
    shutil.rmtree(options.work, ignore_errors=True)
    command = "python -m bench.durable " + shlex.join(sys.argv[1:] if argv is None else argv)
    block = _render(timings, ways, sorted(set(options.files)), command)
    sys.stdout.write(block)
    if options.out is not None:
        store(options.out, options.section, block)
    return 0


def _rounds(files: int, ways: list[Sync], rounds: int, work: Path) -> dict[Sync, list[float]]:
    """Seconds of each write, per way; the order of the ways alternates between rounds."""
    tree = {
        f"ns-{index % NAMESPACES}/job-{index:06}.yaml": (b"%06d\n" % index) * (FILE_SIZE // 7)
        for index in range(files)
    }
    found: dict[Sync, list[float]] = {way: [] for way in ways}
    for round_ in range(rounds):
        for way in ways if round_ % 2 == 0 else ways[::-1]:
            target = work / way / "out"
            shutil.rmtree(target.parent, ignore_errors=True)
            target.parent.mkdir(parents=True)
            os.sync()
            start = time.perf_counter()
            with TreeWriter(target, sync=way) as writer:
                for path, data in tree.items():
                    writer.add(path, data)
                writer.commit()
            found[way].append(time.perf_counter() - start)
            say(f"{files} files, {way}: {found[way][-1]:.2f} s")
    return found


def _render(
    timings: dict[tuple[int, Sync], list[float]],
    ways: list[Sync],
    sizes: list[int],
    command: str,
) -> str:
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    lines = [
        f"Measured {date} with `{command}` (load average {load}).",
        "",
        "| files | " + " | ".join(f"`{way}`: median [min-max]" for way in ways) + " |",
        "|---" * (len(ways) + 1) + "|",
    ]
    for size in sizes:
        cells = [_spread(timings[size, way]) for way in ways]
        lines.append(f"| {size:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _spread(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.2f} s [{min(seconds):.2f}-{max(seconds):.2f}]"


if __name__ == "__main__":
    sys.exit(main())
