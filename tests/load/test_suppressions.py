"""Where ``# trainc: ignore[...]`` comments are found and which lines each covers."""

from __future__ import annotations

from trainc.load.source import SourceFile
from trainc.load.suppressions import find_suppressions

STREAM = """\
# trainc: ignore[xobj.ttl-short]
apiVersion: v1
kind: A
---
%YAML 1.2
# a note, then the suppression of the second document
# trainc: ignore[pod.image, pod.env]
kind: B
image: x   # trainc: ignore[pod.ports]
url: http://example.com/#trainc: ignore[pod.env]
...
---
kind: C
"""


def _spans(
    text: str, path: str = "a.yaml"
) -> list[tuple[int, tuple[str, ...], int, int, str | None]]:
    return [
        (s.line, s.codes, s.first, s.last, s.problem)
        for s in find_suppressions(SourceFile(path, text))
    ]


def test_a_heading_comment_covers_its_document_and_a_trailing_one_its_line() -> None:
    assert _spans(STREAM) == [
        (1, ("xobj.ttl-short",), 1, 3, None),
        (7, ("pod.image", "pod.env"), 5, 10, None),
        (9, ("pod.ports",), 9, 9, None),
    ]


def test_covers_is_bounded_by_the_span() -> None:
    first, second, trailing = find_suppressions(SourceFile("a.yaml", STREAM))
    assert [line for line in range(1, 14) if second.covers(line)] == list(range(5, 11))
    assert trailing.covers(9)
    assert not trailing.covers(8)
    assert first.whole_document
    assert not trailing.whole_document


def test_misplaced_and_bare_comments_cover_nothing() -> None:
    text = "kind: A  # trainc: ignore\nspec:\n  # trainc: ignore[pod.env]\n  x: 1\n"
    (bare, inside) = find_suppressions(SourceFile("a.yaml", text))
    assert bare.problem is not None
    assert "names no rule" in bare.problem
    assert inside.problem is not None
    assert "line of its own inside a document" in inside.problem
    assert not any(s.covers(line) for s in (bare, inside) for line in range(1, 5))


def test_a_template_is_read_as_written() -> None:
    template = "kind: A\nname: {{ name }}  # trainc: ignore[meta.name-format]\n"
    rendered = SourceFile("a.yaml.j2", "kind: A\nname: x\n", original=template, line_map=(1, 2))
    assert [(s.line, s.codes) for s in find_suppressions(rendered)] == [(2, ("meta.name-format",))]


def test_json_and_text_without_the_marker_hold_none() -> None:
    assert find_suppressions(SourceFile("a.json", '{"a": "x # trainc: ignore[pod.env]"}')) == ()
    assert find_suppressions(SourceFile("a.yaml", "kind: A  # ignore[pod.env]\n")) == ()
