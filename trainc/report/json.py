"""The JSON format: one object with every finding and a summary, for scripts.

Field names are the :class:`~trainc.diagnostics.Diagnostic` attributes in lowerCamelCase,
the Kubernetes convention (``fieldPath``, ``exitCode``); absent values stay as ``null``
rather than vanishing, so consumers never need to guess whether a key exists. The one
exception is ``namespace`` in a finding about a cluster-scoped object (a
ClusterTrainingRuntime): such an object has no namespace, as its manifest has none, and
a ``null`` there would read as one left unset.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TextIO

from trainc.diagnostics import Diagnostic, exit_code
from trainc.model.json import JsonObject
from trainc.model.kinds import CLUSTER_SCOPED_KINDS
from trainc.report.base import (
    ReporterOptions,
    ReportInput,
    Summary,
    from_top,
    rule_of,
    shown,
    write_json,
)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _entry(diagnostic: Diagnostic) -> JsonObject:
    entry: JsonObject = {_camel(key): value for key, value in asdict(diagnostic).items()}
    entry["severity"] = diagnostic.severity.value
    entry["rule"] = rule_of(diagnostic.code).summary
    if diagnostic.kind in CLUSTER_SCOPED_KINDS:
        del entry["namespace"]
    return entry


def _document(report: ReportInput, diagnostics: tuple[Diagnostic, ...]) -> JsonObject:
    summary = Summary.of(diagnostics)
    return {
        "diagnostics": [_entry(diagnostic) for diagnostic in diagnostics],
        "summary": {
            "errors": summary.errors,
            "warnings": summary.warnings,
            "infos": summary.infos,
            "files": report.files_checked,
            "objects": report.objects_checked,
            "policyFiles": report.policy_files_checked,
            "exitCode": exit_code(diagnostics),
        },
    }


@dataclass(frozen=True, slots=True)
class JsonReporter:
    """Writes exactly one JSON object and a newline, nothing else, so ``jq`` can read it.

    ``file`` is a path from the top of the git checkout
    (:func:`~trainc.report.base.from_top`), as review bots and scripts that annotate a
    pull request expect.
    """

    options: ReporterOptions

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Write the report as one indented JSON object."""
        write_json(_document(report, from_top(report, shown(report, self.options))), stream)
