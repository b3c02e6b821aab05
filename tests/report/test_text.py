from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainc.diagnostics import Diagnostic, Severity, finding
from trainc.load.source import SourceFile
from trainc.report.base import Reporter, ReporterOptions, ReportInput, Summary
from trainc.report.text import TextReporter, _render, _summary_line

EXPECTED = """\
error[config.invalid]: environment "prod" is not defined
  = help: defined environments: dev, staging

jobs/tpl.yaml.j2:5:9: warning[policy.gpu-limit]: GPU 100%: "a,b" <8> & — ünï ✓
    line 2
  |
5 |   name: {{ name }}
  |         ^
  = note: TrainJob sweep

jobs/tpl.yaml.j2:7:3: error[cel.trainjob.deadline-min]: activeDeadlineSeconds must be ≥ 1
  |
7 |   activeDeadlineSeconds: {{ deadline }}
  |   ^
  = note: TrainJob sweep, field: spec.activeDeadlineSeconds

jobs/train.yaml:8:5: error[schema.unknown-field]: unknown field "nmae"
  |
8 |     nmae: 3
  |     ^
  = note: TrainJob team-a/llm, field: spec.trainer.nmae
  = help: did you mean "numNodes"?

jobs/train.yaml:9:21: error[schema.enum]: "run" is not one of "python", "torchrun"
  |
9 |     command: ["训练",   "run"]
  |                         ^
  = note: TrainJob team-a/llm, field: spec.trainer.command[1]

runtimes/torch.yaml:6:3: warning[xobj.ttl-short]: ttlSecondsAfterFinished is 30 seconds, under 60
  = note: ClusterTrainingRuntime torch-distributed, field: spec.ttlSecondsAfterFinished

Found 4 errors and 2 warnings in 3 files (4 objects checked).
"""

INFO_BLOCK = """\
jobs/train.yaml:11:1: info[load.ignored-document]: ConfigMap is not a Trainer object; skipped
   |
11 | apiVersion: v1
   | ^

"""

ANSI = "\x1b["

Render = Callable[[Reporter, ReportInput], str]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _text(
    *, verbose: bool = False, color: bool | None = False, environ: dict[str, str] | None = None
) -> TextReporter:
    return TextReporter(ReporterOptions(verbose=verbose, color=color), environ=environ or {})


def _one(diagnostic: Diagnostic, sources: dict[str, SourceFile] | None = None) -> ReportInput:
    return ReportInput(
        diagnostics=(diagnostic,),
        sources=sources or {},
        files_checked=1,
        objects_checked=1,
        version="0",
    )


def test_text_reporter_satisfies_the_protocol() -> None:
    reporter: Reporter = TextReporter(ReporterOptions())
    assert isinstance(reporter, Reporter)


def test_exact_output(sample: ReportInput, render: Render) -> None:
    assert render(_text(), sample) == EXPECTED


def test_verbose_adds_info_findings_in_place(sample: ReportInput, render: Render) -> None:
    before_torch = EXPECTED.index("runtimes/torch.yaml")
    expected = EXPECTED[:before_torch] + INFO_BLOCK + EXPECTED[before_torch:]
    expected = expected.replace("2 warnings in", "2 warnings and 1 info in")
    expected = expected.replace("4 errors and", "4 errors,")
    assert render(_text(verbose=True), sample) == expected


def test_clean_run(clean: ReportInput, render: Render) -> None:
    assert render(_text(), clean) == "All checks passed: 3 files, 4 objects.\n"


