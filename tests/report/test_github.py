from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from trainc.diagnostics import Diagnostic, Severity
from trainc.report.base import Reporter, ReporterOptions, ReportInput, describe
from trainc.report.github import GithubReporter

# How the Actions runner reads a workflow command back (ActionCommand.TryParseV2).
COMMAND = re.compile(r"^::(?P<name>[a-z]+)(?: (?P<properties>[^:]*))?::(?P<data>.*)$")
PROPERTY_ESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}
DATA_ESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n"}

Render = Callable[[Reporter, ReportInput], str]


def _unescape(text: str, escapes: dict[str, str]) -> str:
    return re.sub("|".join(escapes), lambda match: escapes[match.group()], text)


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    properties = {}
    for pair in (match["properties"] or "").split(","):
        key, _, value = pair.partition("=")
        properties[key] = _unescape(value, PROPERTY_ESCAPES)
    return match["name"], properties, _unescape(match["data"], DATA_ESCAPES)


def _github(*, verbose: bool = False) -> GithubReporter:
    return GithubReporter(ReporterOptions(verbose=verbose))


def test_github_reporter_satisfies_the_protocol() -> None:
    reporter: Reporter = GithubReporter(ReporterOptions())
    assert isinstance(reporter, Reporter)


def test_one_command_per_finding_and_nothing_else(sample: ReportInput, render: Render) -> None:
    output = render(_github(verbose=True), sample)
    lines = output.splitlines()
    assert output.endswith("\n")
    assert len(lines) == len(sample.diagnostics)
    assert all(COMMAND.match(line) for line in lines)


def test_clean_run_writes_nothing(clean: ReportInput, render: Render) -> None:
    assert render(_github(), clean) == ""


def test_commands_round_trip_to_the_findings(sample: ReportInput, render: Render) -> None:
    lines = render(_github(verbose=True), sample).splitlines()
    names = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for line, diagnostic in zip(lines, sample.diagnostics, strict=True):
        name, properties, message = _parse(line)
        assert name == names[diagnostic.severity]
        assert properties["title"] == diagnostic.code
        assert message == describe(diagnostic)
        if diagnostic.file is None:
            assert set(properties) == {"title"}
        else:
            assert properties["file"] == diagnostic.file
            assert properties["line"] == str(diagnostic.line)
            assert properties["col"] == str(diagnostic.column)


def test_exact_lines_for_hint_object_and_special_characters(
    sample: ReportInput, render: Render
) -> None:
    lines = render(_github(), sample).splitlines()
    assert lines[0] == (
        '::error title=config.invalid::environment "prod" is not defined'
        "%0Ahelp: defined environments: dev, staging"
    )
    assert lines[1] == (
        "::warning file=jobs/tpl.yaml.j2,line=5,col=9,title=policy.gpu-limit::"
        'GPU 100%25: "a,b" <8> & — ünï ✓%0Aline 2%0Anote: TrainJob sweep'
    )
    assert lines[3] == (
        "::error file=jobs/train.yaml,line=8,col=5,title=schema.unknown-field::"
        'unknown field "nmae"%0Anote: TrainJob team-a/llm, field: spec.trainer.nmae'
        '%0Ahelp: did you mean "numNodes"?'
    )


def test_properties_escape_separators(render: Render) -> None:
    diagnostic = Diagnostic(
        code="policy.a:b,c",
        severity=Severity.ERROR,
        message="50%\r\ndone",
        file="odd:dir,x/100%.yaml",
        line=2,
        column=None,
    )
    report = ReportInput(
        diagnostics=(diagnostic,), sources={}, files_checked=1, objects_checked=0, version="0"
    )
    output = render(_github(), report)
    assert output == (
        "::error file=odd%3Adir%2Cx/100%25.yaml,line=2,title=policy.a%3Ab%2Cc::50%25%0D%0Adone\n"
    )
    _, properties, message = _parse(output.rstrip("\n"))
    assert properties == {"file": "odd:dir,x/100%.yaml", "line": "2", "title": "policy.a:b,c"}
    assert message == "50%\r\ndone"


@pytest.mark.parametrize(
    ("changes", "properties"),
    [
        ({"line": None, "column": None}, "file=a.yaml,title=schema.type"),
        ({"file": None}, "title=schema.type"),  # a line means nothing without its file
    ],
)
def test_partial_locations(render: Render, changes: dict[str, Any], properties: str) -> None:
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.WARNING,
        message="m",
        file="a.yaml",
        line=1,
        column=2,
    )
    report = ReportInput(
        diagnostics=(dataclasses.replace(diagnostic, **changes),),
        sources={},
        files_checked=1,
        objects_checked=0,
        version="0",
    )
    assert render(_github(), report) == f"::warning {properties}::m\n"
