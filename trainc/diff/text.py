"""``trainc diff`` for people: each TrainJob's changed objects as unified diffs.

With colour on, lines are coloured as ``git diff`` colours them: removed red, added
green, hunk headers cyan; a refused update's warning is bold red.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainc.diff.changes import ObjectChange, owners
from trainc.diff.summary import FIX, DiffSummary, heading

_STYLES = (("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"))


@dataclass(frozen=True, slots=True)
class _Paint:
    enabled: bool

    def __call__(self, text: str, style: str) -> str:
        return f"\x1b[{style}m{text}\x1b[0m" if self.enabled and text else text

    def diff_line(self, line: str) -> str:
        style = next((style for prefix, style in _STYLES if line.startswith(prefix)), None)
        return self(line, style) if style is not None else line


def render_text(
    changes: Sequence[ObjectChange], *, base: str, head: str, color: bool = False
) -> str:
    """The report ``trainc diff`` prints by default: per TrainJob, a list of its changed
    objects then their diffs; a summary line at the end."""
    paint = _Paint(color)
    out: list[str] = []
    for owner, owned in owners(changes).items():
        out.append(paint(heading(owner), "1"))
        for change in owned:
            out.append(f"  {change.change.value:<8} {change.title}")
            out.extend(paint(f"           {FIX}: {reason}", "1;31") for reason in change.refusals)
        for change in owned:
            out.extend(paint.diff_line(line) for line in change.unified(base, head))
        out.append("")
    out.append(DiffSummary.of(changes).sentence(base))
    return "\n".join(out) + "\n"
