"""The JUnit XML format: findings as test results for CI dashboards (GitLab, Jenkins).

One ``<testsuite>`` per file, one ``<testcase>`` per object with findings (or for the
file itself, for findings outside any object), and one passing ``<testcase>`` for each
file read without findings. Errors fail their test case; warnings and infos go to its
``<system-out>`` and never fail anything, just as they do not fail the run.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO, TypeAlias

from trainc.diagnostics import Diagnostic
from trainc.report.base import (
    ReporterOptions,
    ReportInput,
    from_top,
    headline,
    notes,
    object_label,
    shown,
    top_path,
)

#: Suite and case name for findings about the whole repository (no file).
_REPOSITORY = "(repository)"
#: Written by hand: ElementTree declares a locale-dependent encoding for text output.
#: The body is pure ASCII (other characters become references), which is valid UTF-8
#: whatever encoding the stream has.
_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
#: Characters XML 1.0 cannot carry even as references (controls, lone surrogates);
#: ElementTree would write them anyway and every parser would reject the file.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

#: Test case name → its findings, in order of first finding.
_Cases: TypeAlias = dict[str, list[Diagnostic]]


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _detail(diagnostic: Diagnostic) -> str:
    lines = [headline(diagnostic), *(f"  {label}: {text}" for label, text in notes(diagnostic))]
    return "\n".join(lines)


def _suites(report: ReportInput, diagnostics: Iterable[Diagnostic]) -> list[tuple[str, _Cases]]:
    """(suite name, cases) with the repository first, then files by path from the top
    of the git checkout (:func:`~trainc.report.base.top_path`).

    Cases keep the order of their first finding; a file without findings gets one
    passing case named after itself.
    """
    by_file: dict[str | None, _Cases] = {top_path(report, path): {} for path in report.sources}
    for diagnostic in diagnostics:
        case = object_label(diagnostic) or diagnostic.file or _REPOSITORY
        by_file.setdefault(diagnostic.file, {}).setdefault(case, []).append(diagnostic)
    suites: list[tuple[str, _Cases]] = []
    for path, cases in sorted(by_file.items(), key=lambda item: (item[0] is not None, item[0])):
        name = path or _REPOSITORY
        suites.append((name, cases or {name: []}))
    return suites


def _counts(name: str, cases: Iterable[list[Diagnostic]]) -> dict[str, str]:
    """The attributes both parsers read; ``errors`` (could not run) is always 0 here."""
    outcomes = [any(d.is_error for d in findings) for findings in cases]
    return {
        "name": _xml_safe(name),
        "tests": str(len(outcomes)),
        "failures": str(sum(outcomes)),
        "errors": "0",
    }


def _add_case(suite: ET.Element, classname: str, name: str, findings: list[Diagnostic]) -> None:
    """A test case: one ``<failure>`` for all its errors, as strict parsers allow only one."""
    attributes = {"classname": _xml_safe(classname), "name": _xml_safe(name)}
    case = ET.SubElement(suite, "testcase", attributes)
    errors = [d for d in findings if d.is_error]
    others = [d for d in findings if not d.is_error]
    if errors:
        first = errors[0]
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        summary = {"type": _xml_safe(first.code), "message": _xml_safe(first.message + more)}
        failure = ET.SubElement(case, "failure", summary)
        failure.text = _xml_safe("\n".join(_detail(d) for d in errors))
    if others:
        ET.SubElement(case, "system-out").text = _xml_safe("\n".join(_detail(d) for d in others))


def _tree(report: ReportInput, diagnostics: Iterable[Diagnostic]) -> ET.Element:
    suites = _suites(report, diagnostics)
    every_case = [findings for _, cases in suites for findings in cases.values()]
    root = ET.Element("testsuites", _counts(report.tool, every_case))
    for suite_name, cases in suites:
        suite = ET.SubElement(root, "testsuite", _counts(suite_name, cases.values()))
        for case_name, findings in cases.items():
            _add_case(suite, suite_name, case_name, findings)
    return root


@dataclass(frozen=True, slots=True)
class JunitReporter:
    """Writes one XML document: ``<testsuites>`` with totals, then a suite per file.

    There are no timings or timestamps, so the same findings always give the same bytes.
    """

    options: ReporterOptions

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Write the XML declaration and the indented document."""
        root = _tree(report, from_top(report, shown(report, self.options)))
        ET.indent(root)
        body = ET.tostring(root, encoding="us-ascii").decode("ascii")
        stream.write(_DECLARATION + body + "\n")
