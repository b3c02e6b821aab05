"""finding_in: a setting's finding on its line when the file was parsed, else on the file."""

from __future__ import annotations

from trainc.config.limits import InputLimits
from trainc.diagnostics import Severity
from trainc.load.documents import finding_in
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

TEXT = "rules:\n  pod.env: 'off'\nsweeper:\n  resources: {cpu: x}\n"


def test_a_parsed_document_places_the_finding_at_the_path() -> None:
    (document,) = parse_documents(SourceFile("trainc.yaml", TEXT), InputLimits()).documents
    found = finding_in(
        document, "ignored.yaml", ("sweeper", "resources", "cpu"), "config.invalid", "bad", hint="h"
    )
    assert (found.file, found.line, found.column) == ("trainc.yaml", 4, 15)
    assert (found.field_path, found.hint, found.severity) == (
        "sweeper.resources.cpu",
        "h",
        Severity.ERROR,
    )


def test_without_a_document_the_finding_names_the_file_and_the_section() -> None:
    found = finding_in(
        None,
        "trainc.yaml",
        ("sweeper", "resources", "cpu"),
        "config.invalid",
        "bad",
        section=("sweeper", "resources"),
    )
    assert (found.file, found.line, found.column) == ("trainc.yaml", None, None)
    assert (found.field_path, found.message, found.hint) == ("sweeper.resources", "bad", None)
    assert found.severity == Severity.ERROR
    bare = finding_in(None, None, ("rules", "x"), "config.invalid", "bad")
    assert (bare.file, bare.field_path) == (None, None)
