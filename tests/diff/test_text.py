"""The text report: headings, the refusal warning, coloured diff lines only when asked."""

from __future__ import annotations

from trainc.diff.changes import SHARED, Change, ObjectChange
from trainc.diff.text import render_text


def change(owner: str, *, refusals: tuple[str, ...] = ()) -> ObjectChange:
    return ObjectChange(
        owner, "JobSet", "ml", "a", Change.CHANGED, "spec:\n  x: 1\n", "spec:\n  x: 2\n", refusals
    )


def test_plain_text_lists_objects_then_their_diffs_and_a_summary() -> None:
    text = render_text(
        [change("ml/a", refusals=("field is immutable",)), change(SHARED)],
        base="HEAD",
        head="working tree",
    )
    assert "\x1b" not in text
    diff = [
        "--- a/JobSet/ml/a\tHEAD",
        "+++ b/JobSet/ml/a\tworking tree",
        "@@ -1,2 +1,2 @@",
        " spec:",
        "-  x: 1",
        "+  x: 2",
    ]
    assert text.splitlines() == [
        "TrainJob ml/a",
        "  changed  JobSet ml/a",
        "           needs a new TrainJob name: field is immutable",
        *diff,
        "",
        "Shared objects (the sweeper)",
        "  changed  JobSet ml/a",
        *diff,
        "",
        "2 objects of 1 TrainJob differ from HEAD: 0 added, 2 changed, 0 removed; "
        "1 JobSet needs a new TrainJob name.",
    ]


def test_colour_marks_removed_added_and_hunk_lines() -> None:
    lines = render_text([change("ml/a")], base="HEAD", head="w", color=True).splitlines()
    assert "\x1b[31m-  x: 1\x1b[0m" in lines
    assert "\x1b[32m+  x: 2\x1b[0m" in lines
    assert "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m" in lines
    assert " spec:" in lines
