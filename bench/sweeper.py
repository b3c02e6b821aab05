"""The sweeper's API cost and wall time during a TTL wave, against the stand-in API server.

For each size N, a fresh stand-in server (``tests/support/fakeapi.py``: the real HTTP
protocol on 127.0.0.1, the real ``kubernetes`` client on the other end) holds N compiled
JobSets in one namespace, each with its child Job, every other one finished long enough
ago for its TTL (the workload of the sweeper's cost tests, ``tests/support/cluster.py``).
One sweep pass runs as the CronJob runs it (production ``SweepLimits``, the real clock), first
as a dry run, then for real. Calls are the requests the server answered; the time runs
from the start of the pass to its last record. The server runs in the same process, so
it competes with the sweeper for the interpreter: a real API server would answer faster.

Usage, from the repository root (the test dependencies installed)::

    python -m bench.sweeper --jobsets 1000 10000 --out bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes import client as k8s

from bench.results import say, store
from bench.targets import SWEEP_BASE_CALLS, SWEEP_CALLS_PER_ACTION, SWEEP_SECONDS, Target
from bench.targets import table as target_table
from tests.support.cluster import NS, at, ttl_wave
from tests.support.fakeapi import FakeApiServer
from trainc.sweep.calls import SweepLimits
from trainc.sweep.client import SweepClient
from trainc.sweep.sweep_pass import ActionRecord, sweep

NOW = at(1000)
#: The waves the targets judge: calls at both; the wall time at 1,000 JobSets, whether the
#: pass finished at 10,000 (the wave a fixed call budget once cut short).
TARGET_JOBSETS = (1000, 10_000)
TIMED_JOBSETS = 1000


@dataclass(frozen=True, slots=True)
class Pass:
    """One sweep pass: what it did, what it cost, how long it took."""

    jobsets: int
    expired: int
    dry_run: bool
    seconds: float
    calls: Counter[str]  # "GET list", "GET", "DELETE", "PATCH", "POST"
    outcomes: Counter[str]  # "<action> <outcome>"

    @property
    def total(self) -> int:
        """Requests the server answered."""
        return sum(self.calls.values())

    @property
    def changes(self) -> int:
        """Actions decided (carried out or not): every record but the notes."""
        return sum(n for key, n in self.outcomes.items() if not key.startswith("Note "))

    @property
    def done(self) -> int:
        """Actions carried out."""
        return sum(n for key, n in self.outcomes.items() if key.endswith(" done"))

    @property
    def wave(self) -> str:
        """``N JobSets, E expired``."""
        return f"{self.jobsets:,} JobSets, {self.expired:,} expired"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: one dry and one real pass per size; print the block, store it."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.sweeper",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--jobsets", type=int, nargs="+", default=[1000, 10000], help="JobSets in the cluster")
    add("--out", type=Path, help="Markdown file to store the results in")
    add("--section", default="sweeper", help="name of the block replaced in --out")
    options = parser.parse_args(argv)
    passes = [measured for jobsets in sorted(set(options.jobsets)) for measured in measure(jobsets)]
    command = "python -m bench.sweeper " + shlex.join(sys.argv[1:] if argv is None else argv)
    block = render(passes, command)
    sys.stdout.write(block)
    if options.out is not None:
        store(options.out, options.section, block)
    return 0


def measure(jobsets: int) -> list[Pass]:
    """A dry pass, then a real one, over a fresh server holding a wave of ``jobsets``."""
    with FakeApiServer() as server:
        say(f"{jobsets} JobSets: filling the server")
        expired = len(ttl_wave(server, jobsets))
        found = []
        for dry_run in (True, False):
            server.clear_log()
            configuration: Any = k8s.Configuration(host=server.url)
            sweeper = SweepClient(configuration, limits=SweepLimits())
            start = time.perf_counter()
            records = list(sweep(sweeper, namespaces=(NS,), now=NOW, dry_run=dry_run))
            seconds = time.perf_counter() - start
            measured = Pass(
                jobsets=jobsets,
                expired=expired,
                dry_run=dry_run,
                seconds=seconds,
                calls=Counter(_kind(request.method, request.path) for request in server.requests),
                outcomes=_outcomes(records),
            )
            say(f"  {_name(measured)}: {measured.total} calls, {seconds:.2f} s")
            found.append(measured)
        return found


def _name(measured: Pass) -> str:
    return "dry run" if measured.dry_run else "real run"


def _kind(method: str, path: str) -> str:
    """A request's kind: the method, ``GET list`` for a GET of a collection."""
    parts = path.strip("/").split("/")
    # .../namespaces/NS/PLURAL is a collection, .../namespaces/NS/PLURAL/NAME one object
    named = len(parts) >= 4 and parts[-4] == "namespaces"  # noqa: PLR2004
    return "GET list" if method == "GET" and not named else method