@pytest.mark.parametrize(
    ("summary", "files", "objects", "policy_files", "expected"),
    [
        (Summary(1, 0, 0), 1, 1, 0, "Found 1 error in 1 file (1 object checked)."),
        (Summary(0, 3, 0), 2, 5, 0, "Found 3 warnings in 2 files (5 objects checked)."),
        (
            Summary(2, 1, 0),
            3,
            5,
            0,
            "Found 2 errors and 1 warning in 3 files (5 objects checked).",
        ),
        (Summary(0, 0, 2), 3, 5, 0, "All checks passed: 3 files, 5 objects."),
        (Summary(0, 0, 0), 0, 0, 0, "All checks passed: 0 files, 0 objects."),
        # `trainc validate policies/`: policy files, which hold no objects.
        (Summary(0, 0, 0), 0, 0, 2, "All checks passed: 2 policy files."),
        (Summary(1, 0, 0), 0, 0, 1, "Found 1 error in 1 policy file."),
        (Summary(0, 0, 0), 1, 1, 1, "All checks passed: 1 file and 1 policy file, 1 object."),
    ],
)
def test_summary_line(
    summary: Summary, files: int, objects: int, policy_files: int, expected: str
) -> None:
    report = ReportInput(
        diagnostics=(),
        sources={},
        files_checked=files,
        objects_checked=objects,
        policy_files_checked=policy_files,
        version="9.9.9",
    )
    assert _summary_line(report, summary) == expected


def test_findings_are_grouped_by_file_in_given_order(render: Render) -> None:
    def at(path: str, line: int) -> Diagnostic:
        return Diagnostic(
            code="schema.type",
            severity=Severity.ERROR,
            message="m",
            file=path,
            line=line,
            column=1,
        )

    report = ReportInput(
        diagnostics=(at("b.yaml", 1), at("a.yaml", 1), at("b.yaml", 2)),
        sources={},
        files_checked=2,
        objects_checked=0,
        version="0",
    )
    headings = [line for line in render(_text(), report).splitlines() if "error[" in line]
    assert headings == [
        "b.yaml:1:1: error[schema.type]: m",
        "b.yaml:2:1: error[schema.type]: m",
        "a.yaml:1:1: error[schema.type]: m",
    ]


@pytest.mark.parametrize(
    ("line", "column", "displayed", "caret"),
    [
        ("a\tb", 3, "a   b", 4),
        ("\t\tx", 3, "        x", 8),
        ("训\tx", 3, "训  x", 4),
        ("ab", 4, "ab", 3),  # past the end: a missing value after the line
        ("e\u0301x", 3, "e\u0301x", 1),  # a combining accent takes no cell
        ("ab", None, "ab", None),
    ],
)
def test_render_measures_tabs_and_wide_characters(
    line: str, column: int | None, displayed: str, caret: int | None
) -> None:
    assert _render(line, column) == (displayed, caret)


@given(
    line=st.text(alphabet=st.sampled_from("ab :\t-"), max_size=30),
    column=st.integers(min_value=1, max_value=31),
)
def test_caret_matches_tab_expansion(line: str, column: int) -> None:
    displayed, caret = _render(line, column)
    assert displayed == line.expandtabs(4)
    if column <= len(line):
        assert caret == len(line[: column - 1].expandtabs(4))


def test_caret_sits_under_the_column_after_a_tab(render: Render) -> None:
    source = SourceFile(path="a.yaml", text="key:\tvalue\n")
    diagnostic = Diagnostic(
        code="schema.type", severity=Severity.ERROR, message="m", file="a.yaml", line=1, column=6
    )
    quoted, caret = render(_text(), _one(diagnostic, {"a.yaml": source})).splitlines()[2:4]
    assert quoted == "1 | key:    value"
    assert caret.index("^") == quoted.index("value")


def test_control_characters_from_user_files_are_escaped(render: Render) -> None:
    source = SourceFile(path="a.yaml", text="name: \x1b[2Jevil\u202e\n")
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="bad \x1b[31m\r\nname",
        file="a.yaml",
        line=1,
        column=7,
        name="x\x07",
    )
    output = render(_text(), _one(diagnostic, {"a.yaml": source}))
    assert "\x1b" not in output
    assert "\x07" not in output
    assert "\u202e" not in output
    assert "bad \\x1b[31m\\r\n    name\n" in output  # a line break starts an indented line
    assert "1 | name: \\x1b[2Jevil\\u202e" in output
    assert "= note: x\\x07" in output


