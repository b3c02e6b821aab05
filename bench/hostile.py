"""How long trainc takes to refuse hostile input: the times the test suite no longer asserts.

The tests bound the work these inputs cause (tokens scanned, converter calls, passes over
the text, CEL evaluations: ``tests/load/test_yamlsrc.py``, ``tests/load/test_convert.py``,
``tests/schema/cel/test_cost.py``); this measures the time, in-process, the median of
``--runs`` runs of each:

- ten thousand nested ``[`` (refused at ``limits.maxDepth``);
- a "billion laughs" file, nine levels of aliases of nine (refused at ``maxYamlNodes``);
- 400,000 empty documents (1.6 MB) read whole, then with the default ``maxDocuments``;
- a CEL rule nesting two loops over a list of 100,000 names (refused by its cost).

Usage, from the repository root (the test dependencies installed)::

    python -m bench.hostile --out bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.results import say, store
from tests.load.test_convert import BILLION_LAUGHS
from tests.schema.cel.builders import list_schema, violations
from trainc.config.limits import InputLimits
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

DOCUMENTS = 400_000


def _parse(text: str, limits: InputLimits) -> Callable[[], object]:
    return lambda: parse_documents(SourceFile("f.yaml", text), limits)


def cases() -> list[tuple[str, Callable[[], object]]]:
    """Each hostile input and the call that refuses (or reads) it."""
    brackets = "a: 1\n---\nb: " + "[" * 10_000 + "]" * 10_000 + "\n"
    separators = "---\n" * DOCUMENTS
    names = {"spec": {"names": [f"n{i}" for i in range(100_000)]}}
    schema = list_schema("self.names.all(x, self.names.exists(y, y == x))")
    return [
        ("10,000 nested `[`, refused at the depth bound", _parse(brackets, InputLimits())),
        ("billion laughs, refused at the node budget", _parse(BILLION_LAUGHS, InputLimits())),
        (
            f"{DOCUMENTS:,} empty documents, all read",
            _parse(separators, InputLimits(max_documents=DOCUMENTS)),
        ),
        (f"{DOCUMENTS:,} empty documents, refused at 10,000", _parse(separators, InputLimits())),
        (
            "CEL `all(exists)` over 100,000 names, refused by its cost",
            lambda: violations(names, schema),
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: time every case, print the block, store it in ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.hostile",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each case")
    parser.add_argument("--out", type=Path, help="Markdown file to store the results in")
    parser.add_argument("--section", default="hostile", help="name of the block in --out")
    options = parser.parse_args(argv)
    rows = []
    for name, refuse in cases():
        refuse()  # warm-up: imports, compiled schemas
        times = []
        for _ in range(max(options.runs, 1)):
            start = time.perf_counter()
            refuse()
            times.append(time.perf_counter() - start)
        say(f"{name}: {statistics.median(times):.3f} s")
        rows.append(f"| {name} | {_ms(statistics.median(times))} | {_ms(max(times))} |")
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    command = "python -m bench.hostile " + shlex.join(sys.argv[1:] if argv is None else argv)
    block = "\n".join(
        [
            f"Measured {date} with `{command}` (load average {load}).",
            "",
            "| input | median | slowest |",
            "|---|---|---|",
            *rows,
        ]
    )
    block += "\n"
    sys.stdout.write(block)
    if options.out is not None:
        store(options.out, options.section, block)
    return 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
