"""The pull-request comment, read as GitHub reads it (CommonMark + tables), and its cut."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from trainc.diff.changes import Change, ObjectChange
from trainc.diff.markdown import COMMENT_LIMIT, render_markdown


def change(name: str, body: str = "image: x", *, refusals: tuple[str, ...] = ()) -> ObjectChange:
    return ObjectChange(
        owner=f"ml/{name}",
        kind="JobSet",
        namespace="ml",
        name=name,
        change=Change.CHANGED,
        before=f"metadata:\n  name: {name}\nspec:\n  {body}\n",
        after=f"metadata:\n  name: {name}\nspec:\n  {body}-new\n",
        refusals=refusals,
    )


def tokens(markdown: str) -> list[tuple[str, str, str]]:
    parsed = MarkdownIt("commonmark").enable("table").parse(markdown)
    return [(token.type, token.info, token.content) for token in parsed]


def test_a_table_row_and_a_collapsible_diff_per_object() -> None:
    text = render_markdown(
        [change("a"), change("b", refusals=("spec.replicatedJobs: field is immutable",))],
        base="origin/main",
        head="working tree",
    )
    found = tokens(text)

    assert sum(1 for kind, _, _ in found if kind == "tr_open") == 3  # header + 2 rows
    details = [content for kind, _, content in found if kind == "html_block"]
    assert [d.startswith("<details><summary>JobSet ml/") for d in details].count(True) == 2
    fences = [content for kind, info, content in found if kind == "fence" and info == "diff"]
    assert len(fences) == 2
    assert "-  image: x\n+  image: x-new" in fences[0]
    assert "needs a new TrainJob name" in text
    assert "field is immutable" in text


def test_backticks_in_a_diff_cannot_close_its_code_block() -> None:
    # A context line " ````" would close a fence of three backticks.
    text = render_markdown([change("a", "x\n````\n  y")], base="HEAD", head="w")
    (fence,) = [content for kind, _, content in tokens(text) if kind == "fence"]
    assert " ````\n" in fence
    assert fence.endswith("+  y-new\n")


def test_html_in_user_text_is_inert() -> None:
    text = render_markdown(
        [change("a", refusals=("<img src=x onerror=alert(1)> | pipe",))], base="HEAD", head="w"
    )
    assert "<img" not in text
    assert "&lt;img" in text


def test_no_changes_is_one_sentence() -> None:
    text = render_markdown([], base="HEAD", head="w")
    assert text.endswith("\n\nNo changes to the cluster against HEAD.\n")
    assert "|" not in text


@settings(max_examples=30, deadline=None)
@given(
    count=st.integers(min_value=1, max_value=60),
    size=st.integers(min_value=1, max_value=4000),
    limit=st.integers(min_value=300, max_value=COMMENT_LIMIT),
)
# The table and the note fit with no unit to spare, but not with the blank line
# written between them.
@example(count=52, size=1, limit=2606)
def test_the_comment_never_exceeds_the_limit_and_says_what_it_left_out(
    count: int, size: int, limit: int
) -> None:
    changes = [change(f"job-{i}", "x" * size + "é😀") for i in range(count)]
    text = render_markdown(changes, base="HEAD", head="w", limit=limit)

    assert len(text.encode("utf-16-le")) // 2 <= limit
    shown = text.count("<details>")
    if shown < count:
        missing = count if "| TrainJob |" not in text or shown == 0 else count - shown
        assert f"_{missing} of {count} changed object" in text
    else:
        assert "not shown" not in text


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=5),
    base=st.text(alphabet="ab`é😀/~^", max_size=3000),
    limit=st.integers(min_value=0, max_value=1200),
)
@example(count=3, base="HEAD", limit=0)
@example(count=3, base="HEAD", limit=1)
@example(count=0, base="origin/" + "x" * 2000, limit=299)
def test_the_limit_holds_whatever_the_base_and_however_small(
    count: int, base: str, limit: int
) -> None:
    """Even when the heading and the note alone pass the limit (a huge base revision, a
    limit under 300), the comment stays within it, and never halves a character."""
    text = render_markdown(
        [change(f"job-{i}") for i in range(count)], base=base, head="w", limit=limit
    )
    units = text.encode("utf-16-le", errors="strict")  # no lone surrogate
    assert len(units) // 2 <= limit


def test_a_huge_base_is_shortened_in_the_heading_and_the_note_leaving_room_for_the_table() -> None:
    base = "origin/" + "very-long-branch-name-" * 5000  # 110,007 characters
    changes = [change("a"), change("b")]
    text = render_markdown(changes, base=base, head="w")
    assert len(text.encode("utf-16-le")) // 2 <= COMMENT_LIMIT
    heading = text.splitlines()[0]
    assert heading.startswith("### trainc diff against `origin/very-long-branch-name-")
    assert heading.endswith("…`")
    assert sum(1 for kind, _, _ in tokens(text) if kind == "tr_open") == 3  # the table is whole
    assert "_2 of 2 changed objects not shown" in text
    assert "run `trainc diff --base origin/very-long-branch-name-" in text
