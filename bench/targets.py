"""The performance targets, and the shape a bench gives each verdict.

The goals are those of the performance issue's table (the paths users wait on: the
pre-commit hook, a re-run after one change, Argo CD's refresh of an unchanged repository,
compile's memory, the sweeper's TTL wave) and the cold throughput targets that stay
behind them. Every verdict is computed from the measurements by the entry that measured
them; this module holds the goals, the shape and the Markdown table, so ``bench.run``
and ``bench.sweeper`` judge and render their targets alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MB = 1_000_000

#: The hook: ``trainc validate FILE``, one changed file, warm: a median at most this long,
SINGLE_FILE_SECONDS = 0.150
#: and at most this share of check-jsonschema's on the same file, in the same run.
SINGLE_FILE_VS_CHECK_JSONSCHEMA = 0.4
#: A re-run after one TrainJob changed (compile and validate), warm, over the cold run.
RERUN_RATIO = 0.03
#: Argo CD's ``generate`` of an unchanged repository, warm, over the cold one.
ARGOCD_UNCHANGED_RATIO = 0.02
#: Compile's peak memory (PSS, workers included) by number of TrainJobs.
COMPILE_MEMORY = {10_000: 150 * MB, 100_000: 300 * MB}
#: Cold throughput, behind the rest: compile at most the floor's time, validate 0.4x of it,
COMPILE_FLOOR_RATIO = 1.0
VALIDATE_FLOOR_RATIO = 0.4
#: and check-jsonschema on every TrainJob at least 10x slower than ``trainc validate``.
CHECK_JSONSCHEMA_SLOWER = 10.0
#: A sweeper pass: 20 calls (lists, retries) plus 3 per action, and a wave of 1,000
#: JobSets (500 expired) within 30 s.
SWEEP_BASE_CALLS = 20
SWEEP_CALLS_PER_ACTION = 3
SWEEP_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Target:
    """One target: ``met`` is None when the run could not measure it (``measured`` says why)."""

    name: str
    measured: str
    goal: str
    met: bool | None

    @property
    def status(self) -> str:
        """The verdict as the table shows it."""
        if self.met is None:
            return "not measured"
        return "met" if self.met else "**not met**"


def table(title: str, targets: Sequence[Target]) -> list[str]:
    """The Markdown lines of a target table whose first column is headed ``title``."""
    return [
        f"| {title} | measured | target | status |",
        "|---|---|---|---|",
        *(f"| {t.name} | {t.measured} | {t.goal} | {t.status} |" for t in targets),
    ]
