"""The SARIF 2.1.0 format: findings for GitHub code scanning and other SARIF viewers.

Shaped for GitHub's ingestion rules, which are stricter than the standard: every result
has a physical location with a repo-relative URI, and fingerprints identify a finding by
what it is about rather than where it sits, so an edit that moves a line does not close
an alert and open a new one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO, assert_never
from urllib.parse import quote

from trainc.config.file import CONFIG_FILE_NAME
from trainc.diagnostics import Diagnostic, Severity
from trainc.model.json import JsonObject, JsonValue
from trainc.report.base import (
    ReporterOptions,
    ReportInput,
    describe,
    from_top,
    rule_of,
    shown,
    top_path,
    write_json,
)

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: Versioned so a future change of what identifies a finding can use a new key.
_FINGERPRINT_KEY = "trainc/v1"


def _level(severity: Severity) -> str:
    match severity:
        case Severity.ERROR:
            return "error"
        case Severity.WARNING:
            return "warning"
        case Severity.INFO:
            return "note"
        case _:
            assert_never(severity)


def _rule(code: str) -> JsonObject:
    rule = rule_of(code)
    return {
        "id": code,
        "shortDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": _level(rule.severity)},
    }


def _location(diagnostic: Diagnostic, config_file: str) -> JsonObject:
    """Where GitHub shows the finding.

    GitHub rejects a whole upload if one result lacks a location, so repository-wide
    findings point at the repository config (``config_file``), the file that governs the
    whole run. Paths are from the top of the checkout, which ``%SRCROOT%`` stands for
    (GitHub resolves it to the checkout it scanned), and percent-encoded, as the schema
    wants a URI reference; a file name that is not UTF-8 (decoded with lone surrogates)
    is encoded as its original bytes.
    """
    artifact: JsonObject = {
        "uri": quote(diagnostic.file or config_file, safe="/", errors="surrogateescape"),
        "uriBaseId": "%SRCROOT%",
    }
    physical: JsonObject = {"artifactLocation": artifact}
    if diagnostic.file is not None and diagnostic.line is not None:
        region: JsonObject = {"startLine": diagnostic.line}
        if diagnostic.column is not None:
            region["startColumn"] = diagnostic.column
        physical["region"] = region
    return {"physicalLocation": physical}


def _fingerprints(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """A stable identity per finding: rule, file, object and field, never the position.

    Findings that share all of these (two syntax errors in one file) are told apart by
    their order among themselves, which an unrelated edit does not change.
    """
    occurrences: Counter[str] = Counter()
    fingerprints: list[str] = []
    for d in diagnostics:
        identity = "\0".join(
            part or "" for part in (d.code, d.file, d.kind, d.namespace, d.name, d.field_path)
        )
        occurrences[identity] += 1
        data = f"{identity}\0{occurrences[identity]}".encode("utf-8", "surrogatepass")
        fingerprints.append(hashlib.sha256(data).hexdigest())
    return fingerprints


def _document(report: ReportInput, diagnostics: Sequence[Diagnostic]) -> JsonObject:
    """One run whose rules are the codes that occur, sorted, and the results in input order."""
    config_file = top_path(report, CONFIG_FILE_NAME)
    codes = sorted({d.code for d in diagnostics})
    rule_index = {code: index for index, code in enumerate(codes)}
    results: list[JsonValue] = [
        {
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": _level(d.severity),
            "message": {"text": describe(d)},
            "locations": [_location(d, config_file)],
            "partialFingerprints": {_FINGERPRINT_KEY: fingerprint},
        }
        for d, fingerprint in zip(diagnostics, _fingerprints(diagnostics), strict=True)
    ]
    rules: list[JsonValue] = [_rule(code) for code in codes]
    driver: JsonObject = {"name": report.tool, "version": report.version, "rules": rules}
    run: JsonObject = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": _SCHEMA, "version": "2.1.0", "runs": [run]}


@dataclass(frozen=True, slots=True)
class SarifReporter:
    """Writes one SARIF log with one run.

    ``tool.driver`` has no ``informationUri``: SARIF requires an absolute URI there, and
    trainc has no published home page to name.
    """

    options: ReporterOptions

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Write the SARIF log as indented JSON."""
        write_json(_document(report, from_top(report, shown(report, self.options))), stream)
