"""What every output format shares: its input, options, colour choice, wording and registry.

The format modules are independent of one another (an import-linter contract), so
anything two of them need lives here, and a finding reads the same in every format.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Protocol, TextIO, TypeAlias, runtime_checkable

from trainc.diagnostics import Diagnostic, Rule, Severity, rule_for
from trainc.errors import CompilerBug, UsageError
from trainc.load.inputs import STDIN_NAME
from trainc.load.source import SourceFile
from trainc.model.json import JsonValue
from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportInput:
    """Everything a report may show.

    ``diagnostics`` come in canonical order (:func:`trainc.diagnostics.sort_key`) and
    reporters keep that order, so all formats list findings alike. ``sources`` maps each
    repo-relative path trainc read to its :class:`SourceFile`, for quoting lines; a path
    missing from it is reported without a quote. ``policy_files_checked`` counts the
    policy files the command was named (they are no input files). ``root_from_top`` is
    the repository root's path from the top of its git checkout (``ml`` for
    ``ml/trainc.yaml``), which the machine formats put before every path (:func:`from_top`).
    ``root`` is the repository root the paths are relative to: where a file whose text
    the run released (:meth:`SourceFile.quote`) is read again to quote it.
    """

    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    files_checked: int
    objects_checked: int
    policy_files_checked: int = 0
    version: str
    tool: str = "trainc"
    root_from_top: str = ""
    root: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReporterOptions:
    """Choices the command line passes to every format.

    ``color`` None means "decide from the stream" (:func:`use_color`); only the text
    format has colours, the machine formats ignore it. ``quiet`` (``-q``) leaves out what
    is said only to reassure: the text format's all-clear line. The machine formats
    always write their whole document, which is their product.
    """

    verbose: bool = False
    color: bool | None = None
    quiet: bool = False

    def color_for(self, stream: TextIO, environ: Mapping[str, str]) -> bool:
        """Whether to colour ``stream``: an explicit choice wins over the environment."""
        return use_color(stream, environ) if self.color is None else self.color


@runtime_checkable
class Reporter(Protocol):
    """One output format; writes a whole report to the stream it is given and nowhere else."""

    def write(self, report: ReportInput, stream: TextIO) -> None:
        """Render ``report`` onto ``stream``."""


ReporterFactory: TypeAlias = Callable[[ReporterOptions], Reporter]


def use_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Colour only on a terminal, unless the environment says otherwise.

    A non-empty ``NO_COLOR`` turns colour off (https://no-color.org) and wins over a
    non-empty ``FORCE_COLOR``, which turns it on even when output is piped (CI logs).
    """
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def shown(report: ReportInput, options: ReporterOptions) -> tuple[Diagnostic, ...]:
    """The findings a report lists: INFO ones only when verbose, in every format alike."""
    if options.verbose:
        return report.diagnostics
    return tuple(d for d in report.diagnostics if d.severity is not Severity.INFO)


def top_path(report: ReportInput, path: str) -> str:
    """``path`` (relative to the repository root) from the top of the git checkout.

    The machine formats are read by tools that place findings in the checkout (GitHub
    annotations and code scanning, CI dashboards, review bots), which know nothing of
    where trainc.yaml is; the standard input's name is no path and stays as it is.
    """
    if not report.root_from_top or path == STDIN_NAME:
        return path
    return f"{report.root_from_top}/{path}"


