from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from typing import Any

import pytest

from trainc.diagnostics import Diagnostic, Severity
from trainc.errors import CompilerBug, UsageError
from trainc.report.base import (
    REPORTERS,
    Reporter,
    ReporterOptions,
    ReportInput,
    Summary,
    describe,
    from_top,
    headline,
    location,
    make_reporter,
    notes,
    object_label,
    rule_of,
    shown,
    top_path,
    use_color,
)

FORMATS = ("text", "json", "github", "junit", "sarif")

Render = Callable[[Reporter, ReportInput], str]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _diagnostic(**changes: Any) -> Diagnostic:
    base = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="wrong type",
        file="a.yaml",
        line=3,
        column=7,
    )
    return dataclasses.replace(base, **changes)


def test_report_input_is_frozen(sample: ReportInput) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample.files_checked = 0  # type: ignore[misc]  # the point of the test


@pytest.mark.parametrize(
    ("tty", "environ", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # no-color.org: only a non-empty value counts
        (False, {"FORCE_COLOR": "1"}, True),
        (False, {"FORCE_COLOR": ""}, False),
        (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    ],
)
def test_use_color(tty: bool, environ: dict[str, str], expected: bool) -> None:
    stream = _Terminal() if tty else io.StringIO()
    assert use_color(stream, environ) is expected


@pytest.mark.parametrize("choice", [True, False])
def test_explicit_colour_choice_wins_over_environment(choice: bool) -> None:
    options = ReporterOptions(color=choice)
    assert options.color_for(_Terminal(), {"NO_COLOR": "1"}) is choice
    assert options.color_for(io.StringIO(), {"FORCE_COLOR": "1"}) is choice


def test_info_is_shown_only_when_verbose(sample: ReportInput) -> None:
    quiet = shown(sample, ReporterOptions())
    verbose = shown(sample, ReporterOptions(verbose=True))
    assert verbose == sample.diagnostics
    assert quiet == tuple(d for d in sample.diagnostics if d.severity is not Severity.INFO)
    assert len(quiet) == len(verbose) - 1


def test_summary_counts_by_severity(sample: ReportInput) -> None:
    assert Summary.of(sample.diagnostics) == Summary(errors=4, warnings=2, infos=1)
    assert Summary.of(()) == Summary(0, 0, 0)


def test_rule_of_resolves_families_and_rejects_unknown_codes() -> None:
    assert rule_of("schema.type").summary == "the value has the wrong type"
    assert rule_of("policy.gpu-limit").summary == "an organisation policy is violated"
    with pytest.raises(CompilerBug, match=r"schema\.typo"):
        rule_of("schema.typo")


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, "a.yaml:3:7"),
        ({"column": None}, "a.yaml:3"),
        ({"line": None, "column": None}, "a.yaml"),
        ({"file": None, "line": None, "column": None}, None),
    ],
)
def test_location(changes: dict[str, Any], expected: str | None) -> None:
    assert location(_diagnostic(**changes)) == expected


def test_headline_with_and_without_location() -> None:
    assert headline(_diagnostic()) == "a.yaml:3:7: error[schema.type]: wrong type"
    assert headline(_diagnostic(file=None)) == "error[schema.type]: wrong type"
    assert headline(_diagnostic(), style=str.upper) == "a.yaml:3:7: ERROR[SCHEMA.TYPE]: wrong type"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"kind": "TrainJob", "namespace": "team-a", "name": "llm"}, "TrainJob team-a/llm"),
        ({"kind": "ClusterTrainingRuntime", "name": "torch"}, "ClusterTrainingRuntime torch"),
        ({"kind": "TrainJob"}, "TrainJob"),
        ({"name": "llm", "namespace": "ns"}, "ns/llm"),
        ({}, None),
    ],
)
def test_object_label(changes: dict[str, Any], expected: str | None) -> None:
    assert object_label(_diagnostic(**changes)) == expected


def test_notes_put_object_and_field_before_the_hint() -> None:
    full = _diagnostic(kind="TrainJob", name="llm", field_path="spec.x", hint="use y")
    assert notes(full) == (("note", "TrainJob llm, field: spec.x"), ("help", "use y"))
    assert notes(_diagnostic(field_path="spec.x")) == (("note", "field: spec.x"),)
    assert notes(_diagnostic()) == ()
    assert describe(full) == "wrong type\nnote: TrainJob llm, field: spec.x\nhelp: use y"


def test_registry_lists_every_format_in_documented_order() -> None:
    assert tuple(REPORTERS) == FORMATS


@pytest.mark.parametrize("name", FORMATS)
def test_make_reporter_builds_the_format_module_reporter(name: str) -> None:
    reporter = make_reporter(name, ReporterOptions())
    assert isinstance(reporter, Reporter)
    assert type(reporter).__module__ == f"trainc.report.{name}"


def test_unknown_format_is_a_usage_error_naming_the_valid_ones() -> None:
    with pytest.raises(UsageError, match="'xml'; valid formats: text, json, github, junit, sarif"):
        make_reporter("xml", ReporterOptions())


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_hides_info_unless_verbose(
    name: str, sample: ReportInput, render: Render
) -> None:
    quiet = render(make_reporter(name, ReporterOptions(color=False)), sample)
    verbose = render(make_reporter(name, ReporterOptions(verbose=True, color=False)), sample)
    assert "load.ignored-document" not in quiet
    assert "load.ignored-document" in verbose


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_is_deterministic(name: str, sample: ReportInput, render: Render) -> None:
    options = ReporterOptions(verbose=True, color=False)
    first = render(make_reporter(name, options), sample)
    again = dataclasses.replace(sample, sources=dict(reversed(list(sample.sources.items()))))
    assert render(make_reporter(name, options), again) == first
    assert render(make_reporter(name, options), sample) == first


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_writes_only_to_its_stream(
    name: str, sample: ReportInput, render: Render, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render(make_reporter(name, ReporterOptions(verbose=True)), sample)
    assert capsys.readouterr() == ("", "")


def test_paths_from_the_top_keep_the_standard_input_and_repository_findings(
    sample: ReportInput,
) -> None:
    report = dataclasses.replace(sample, root_from_top="ml")
    stdin = dataclasses.replace(sample.diagnostics[-1], file="<stdin>")
    moved = from_top(report, (*sample.diagnostics, stdin))
    assert [d.file for d in moved] == [
        None if d.file is None else f"ml/{d.file}" for d in sample.diagnostics
    ] + ["<stdin>"]
    assert top_path(sample, "jobs/a.yaml") == "jobs/a.yaml"
