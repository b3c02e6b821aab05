"""The GitHub format: workflow commands that become annotations on a pull request's diff.

Each finding is one ``::error file=…,line=…,col=…,title=…::message`` line; the runner
turns it into an annotation on that line. Nothing else is written, because any other
line in the step's output would be shown as log noise next to the annotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO, assert_never

from trainc.diagnostics import Diagnostic, Severity
from trainc.report.base import ReporterOptions, ReportInput, describe, from_top, shown

# The escaping of @actions/core (toolkit command.ts): the message ("data") may not hold
# a line break or a bare '%'; property values additionally may not hold ':' or ','.
_DATA_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
_PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})


def _command_name(severity: Severity) -> str:
    match severity:
        case Severity.ERROR:
            return "error"
        case Severity.WARNING:
            return "warning"
        case Severity.INFO:
            return "notice"
        case _:
            assert_never(severity)


def _properties(diagnostic: Diagnostic) -> list[tuple[str, str]]:
    """file, line and col as far as known (a line means nothing without its file), and title."""
    properties: list[tuple[str, str]] = []
    if diagnostic.file is not None:
        properties.append(("file", diagnostic.file))
        if diagnostic.line is not None:
            properties.append(("line", str(diagnostic.line)))
            if diagnostic.column is not None:
                properties.append(("col", str(diagnostic.column)))
    properties.append(("title", diagnostic.code))
    return properties


def _command(diagnostic: Diagnostic) -> str:
    properties = ",".join(
        f"{key}={value.translate(_PROPERTY_ESCAPES)}" for key, value in _properties(diagnostic)
    )
    message = describe(diagnostic).translate(_DATA_ESCAPES)
    return f"::{_command_name(diagnostic.severity)} {properties}::{message}"


@dataclass(frozen=True, slots=True)
class GithubReporter:
    """Writes one workflow command per finding (INFO as ``::notice``) and no summary.

    The message carries the notes and hint on escaped line breaks, which the annotation
    shows as separate lines. Paths are from the top of the git checkout, as the runner
    expects (:func:`~trainc.report.base.from_top`).
    """

    options: ReporterOptions

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Write the workflow commands, one per line."""
        for diagnostic in from_top(report, shown(report, self.options)):
            stream.write(_command(diagnostic) + "\n")
