from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from trainc.diagnostics import Diagnostic, Severity, finding, rule_for
from trainc.errors import CompilerBug
from trainc.report.base import Reporter, ReporterOptions, ReportInput
from trainc.report.json import JsonReporter

#: JSON key → Diagnostic attribute: the Kubernetes lowerCamelCase spelling.
FIELDS = {
    "fieldPath" if field.name == "field_path" else field.name: field.name
    for field in dataclasses.fields(Diagnostic)
}

Render = Callable[[Reporter, ReportInput], str]


def _parse(output: str) -> dict[str, Any]:
    assert output.endswith("}\n")
    document = json.loads(output)  # raises on a second document or trailing text
    assert isinstance(document, dict)
    return document


def test_json_reporter_satisfies_the_protocol() -> None:
    reporter: Reporter = JsonReporter(ReporterOptions())
    assert isinstance(reporter, Reporter)


def test_one_object_with_diagnostics_and_summary(sample: ReportInput, render: Render) -> None:
    document = _parse(render(JsonReporter(ReporterOptions()), sample))
    assert set(document) == {"diagnostics", "summary"}
    assert document["summary"] == {
        "errors": 4,
        "warnings": 2,
        "infos": 0,
        "files": 3,
        "objects": 4,
        "policyFiles": 0,
        "exitCode": 1,
    }


def test_entries_round_trip_to_diagnostics(sample: ReportInput, render: Render) -> None:
    document = _parse(render(JsonReporter(ReporterOptions(verbose=True)), sample))
    entries = document["diagnostics"]
    for entry in entries:  # nulls are kept; a cluster-scoped object has no namespace
        cluster_scoped = entry["kind"] == "ClusterTrainingRuntime"
        assert set(entry) == set(FIELDS) - ({"namespace"} if cluster_scoped else set()) | {"rule"}
    rebuilt = tuple(
        Diagnostic(
            **{
                **{name: entry.get(key) for key, name in FIELDS.items()},
                "severity": Severity(entry["severity"]),
            }
        )
        for entry in entries
    )
    assert rebuilt == sample.diagnostics
    assert [entry["rule"] for entry in entries] == [
        rule_for(d.code).summary for d in sample.diagnostics
    ]


def test_family_codes_get_their_family_summary(sample: ReportInput, render: Render) -> None:
    entries = _parse(render(JsonReporter(ReporterOptions()), sample))["diagnostics"]
    rules = {entry["code"]: entry["rule"] for entry in entries}
    assert rules["policy.gpu-limit"] == "an organisation policy is violated"
    assert rules["cel.trainjob.deadline-min"].startswith("a CRD validation rule")


def test_unicode_and_special_characters_survive_as_ascii(
    sample: ReportInput, render: Render
) -> None:
    output = render(JsonReporter(ReporterOptions()), sample)
    assert output.isascii()
    messages = [entry["message"] for entry in _parse(output)["diagnostics"]]
    assert messages == [d.message for d in sample.diagnostics if d.severity is not Severity.INFO]
    assert any("— ünï ✓\nline 2" in message for message in messages)


def test_keys_are_sorted_and_indented(sample: ReportInput, render: Render) -> None:
    output = render(JsonReporter(ReporterOptions()), sample)
    assert output == json.dumps(json.loads(output), indent=2, sort_keys=True) + "\n"


def test_clean_run_exits_zero(clean: ReportInput, render: Render) -> None:
    document = _parse(render(JsonReporter(ReporterOptions()), clean))
    assert document == {
        "diagnostics": [],
        "summary": {
            "errors": 0,
            "warnings": 0,
            "infos": 0,
            "files": 3,
            "objects": 4,
            "policyFiles": 0,
            "exitCode": 0,
        },
    }


def test_warnings_alone_exit_zero(sample: ReportInput, render: Render) -> None:
    warnings = tuple(d for d in sample.diagnostics if d.severity is Severity.WARNING)
    report = dataclasses.replace(sample, diagnostics=warnings)
    assert _parse(render(JsonReporter(ReporterOptions()), report))["summary"]["exitCode"] == 0


def test_undeclared_code_is_a_bug_and_writes_nothing(sample: ReportInput) -> None:
    typo = dataclasses.replace(sample.diagnostics[0], code="schema.typo")
    stream = io.StringIO()
    with pytest.raises(CompilerBug):
        JsonReporter(ReporterOptions()).write(
            dataclasses.replace(sample, diagnostics=(typo,)), stream
        )
    assert stream.getvalue() == ""


def test_only_findings_about_cluster_scoped_objects_have_no_namespace(render: Render) -> None:
    def about(kind: str | None, namespace: str | None) -> Diagnostic:
        name = None if kind is None else "x"
        located = finding("schema.type", "m", file="a.yaml", line=1, column=1)
        return dataclasses.replace(located, kind=kind, namespace=namespace, name=name)

    findings = (
        about("ClusterTrainingRuntime", None),
        about("ClusterRole", None),
        about("TrainJob", "team-a"),
        about("TrainJob", None),  # not defaulted yet: unset, not absent
        about(None, None),  # a file, no object
    )
    report = ReportInput(
        diagnostics=findings, sources={}, files_checked=1, objects_checked=2, version="1"
    )
    entries = _parse(render(JsonReporter(ReporterOptions()), report))["diagnostics"]
    assert [entry.get("namespace", "absent") for entry in entries] == [
        "absent",
        "absent",
        "team-a",
        None,
        None,
    ]
