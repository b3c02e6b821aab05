"""A performance target a bench judges: what was measured, the goal, and the verdict.

Every verdict is computed from the measurements by the entry that measured them; this
module only holds the shape and writes the Markdown table, so ``bench.run`` and
``bench.sweeper`` render their targets alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
