from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from trainc.config.file import CONFIG_FILE_NAME
from trainc.diagnostics import Diagnostic, Severity, rule_for
from trainc.errors import CompilerBug
from trainc.report.base import Reporter, ReporterOptions, ReportInput, describe
from trainc.report.sarif import SarifReporter

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}

Render = Callable[[Reporter, ReportInput], str]


def _sarif(*, verbose: bool = False) -> SarifReporter:
    return SarifReporter(ReporterOptions(verbose=verbose))


def _run(output: str) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(output)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert isinstance(run, dict)
    return run


def _fingerprints(render: Render, report: ReportInput) -> list[str]:
    results = _run(render(_sarif(verbose=True), report))["results"]
    return [result["partialFingerprints"]["trainc/v1"] for result in results]


def _report(*diagnostics: Diagnostic) -> ReportInput:
    return ReportInput(
        diagnostics=diagnostics, sources={}, files_checked=1, objects_checked=1, version="0"
    )


def test_sarif_reporter_satisfies_the_protocol() -> None:
    reporter: Reporter = SarifReporter(ReporterOptions())
    assert isinstance(reporter, Reporter)


def test_driver_names_the_tool_and_its_version(sample: ReportInput, render: Render) -> None:
    driver = _run(render(_sarif(), sample))["tool"]["driver"]
    assert driver["name"] == "trainc"
    assert driver["version"] == "9.9.9"
    assert "informationUri" not in driver  # SARIF wants an absolute URI; trainc has none


def test_rules_are_the_codes_that_occur_with_catalogue_text(
    sample: ReportInput, render: Render
) -> None:
    run = _run(render(_sarif(), sample))
    rules = run["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert ids == sorted({d.code for d in sample.diagnostics if d.severity is not Severity.INFO})
    for rule in rules:
        entry = rule_for(rule["id"])
        assert rule["shortDescription"] == {"text": entry.summary}
        assert rule["defaultConfiguration"] == {"level": LEVELS[entry.severity]}


def test_results_follow_the_findings(sample: ReportInput, render: Render) -> None:
    results = _run(render(_sarif(verbose=True), sample))["results"]
    rules = _run(render(_sarif(verbose=True), sample))["tool"]["driver"]["rules"]
    assert len(results) == len(sample.diagnostics)
    for result, diagnostic in zip(results, sample.diagnostics, strict=True):
        assert result["ruleId"] == diagnostic.code
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == LEVELS[diagnostic.severity]
        assert result["message"] == {"text": describe(diagnostic)}


def test_every_result_has_a_repo_relative_physical_location(
    sample: ReportInput, render: Render
) -> None:
    results = _run(render(_sarif(verbose=True), sample))["results"]
    for result, diagnostic in zip(results, sample.diagnostics, strict=True):
        (location,) = result["locations"]  # GitHub rejects the whole file without one
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {
            "uri": diagnostic.file or CONFIG_FILE_NAME,
            "uriBaseId": "%SRCROOT%",
        }
        if diagnostic.file is None:
            assert "region" not in physical
        else:
            assert physical["region"] == {
                "startLine": diagnostic.line,
                "startColumn": diagnostic.column,
            }


def test_uris_are_percent_encoded(render: Render) -> None:
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="m",
        file="my jobs/训练#1.yaml",
        line=2,
        column=None,
    )
    (result,) = _run(render(_sarif(), _report(diagnostic)))["results"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "my%20jobs/%E8%AE%AD%E7%BB%83%231.yaml"
    assert physical["region"] == {"startLine": 2}


def test_a_file_name_that_is_not_utf8_is_encoded_as_its_bytes(render: Render) -> None:
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="m",
        file="latin\udce9/\udcff.yaml",  # os.fsdecode(b"latin\xe9/\xff.yaml")
        line=None,
        column=None,
    )
    (result,) = _run(render(_sarif(), _report(diagnostic)))["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uri"] == "latin%E9/%FF.yaml"


def test_fingerprints_survive_moved_lines(sample: ReportInput, render: Render) -> None:
    moved = tuple(
        dataclasses.replace(d, line=d.line + 10 if d.line else None, column=1)
        for d in sample.diagnostics
    )
    before = _fingerprints(render, sample)
    assert _fingerprints(render, dataclasses.replace(sample, diagnostics=moved)) == before
    assert len(set(before)) == len(before)


@pytest.mark.parametrize(
    "changes",
    [
        {"code": "schema.enum"},
        {"file": "b.yaml"},
        {"field_path": "spec.y"},
        {"name": "other"},
        {"namespace": "team-b"},
    ],
)
def test_fingerprints_change_with_identity(render: Render, changes: dict[str, Any]) -> None:
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="m",
        file="a.yaml",
        line=1,
        column=1,
        kind="TrainJob",
        namespace="team-a",
        name="llm",
        field_path="spec.x",
    )
    changed = dataclasses.replace(diagnostic, **changes)
    assert _fingerprints(render, _report(diagnostic)) != _fingerprints(render, _report(changed))


def test_same_identity_findings_get_distinct_fingerprints(render: Render) -> None:
    first = Diagnostic(
        code="load.syntax", severity=Severity.ERROR, message="m", file="a.yaml", line=1, column=1
    )
    second = dataclasses.replace(first, line=9, message="n")
    fingerprints = _fingerprints(render, _report(first, second))
    assert len(set(fingerprints)) == 2
    moved = _report(dataclasses.replace(first, line=3), dataclasses.replace(second, line=12))
    assert _fingerprints(render, moved) == fingerprints


def test_unicode_messages_survive(sample: ReportInput, render: Render) -> None:
    output = render(_sarif(), sample)
    assert output.isascii()
    texts = [result["message"]["text"] for result in _run(output)["results"]]
    assert any(text.startswith('GPU 100%: "a,b" <8> & — ünï ✓\nline 2\n') for text in texts)


def test_clean_run_has_an_empty_run(clean: ReportInput, render: Render) -> None:
    run = _run(render(_sarif(), clean))
    assert run["results"] == []
    assert run["tool"]["driver"]["rules"] == []
    assert run["columnKind"] == "unicodeCodePoints"


def test_undeclared_code_is_a_bug_and_writes_nothing(sample: ReportInput) -> None:
    typo = dataclasses.replace(sample.diagnostics[0], code="xobj.typo")
    stream = io.StringIO()
    with pytest.raises(CompilerBug):
        _sarif().write(dataclasses.replace(sample, diagnostics=(typo,)), stream)
    assert stream.getvalue() == ""