def _outcomes(records: Sequence[ActionRecord]) -> Counter[str]:
    return Counter(f"{record.action} {record.outcome}" for record in records)


def render(passes: Sequence[Pass], command: str) -> str:
    """The Markdown block: one row per pass, then the targets at 1,000 JobSets."""
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    lines = [f"Measured {date} with `{command}` (load average {load}).", "", *table(passes)]
    judged = targets(passes)
    if judged:
        lines.extend(["", *target_table("target", judged)])
    return "\n".join(lines) + "\n"


def table(passes: Sequence[Pass]) -> list[str]:
    """One Markdown row per pass: calls by kind, outcomes, calls per action, time."""
    lines = [
        "| JobSets (expired) | pass | calls: total (lists, gets, deletes, patches, events) "
        "| actions: outcomes | calls besides lists per action done | wall time |",
        "|---|---|---|---|---|---|",
    ]
    for measured in passes:
        calls = measured.calls
        split = ", ".join(
            str(calls[kind]) for kind in ("GET list", "GET", "DELETE", "PATCH", "POST")
        )
        outcomes = ", ".join(f"{key} {n:,}" for key, n in sorted(measured.outcomes.items()))
        per_action = (
            f"{(measured.total - calls['GET list']) / measured.done:.2f}" if measured.done else "-"
        )
        lines.append(
            f"| {measured.jobsets:,} ({measured.expired:,}) "
            f"| {_name(measured)} "
            f"| {measured.total:,} ({split}) | {outcomes} | {per_action} "
            f"| {measured.seconds:.2f} s |"
        )
    return lines


def targets(passes: Sequence[Pass]) -> list[Target]:
    """The sweeper's targets, judged on the waves of :data:`TARGET_JOBSETS` that were run."""
    found = []
    for jobsets in TARGET_JOBSETS:
        dry = next((p for p in passes if p.jobsets == jobsets and p.dry_run), None)
        real = next((p for p in passes if p.jobsets == jobsets and not p.dry_run), None)
        if dry is None or real is None:
            continue
        allowed = SWEEP_BASE_CALLS + SWEEP_CALLS_PER_ACTION * real.changes
        found += [
            Target(
                f"sweeper, {dry.wave}: dry run, calls",
                f"{dry.total:,}",
                f"<= {SWEEP_BASE_CALLS}",
                dry.total <= SWEEP_BASE_CALLS,
            ),
            Target(
                f"sweeper, {real.wave}: real run, calls",
                f"{real.total:,}",
                f"<= {SWEEP_BASE_CALLS} + {SWEEP_CALLS_PER_ACTION} x {real.changes:,} actions "
                f"= {allowed:,}",
                real.total <= allowed,
            ),
            Target(
                f"sweeper, {real.wave}: real run, expired JobSets done in one pass",
                f"{real.done:,}",
                f"{real.expired:,}",
                real.done == real.expired,
            ),
        ]
        if jobsets == TIMED_JOBSETS:
            found.append(
                Target(
                    f"sweeper, {real.wave}: real run, wall time",
                    f"{real.seconds:.2f} s",
                    f"<= {SWEEP_SECONDS:.0f} s",
                    real.seconds <= SWEEP_SECONDS,
                )
            )
    return found


if __name__ == "__main__":
    sys.exit(main())
