"""Comments, docstrings and docs cite only what ships with trainc, or upstream by URL.

The project's background notes live outside the repository; a reader of a clone cannot
open them, so no file may point at them (by name, by their directory, or by a section
number). Upstream facts are cited by URL or through ``docs/upstream.md``, trainc's own
design through ``docs/design.md``; a citation of a project doc must name a file that
exists and, when it quotes a section, a heading or bold lead-in of that file.

Test code that loads the upstream conformance data from ``../shared/upstream`` reads
data, cites nothing, and is not affected; what users read (the package, its docs, README,
the deploy and example files) does not name that directory at all.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

#: What a shipped file must never mention, and why. The patterns are assembled from parts
#: so that this file does not match itself.
FORBIDDEN = {
    re.compile("upstream" + "-semantics"): "notes outside the repository",
    re.compile(re.escape("../shared/" + "docs")): "notes outside the repository",
    re.compile(r"\bmission" + r"\.md"): "notes outside the repository",
    re.compile(r"\bstyle" + r"\.md"): "notes outside the repository (use docs/design.md)",
    re.compile(r"\bseeds" + "/"): "design documents outside the repository",
    re.compile("\u00a7"): "a section number of a document the repository does not hold",
}

#: What users read: they cannot follow a path outside the checkout from there.
USER_FACING = ("trainc/", "docs/", "deploy/", "examples/", "README.md")
_OUTSIDE = re.compile(re.escape("../" + "shared"))

#: ``docs/<name>.md`` and an optional quoted section after it, as code and docs cite them.
_DOC_CITATION = re.compile(r'docs/([\w-]+\.md)(?:``)?(?:,\s*"([^"]+)")?')

#: Line breaks inside a docstring or a comment, with the comment's leading ``#`` or ``#:``.
_CONTINUATION = re.compile(r"\s*\n\s*(?:#:?\s*)?")


@cache
def shipped_files() -> tuple[Path, ...]:
    """Every file of the checkout that git tracks or would track (new, not ignored)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO_ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the shipped files are unknown")
    names = sorted({name for name in listed.decode().split("\0") if name})
    return tuple(REPO_ROOT / name for name in names if (REPO_ROOT / name).is_file())


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


def forbidden_mentions(text: str) -> Iterator[tuple[int, str, str]]:
    """Line number, matched text and reason of every forbidden mention in ``text``."""
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, reason in FORBIDDEN.items():
            for match in pattern.finditer(line):
                yield number, match.group(), reason


def doc_citations(text: str) -> Iterator[tuple[str, str | None]]:
    """``(doc file, quoted section or None)`` of every project-doc citation in ``text``.

    A citation may wrap across docstring or comment lines; the section is compared with
    its whitespace collapsed.
    """
    flat = _CONTINUATION.sub(" ", text)
    for match in _DOC_CITATION.finditer(flat):
        section = match.group(2)
        yield match.group(1), None if section is None else " ".join(section.split())


def _normalised(title: str) -> str:
    return " ".join(title.replace("`", "").split()).rstrip(".:")


@cache
def sections_of(doc: Path) -> frozenset[str]:
    """The headings and bold lead-ins of a markdown file, without markup."""
    text = doc.read_text(encoding="utf-8")
    headings = re.findall(r"^#+\s+(.+)$", text, flags=re.MULTILINE)
    lead_ins = re.findall(r"\*\*(.+?)\*\*", text)
    return frozenset(_normalised(title) for title in (*headings, *lead_ins))


def test_no_file_cites_notes_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    found = [
        f"{path.relative_to(REPO_ROOT)}:{line}: {matched!r} ({reason})"
        for path in shipped_files()
        if path.resolve() != this and (text := _text(path)) is not None
        for line, matched, reason in forbidden_mentions(text)
    ]
    assert found == []


def test_what_users_read_names_no_directory_outside_the_checkout() -> None:
    found = [
        f"{relative}:{number}"
        for path in shipped_files()
        if (relative := path.relative_to(REPO_ROOT).as_posix()).startswith(USER_FACING)
        if (text := _text(path)) is not None
        for number, line in enumerate(text.splitlines(), start=1)
        if _OUTSIDE.search(line)
    ]
    assert found == []


def _cites_nothing(doc: str, section: str | None) -> bool:
    path = REPO_ROOT / "docs" / doc
    if not path.is_file():
        return True
    return section is not None and _normalised(section) not in sections_of(path)


def test_every_cited_project_doc_and_section_exists() -> None:
    this = Path(__file__).resolve()
    missing = [
        f"{path.relative_to(REPO_ROOT)}: docs/{doc}" + (f', "{section}"' if section else "")
        for path in shipped_files()
        if path.suffix in {".py", ".md"} and path.resolve() != this
        if (text := _text(path)) is not None
        for doc, section in doc_citations(text)
        if _cites_nothing(doc, section)
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see ``upstream" + "-semantics.md`` \u00a72.5", ["upstream-semantics", "\u00a7"]),
        ("design: ../shared/" + "docs/style" + ".md", ["../shared/docs", "style.md"]),
        ("(seed 003, in seeds" + "/003.txt)", ["seeds/"]),
        ("data = REPO_ROOT.parent / 'shared' / 'upstream'  # ../shared/upstream", []),
        ("mission" + "_md = 1; cel.bind; freestyle.md", []),
    ],
)
def test_forbidden_mentions_are_found_and_nothing_else(text: str, expected: list[str]) -> None:
    assert [matched for _, matched, _ in forbidden_mentions(text)] == expected


def test_a_citation_wrapped_across_comment_or_docstring_lines_is_read_whole() -> None:
    text = (
        '    """Sized as upstream does (``docs/upstream.md``, "Lifecycle: deadlines,\n'
        '    TTL, deletion"), see also ``docs/design.md``.\n'
        '# and (docs/upstream.md, "What the API\n'
        '# server does")\n'
    )
    assert list(doc_citations(text)) == [
        ("upstream.md", "Lifecycle: deadlines, TTL, deletion"),
        ("design.md", None),
        ("upstream.md", "What the API server does"),
    ]


def test_sections_are_headings_and_bold_lead_ins_without_markup(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# Title\n\n## A part: two\n\n- **`resourcesPerNode` and counts.** text\n")
    assert sections_of(doc) == {"Title", "A part: two", "resourcesPerNode and counts"}
