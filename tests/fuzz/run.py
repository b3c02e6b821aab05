"""The long fuzz run: every property of tests/fuzz with a large budget, across processes.

    python -m tests.fuzz --examples 100000 --jobs 2

The budget is shared evenly by the properties, and each property's share by the jobs,
which run it with different random seeds. Settings are the ``fuzz`` profile's
(tests/conftest.py: no deadline, no health checks) with ``max_examples`` set to the
share. A failure is shrunk and printed as Hypothesis reports it, and saved in the
example database (``.hypothesis/``), so ``python -m pytest tests/fuzz`` replays it.
Exit status 1 when any property failed. Record the outcome in tests/fuzz/RESULTS.md.
"""

from __future__ import annotations

import argparse
import importlib
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from hypothesis import settings

import tests.conftest  # noqa: F401 - registers the hypothesis profiles
from tests.fuzz.harness import TALLY

MODULES = ("test_load", "test_validate", "test_compile", "test_cli")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One process's share of one property's budget."""

    module: str
    name: str
    examples: int

    @property
    def label(self) -> str:
        return f"{self.module}::{self.name}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a chunk did: inputs trainc ran on (shrinking included), seconds, failure."""

    chunk: Chunk
    inputs: int
    seconds: float
    failure: str | None


def properties() -> list[tuple[str, str]]:
    """(module, function) of every Hypothesis test in the fuzz modules."""
    found = []
    for module in MODULES:
        namespace = vars(importlib.import_module(f"tests.fuzz.{module}"))
        found += [
            (module, name)
            for name, function in sorted(namespace.items())
            if name.startswith("test_") and hasattr(function, "hypothesis")
        ]
    return found


def plan(examples: int, jobs: int, targets: Sequence[tuple[str, str]]) -> list[Chunk]:
    """The budget split evenly by property, then by job; no chunk is empty."""
    shares = len(targets) * jobs
    chunks = []
    for index in range(shares):
        count = examples // shares + (1 if index < examples % shares else 0)
        if count:
            module, name = targets[index % len(targets)]
            chunks.append(Chunk(module, name, count))
    return chunks


def run_chunk(chunk: Chunk) -> Outcome:
    """Run one property with ``chunk.examples`` examples, in this (worker) process."""
    function = getattr(importlib.import_module(f"tests.fuzz.{chunk.module}"), chunk.name)
    test: Callable[[], None] = settings(settings.get_profile("fuzz"), max_examples=chunk.examples)(
        function
    )
    before, start = TALLY.inputs, time.monotonic()
    failure = None
    try:
        test()
    except BaseException:  # noqa: BLE001 - every failure is reported, the run goes on
        failure = traceback.format_exc()
    return Outcome(chunk, TALLY.inputs - before, time.monotonic() - start, failure)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the plan, print each chunk as it ends and a summary by property."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--examples", type=int, default=100_000, help="total budget")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("-k", dest="select", default="", help="only properties naming this")
    args = parser.parse_args(argv)
    targets = [target for target in properties() if args.select in "::".join(target)]
    chunks = plan(args.examples, args.jobs, targets)
    start = time.monotonic()
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=args.jobs, max_tasks_per_child=1) as pool:
        for future in as_completed([pool.submit(run_chunk, chunk) for chunk in chunks]):
            outcome = future.result()
            outcomes.append(outcome)
            status = "FAILED" if outcome.failure else "ok"
            print(  # noqa: T201 - the run's report
                f"{status:6} {outcome.chunk.label}: {outcome.inputs} inputs "
                f"in {outcome.seconds:.0f} s",
                flush=True,
            )
            if outcome.failure:
                print(outcome.failure, flush=True)  # noqa: T201
    _summary(outcomes, time.monotonic() - start)
    return 1 if any(outcome.failure for outcome in outcomes) else 0


def _summary(outcomes: Sequence[Outcome], seconds: float) -> None:
    print("\n| property | examples | inputs | outcome |\n|---|---|---|---|")  # noqa: T201
    for target in sorted({outcome.chunk.label for outcome in outcomes}):
        mine = [outcome for outcome in outcomes if outcome.chunk.label == target]
        examples = sum(outcome.chunk.examples for outcome in mine)
        inputs = sum(outcome.inputs for outcome in mine)
        failed = any(outcome.failure for outcome in mine)
        print(f"| {target} | {examples} | {inputs} | {'FAILED' if failed else 'passed'} |")  # noqa: T201
    total = sum(outcome.inputs for outcome in outcomes)
    print(f"\n{total} inputs in {seconds:.0f} s")  # noqa: T201
