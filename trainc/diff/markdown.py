"""``trainc diff --format markdown``: a pull-request comment.

A summary line and a table of every changed object come first, then one collapsible
section per object holding its unified diff. GitHub refuses a comment body over
65,536 characters (counted as JavaScript counts them, in UTF-16 code units), so the
comment is cut before that, whole sections at a time, with a note saying how many
objects are left out and the command that shows them all. A base revision too long for
the heading and the note to fit is shortened in them (``…`` marks the cut), and a limit
too small for even those words cuts the comment itself, so the limit always holds.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from trainc.diff.changes import SHARED, ObjectChange
from trainc.diff.summary import FIX, SHARED_HEADING, DiffSummary, plural

#: The longest comment body GitHub accepts.
COMMENT_LIMIT = 65_536

_BACKTICKS = re.compile(r"`+")


def render_markdown(
    changes: Sequence[ObjectChange], *, base: str, head: str, limit: int = COMMENT_LIMIT
) -> str:
    """The comment: never longer than ``limit`` UTF-16 code units.

    The table is kept whole when it fits and the diffs are added while they fit; a
    table too long on its own is cut too. Either way the note counts what is left out.
    """
    named = _fitting_base(changes, base, limit)
    return _clipped(_comment(changes, named, base, head, limit), limit)


def _comment(changes: Sequence[ObjectChange], named: str, base: str, head: str, limit: int) -> str:
    """:func:`render_markdown` with the base revision as the heading and note name it
    (``named``); the diffs show ``base`` itself."""
    top = _top(changes, named)
    if not changes:
        return top
    total = len(changes)
    body = top + "\n| TrainJob | Object | Change |\n| --- | --- | --- |\n"
    rows = [_row(change) for change in changes]
    # The whole table, with the blank line that ends it, exactly as written below:
    # measuring it without that line let a table one unit too long pass as fitting.
    table = body + "".join(rows) + "\n"
    sections = [_section(change, base, head) for change in changes]
    if _length(table + "".join(sections)) <= limit:
        return table + "".join(sections)
    note = _note(total, total, named)
    if _length(table + note) > limit:
        shown = _fitting(body, rows, note, limit)
        return (body + "".join(rows[:shown]) if shown else top) + note
    shown = _fitting(table, sections, note, limit)
    return table + "".join(sections[:shown]) + _note(total - shown, total, named)


def _top(changes: Sequence[ObjectChange], base: str) -> str:
    """The heading and the summary sentence."""
    return f"### trainc diff against `{_code(base)}`\n\n{DiffSummary.of(changes).sentence(base)}\n"


def _fitting_base(changes: Sequence[ObjectChange], base: str, limit: int) -> str:
    """``base`` as the heading and the note name it: whole when they fit in ``limit``
    with it; else its longest beginning, followed by ``…``, that leaves them half the
    limit (the other half is for the table and the diffs), or failing that the limit."""

    def frame(named: str) -> int:
        note = _note(len(changes), len(changes), named) if changes else ""
        return _length(_top(changes, named) + note)

    if frame(base) <= limit:
        return base
    budget = next((budget for budget in (limit // 2, limit) if frame("…") <= budget), 0)
    low, high = 0, len(base)  # the frame grows with the beginning kept
    while low < high:
        middle = (low + high + 1) // 2
        if frame(base[:middle] + "…") <= budget:
            low = middle
        else:
            high = middle - 1
    return base[:low] + "…"


def _fitting(body: str, parts: Sequence[str], note: str, limit: int) -> int:
    """How many of ``parts`` fit after ``body`` with room left for ``note``."""
    length = _length(body) + _length(note)
    for count, part in enumerate(parts):
        length += _length(part)
        if length > limit:
            return count
    return len(parts)


def _row(change: ObjectChange) -> str:
    what = change.change.value + (f" · **{FIX}**" if change.refusals else "")
    owner = f"`{change.owner}`" if change.owner != SHARED else SHARED_HEADING
    return f"| {owner} | {_cell(change.title)} | {what} |\n"


def _section(change: ObjectChange, base: str, head: str) -> str:
    diff = "\n".join(change.unified(base, head))
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(diff)), default=0))
    reasons = "".join(f"> **{FIX}**: {_text(reason)}\n>\n" for reason in change.refusals)
    summary = html.escape(f"{change.title} ({change.change.value})")
    return (
        f"<details><summary>{summary}</summary>\n\n{reasons}"
        f"{fence}diff\n{diff}\n{fence}\n\n</details>\n\n"
    )


def _note(missing: int, total: int, base: str) -> str:
    """Says what is left out; a longer count never makes it shorter, so the note
    measured for room is at least as long as the one written."""
    return (
        f"\n_{missing} of {plural(total, 'changed object')} not shown, to stay within "
        f"GitHub's comment limit: run `trainc diff --base {_code(base)}` to see them all._\n"
    )


def _clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` UTF-16 code units, ending in ``…`` when cut (never
    halving a character): the last resort of a limit too small for the heading."""
    if _length(text) <= limit:
        return text
    if limit <= 0:
        return ""
    kept = text.encode("utf-16-le")[: 2 * (limit - 1)]
    return kept.decode("utf-16-le", errors="ignore") + "…"


def _length(text: str) -> int:
    """Length as GitHub counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|")


def _text(text: str) -> str:
    """User text made inert in Markdown: no HTML, no line breaks."""
    return html.escape(" ".join(text.split()))


def _code(text: str) -> str:
    return text.replace("`", "'")
