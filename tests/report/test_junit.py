from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

from trainc.diagnostics import Diagnostic, Severity
from trainc.report.base import Reporter, ReporterOptions, ReportInput
from trainc.report.junit import JunitReporter

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

Render = Callable[[Reporter, ReportInput], str]


def _junit(*, verbose: bool = False) -> JunitReporter:
    return JunitReporter(ReporterOptions(verbose=verbose))


def _parse(output: str) -> ET.Element:
    assert output.startswith(DECLARATION)
    assert output.isascii()  # other characters are references: any stream encoding works
    return ET.fromstring(output.encode("utf-8"))  # noqa: S314 - our own output


def _suite(root: ET.Element, name: str) -> ET.Element:
    suite = root.find(f"testsuite[@name='{name}']")
    assert suite is not None, name
    return suite


def test_junit_reporter_satisfies_the_protocol() -> None:
    reporter: Reporter = JunitReporter(ReporterOptions())
    assert isinstance(reporter, Reporter)


def test_suites_per_file_with_consistent_counts(sample: ReportInput, render: Render) -> None:
    root = _parse(render(_junit(), sample))
    assert root.tag == "testsuites"
    assert root.attrib == {"name": "trainc", "tests": "4", "failures": "3", "errors": "0"}
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "(repository)",
        "jobs/tpl.yaml.j2",
        "jobs/train.yaml",
        "runtimes/torch.yaml",
    ]
    for suite in suites:
        cases = suite.findall("testcase")
        assert suite.get("tests") == str(len(cases))
        assert suite.get("failures") == str(sum(c.find("failure") is not None for c in cases))
        assert all(c.get("classname") == suite.get("name") for c in cases)
    assert sum(int(s.get("tests", "")) for s in suites) == 4


def test_errors_fail_one_case_per_object(sample: ReportInput, render: Render) -> None:
    root = _parse(render(_junit(), sample))
    (case,) = _suite(root, "jobs/train.yaml").findall("testcase")
    assert case.get("name") == "TrainJob team-a/llm"
    (failure,) = case.findall("failure")  # strict schemas allow only one
    assert failure.get("type") == "schema.unknown-field"
    assert failure.get("message") == 'unknown field "nmae" (+1 more)'
    assert failure.text == (
        'jobs/train.yaml:8:5: error[schema.unknown-field]: unknown field "nmae"\n'
        "  note: TrainJob team-a/llm, field: spec.trainer.nmae\n"
        '  help: did you mean "numNodes"?\n'
        'jobs/train.yaml:9:21: error[schema.enum]: "run" is not one of "python", "torchrun"\n'
        "  note: TrainJob team-a/llm, field: spec.trainer.command[1]"
    )


def test_warnings_are_output_not_failures(sample: ReportInput, render: Render) -> None:
    root = _parse(render(_junit(), sample))
    suite = _suite(root, "runtimes/torch.yaml")
    assert suite.get("failures") == "0"
    (case,) = suite.findall("testcase")
    assert case.find("failure") is None
    assert "warning[xobj.ttl-short]" in (case.findtext("system-out") or "")


def test_errors_and_warnings_of_one_object_share_its_case(
    sample: ReportInput, render: Render
) -> None:
    (case,) = _suite(_parse(render(_junit(), sample)), "jobs/tpl.yaml.j2").findall("testcase")
    assert case.get("name") == "TrainJob sweep"
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "activeDeadlineSeconds must be ≥ 1"
    assert case.findtext("system-out") == (
        'jobs/tpl.yaml.j2:5:9: warning[policy.gpu-limit]: GPU 100%: "a,b" <8> & — ünï ✓\n'
        "line 2\n  note: TrainJob sweep"
    )


def test_repository_findings_have_their_own_suite(sample: ReportInput, render: Render) -> None:
    (case,) = _suite(_parse(render(_junit(), sample)), "(repository)").findall("testcase")
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == "config.invalid"


def test_info_is_output_only_when_verbose(sample: ReportInput, render: Render) -> None:
    quiet = _suite(_parse(render(_junit(), sample)), "jobs/train.yaml")
    verbose = _suite(_parse(render(_junit(verbose=True), sample)), "jobs/train.yaml")
    assert quiet.get("tests") == "1"
    assert verbose.get("tests") == "2"
    file_case = verbose.find("testcase[@name='jobs/train.yaml']")
    assert file_case is not None
    assert file_case.find("failure") is None
    assert "info[load.ignored-document]" in (file_case.findtext("system-out") or "")


def test_files_without_findings_pass(clean: ReportInput, render: Render) -> None:
    root = _parse(render(_junit(), clean))
    assert root.attrib == {"name": "trainc", "tests": "2", "failures": "0", "errors": "0"}
    for suite in root.findall("testsuite"):
        (case,) = suite.findall("testcase")
        assert case.get("name") == suite.get("name")
        assert list(case) == []


def test_characters_xml_cannot_carry_are_replaced(render: Render) -> None:
    diagnostic = Diagnostic(
        code="schema.type",
        severity=Severity.ERROR,
        message="bad \x00\x1b[31m \udc80 <&>\"'",
        file="a.yaml",
        line=1,
        column=1,
        name="n\x07",
    )
    report = ReportInput(
        diagnostics=(diagnostic,), sources={}, files_checked=1, objects_checked=1, version="0"
    )
    case = _parse(render(_junit(), report)).find("testsuite/testcase")
    assert case is not None
    assert case.get("name") == "n\ufffd"
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "bad \ufffd\ufffd[31m \ufffd <&>\"'"