def from_top(report: ReportInput, diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """``diagnostics`` with their files named by :func:`top_path`."""
    return tuple(
        d if d.file is None else replace(d, file=top_path(report, d.file)) for d in diagnostics
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """How many findings of each severity a report lists (hidden INFO ones not counted)."""

    errors: int
    warnings: int
    infos: int

    @classmethod
    def of(cls, diagnostics: Iterable[Diagnostic]) -> Summary:
        """Count ``diagnostics`` by severity."""
        counts = Counter(d.severity for d in diagnostics)
        return cls(counts[Severity.ERROR], counts[Severity.WARNING], counts[Severity.INFO])


def rule_of(code: str) -> Rule:
    """The catalogue entry for ``code``; an undeclared code is a trainc bug, not bad input."""
    try:
        return rule_for(code)
    except KeyError as error:
        raise CompilerBug(f"diagnostic code {code!r} is not in the rule catalogue") from error


def location(diagnostic: Diagnostic) -> str | None:
    """``path:line:column``, as far as known; None for a repository-wide finding."""
    if diagnostic.file is None:
        return None
    parts = [diagnostic.file]
    if diagnostic.line is not None:
        parts.append(str(diagnostic.line))
        if diagnostic.column is not None:
            parts.append(str(diagnostic.column))
    return ":".join(parts)


def _unstyled(label: str) -> str:
    return label


def headline(diagnostic: Diagnostic, *, style: Callable[[str], str] = _unstyled) -> str:
    """``path:line:col: error[code]: message``, the compiler convention editors link to."""
    label = style(f"{diagnostic.severity}[{diagnostic.code}]")
    where = location(diagnostic)
    return f"{where}: {label}: {diagnostic.message}" if where else f"{label}: {diagnostic.message}"


def object_label(diagnostic: Diagnostic) -> str | None:
    """``TrainJob team-a/llm``: the object as kubectl names it, or None when unknown."""
    name = diagnostic.name
    if name is not None and diagnostic.namespace:
        name = f"{diagnostic.namespace}/{name}"
    label = " ".join(part for part in (diagnostic.kind, name) if part)
    return label or None


def notes(diagnostic: Diagnostic) -> tuple[tuple[str, str], ...]:
    """The (label, text) lines that follow a message: the object and field, then the hint.

    Notes come before help, as in rustc, so the actionable line closes the finding.
    """
    field = f"field: {diagnostic.field_path}" if diagnostic.field_path else None
    subject = ", ".join(part for part in (object_label(diagnostic), field) if part)
    lines: list[tuple[str, str]] = []
    if subject:
        lines.append(("note", subject))
    if diagnostic.hint:
        lines.append(("help", diagnostic.hint))
    return tuple(lines)


def describe(diagnostic: Diagnostic) -> str:
    """The message with its notes on following lines: the text of a machine-format finding."""
    lines = [diagnostic.message, *(f"{label}: {text}" for label, text in notes(diagnostic))]
    return "\n".join(lines)


def write_json(document: JsonValue, stream: TextIO) -> None:
    """Write one JSON document and a newline, byte-stable across runs and platforms.

    Keys are sorted; non-ASCII is escaped, so the bytes do not depend on the stream's
    encoding and a lone surrogate from an undecodable file name cannot break the write.
    """
    stream.write(json.dumps(document, indent=2, sort_keys=True) + "\n")


@dataclass(frozen=True, slots=True)
class _Deferred:
    """A factory that imports its format module only when that format is chosen.

    The format modules import this one, so a real import of them here would be a cycle,
    and import-linter would see every format reach every other through this module.
    Deferring also keeps XML and hashing out of a plain text run.
    """

    module: str
    attribute: str

    def __call__(self, options: ReporterOptions) -> Reporter:
        factory: ReporterFactory = getattr(importlib.import_module(self.module), self.attribute)
        return factory(options)


#: Format name → reporter factory, in the order the command line documents them.
REPORTERS: dict[str, ReporterFactory] = {
    "text": _Deferred("trainc.report.text", "TextReporter"),
    "json": _Deferred("trainc.report.json", "JsonReporter"),
    "github": _Deferred("trainc.report.github", "GithubReporter"),
    "junit": _Deferred("trainc.report.junit", "JunitReporter"),
    "sarif": _Deferred("trainc.report.sarif", "SarifReporter"),
}


def make_reporter(name: str, options: ReporterOptions) -> Reporter:
    """The reporter for format ``name``; an unknown name is a usage error listing the valid ones."""
    factory = REPORTERS.get(name)
    if factory is None:
        valid = ", ".join(REPORTERS)
        raise UsageError(f"unknown report format {name!r}; valid formats: {valid}")
    return factory(options)
