from __future__ import annotations

import pytest
from ruamel.yaml.scanner import Scanner

from trainc.config.limits import InputLimits
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import Parsed, parse_documents


def parse(text: str, **limits: int) -> Parsed:
    return parse_documents(SourceFile("f.yaml", text), InputLimits(**limits))


def found(parsed: Parsed) -> list[tuple[str, int | None, int | None]]:
    return [(d.code, d.line, d.column) for d in parsed.diagnostics]


def test_multi_document_stream_with_empty_documents_skipped() -> None:
    parsed = parse("---\na: 1\n---\n---\n# only a comment\n---\n- x\n---\nplain\n")
    indexed = [(d.index, d.data) for d in parsed.documents]
    assert indexed == [(0, {"a": 1}), (3, ["x"]), (4, "plain")]
    assert parsed.diagnostics == ()


def test_findings_are_kept_by_document() -> None:
    parsed = parse("a: 1\na: 2\n---\nb: 1\n---\n1: x\n")
    assert found(parsed) == [("load.duplicate-key", 2, 1), ("load.non-string-key", 6, 1)]
    assert parsed.findings == {
        0: parsed.diagnostics[:1],
        1: (),
        2: parsed.diagnostics[1:],
    }


def test_empty_and_comment_only_files() -> None:
    assert parse("") == Parsed((), ())
    assert parse("# nothing\n").documents == ()


def test_syntax_error_keeps_the_documents_before_it() -> None:
    parsed = parse("a: 1\n---\nb: 2\n---\nc: d: e\n---\nf: 3\n")
    assert [d.data for d in parsed.documents] == [{"a": 1}, {"b": 2}]
    assert found(parsed) == [("load.syntax", 5, 5)]
    assert parsed.diagnostics[0].message == "mapping values are not allowed here"


def test_syntax_message_names_the_construct_and_its_line() -> None:
    parsed = parse("a:\n  - [1, 2\nb: 3\n")
    assert found(parsed) == [("load.syntax", 3, 2)]
    message = parsed.diagnostics[0].message
    assert "while parsing a flow sequence that starts on line 2" in message
    assert "<" not in message  # ruamel's token names are spelled out


def test_text_ruamel_cannot_place_is_a_syntax_finding_not_a_crash() -> None:
    # A block scalar indicator where a key should start, then a comment: ruamel's comment
    # bookkeeping asserts instead of raising a syntax error (found by fuzzing).
    parsed = parse("a: 1\n---\nspec:\n\n| #c  mlPolicy:\n    torch: {}\n  template: {}\n")
    assert [d.data for d in parsed.documents] == [{"a": 1}]
    ((code, line, _),) = found(parsed)
    assert code == "load.syntax"
    assert line is not None
    assert 5 <= line <= 7


def test_tab_indentation() -> None:
    parsed = parse("spec:\n\tname: x\n")
    assert found(parsed) == [("load.tab-indent", 2, 1)]
    assert parsed.diagnostics[0].hint == "replace the tab with spaces"


def test_control_character() -> None:
    parsed = parse("a: 1\nb: x\x07y\n")
    assert found(parsed) == [("load.syntax", 2, 5)]
    assert "U+0007" in parsed.diagnostics[0].message


def test_ten_thousand_nested_brackets_stop_at_the_bound_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Nesting is bounded while composing: the scanner stops one simple-key lookahead
    # (1,024 characters) past the 100th bracket, and the ~19,000 tokens after it are never
    # scanned. ruamel's scanner works per open level for each token: composing on until
    # Python's stack ran out read ~1,360 tokens and took 3x as long, all of them took
    # seconds.
    fetches = 0
    fetch_more_tokens = Scanner.fetch_more_tokens

    def counted(scanner: Scanner) -> None:
        nonlocal fetches
        fetches += 1
        fetch_more_tokens(scanner)

    monkeypatch.setattr(Scanner, "fetch_more_tokens", counted)
    parsed = parse("a: 1\n---\nb: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert [d.data for d in parsed.documents] == [{"a": 1}]
    assert found(parsed) == [("load.too-deep", 3, 103)]
    assert 100 + 1_024 <= fetches <= 100 + 1_024 + 50  # of 20,009 tokens


def test_deep_block_nesting_is_reported_at_the_culprit() -> None:
    text = "".join("  " * i + f"k{i}:\n" for i in range(12)) + "  " * 12 + "v: 1\n"
    assert found(parse(text, max_depth=10)) == [("load.too-deep", 10, 19)]
    assert parse(text, max_depth=14).diagnostics == ()  # keys sit one level below their map


def test_python_recursion_limit_is_a_finding_too() -> None:
    # A configured bound beyond what the stack holds: ruamel's recursion gives out first.
    parsed = parse("a: 1\n---\n" + "[\n" * 5_000 + "]\n" * 5_000, max_depth=1_000_000)
    assert [d.data for d in parsed.documents] == [{"a": 1}]
    assert [d.code for d in parsed.diagnostics] == ["load.too-deep"]
    assert parsed.diagnostics[0].line is not None
    assert parsed.diagnostics[0].line > 3


def test_lines_follow_the_template_map() -> None:
    source = SourceFile("t.yaml.j2", "a: 1\nb: : x\n", original="…", line_map=(4, 9, 9))
    parsed = parse_documents(source, InputLimits())
    assert [(d.file, d.line) for d in parsed.diagnostics] == [("t.yaml.j2", 9)]