def test_missing_source_line_gives_no_snippet(render: Render) -> None:
    source = SourceFile(path="a.yaml", text="one line\n")
    diagnostic = Diagnostic(
        code="schema.type", severity=Severity.ERROR, message="m", file="a.yaml", line=5, column=1
    )
    assert render(_text(), _one(diagnostic, {"a.yaml": source})) == (
        "a.yaml:5:1: error[schema.type]: m\n\nFound 1 error in 1 file (1 object checked).\n"
    )


def test_line_without_column_is_quoted_without_caret(render: Render) -> None:
    source = SourceFile(path="a.yaml", text="key: value\n")
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="m",
        file="a.yaml",
        line=1,
        column=None,
    )
    block = render(_text(), _one(diagnostic, {"a.yaml": source})).split("\n\n")[0]
    assert block == "a.yaml:1: error[schema.type]: m\n  |\n1 | key: value"


def test_forced_colour_styles_severities_and_dims_the_gutter(
    sample: ReportInput, render: Render
) -> None:
    output = render(_text(verbose=True, color=True), sample)
    assert "\x1b[1;31merror[schema.enum]\x1b[0m" in output
    assert "\x1b[33mwarning[xobj.ttl-short]\x1b[0m" in output
    assert "\x1b[36minfo[load.ignored-document]\x1b[0m" in output
    assert "\x1b[2m  |     ^\x1b[0m" in output
    plain = render(_text(verbose=True, color=False), sample)
    assert ANSI not in plain


@pytest.mark.parametrize(
    ("stream", "environ", "coloured"),
    [
        (io.StringIO, {}, False),
        (_Terminal, {}, True),
        (_Terminal, {"NO_COLOR": "1"}, False),
        (io.StringIO, {"FORCE_COLOR": "1"}, True),
    ],
)
def test_automatic_colour(
    sample: ReportInput, stream: type[io.StringIO], environ: dict[str, str], coloured: bool
) -> None:
    out = stream()
    _text(color=None, environ=environ).write(sample, out)
    assert (ANSI in out.getvalue()) is coloured


def test_environ_defaults_to_the_process_environment(
    sample: ReportInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = _Terminal()
    TextReporter(ReporterOptions()).write(sample, out)
    assert ANSI not in out.getvalue()


def test_template_findings_quote_the_template_line(sample: ReportInput, render: Render) -> None:
    template_finding = dataclasses.replace(sample, diagnostics=sample.diagnostics[2:3])
    assert "7 |   activeDeadlineSeconds: {{ deadline }}" in render(_text(), template_finding)


def _shown(render: Render, text: str, line: int, column: int, message: str = "m") -> list[str]:
    """The text report's lines for one error at ``line``:``column`` of a file ``text``."""
    source = SourceFile(path="a.yaml", text=text)
    error = finding("schema.type", message, file="a.yaml", line=line, column=column)
    return render(_text(), _one(error, {"a.yaml": source})).splitlines()


def test_a_multi_line_message_shows_each_line_indented_under_the_heading(
    render: Render,
) -> None:
    message = "does not compile: <input>:1:5: Syntax error\n | a ==\n | ....^\n\x1b[2J"
    assert _shown(render, "spec:\n  - expression: a ==\n", 2, 5, message)[:6] == [
        "a.yaml:2:5: error[schema.type]: does not compile: <input>:1:5: Syntax error",
        "     | a ==",
        "     | ....^",
        "    \\x1b[2J",
        "  |",
        "2 |   - expression: a ==",
    ]


def test_a_line_separator_in_a_value_is_shown_escaped_on_its_own_line(render: Render) -> None:
    text = 'a: "x\u2028y\u2029z\x85"\nb: 1\n'
    quoted, caret = _shown(render, text, 2, 4)[2:4]
    assert quoted == "2 | b: 1"
    assert caret.index("^") == quoted.index("1")
    quoted, caret = _shown(render, text, 1, 9)[2:4]
    assert quoted == '1 | a: "x\\u2028y\\u2029z\\x85"'
    assert caret.index("^") == quoted.index("z")
