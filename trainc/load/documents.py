"""Parsed YAML documents with the position of every node, and the trainer objects in them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, replace

from trainc.diagnostics import Diagnostic, Severity, finding
from trainc.load.source import Position, SourceFile
from trainc.model.json import FieldPath, JsonObject, JsonValue, format_path, get_path
from trainc.records import dataclass


@dataclass(frozen=True, slots=True, eq=False)
class Document:
    """One YAML document of a file, as plain data plus node positions.

    ``positions`` maps a path to where the node starts in the parsed text (0-based line
    and column as the parser reports them); for a mapping entry that is its key, so
    errors about a field point at the field's name. ``refused`` holds the paths of the
    scalars kubectl cannot decode (an infinity, NaN, a mistyped tag): the loader reported
    each, and their text stands in for them, which no later check should judge.
    """

    source: SourceFile
    index: int
    data: JsonValue
    positions: Mapping[FieldPath, tuple[int, int]]
    refused: frozenset[FieldPath] = frozenset()

    def locate(self, path: FieldPath) -> Position:
        """Where the node at ``path`` starts, or its nearest ancestor that exists."""
        for end in range(len(path), -1, -1):
            found = self.positions.get(path[:end])
            if found is not None:
                line, column = found
                return Position(self.source.user_line(line + 1), column + 1)
        return Position(1, 1)

    def locate_in_value(self, path: FieldPath, line: int, column: int) -> Position:
        """Where character ``column`` of line ``line`` (both 1-based) of the string at
        ``path`` is written: inside a quoted or block scalar as much as a plain one. The
        field's own position when that cannot be told."""
        value = get_path(self.data, path)
        key = self.positions.get(path)
        # A released text (an outline's file, :meth:`SourceFile.released_copy`) has
        # nothing to read the value in: the field's own position stands.
        if isinstance(value, str) and key is not None and self.source.released is None:
            # Only a finding inside a value reads it again: a clean run (the pre-commit
            # hook) never needs the module (startup time, tests/cli/test_startup.py).
            from trainc.load.scalar_text import position_in_value  # noqa: PLC0415

            found = position_in_value(self.source, key, value, line, column)
            if found is not None:
                return found
        return self.locate(path)

    def finding(
        self,
        path: FieldPath,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        hint: str | None = None,
        position: Position | None = None,
    ) -> Diagnostic:
        """A diagnostic about ``path`` in this document, located at ``position`` when
        given (a spot inside its value), else where ``path`` starts."""
        position = position or self.locate(path)
        return finding(
            code,
            message,
            file=self.source.path,
            line=position.line,
            column=position.column,
            field_path=format_path(path) or None,
            hint=hint,
            severity=severity,
        )


def finding_in(
    document: Document | None,
    file: str | None,
    path: FieldPath,
    code: str,
    message: str,
    *,
    hint: str | None = None,
    section: FieldPath = (),
) -> Diagnostic:
    """A finding at ``path`` of ``document``, or about ``file`` (at ``section`` of it) when
    there is no parsed document to place it in: trainc.yaml's settings are checked even
    when they did not come from a parsed file, and the finding must still name the file."""
    if document is not None:
        return document.finding(path, code, message, hint=hint)
    return finding(code, message, file=file, field_path=format_path(section) or None, hint=hint)


@dataclass(frozen=True, slots=True)
class Parsed:
    """The non-empty documents of a file, in stream order, and what went wrong.

    ``findings`` holds, by document index, the part of ``diagnostics`` found inside that
    document's content (duplicate or non-string keys, mistyped tagged scalars), so that a
    caller can drop them for documents it turns out not to care about.
    """

    documents: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]
    findings: Mapping[int, tuple[Diagnostic, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False)
class LoadedObject:
    """A trainer.kubeflow.org object found in a document, or an object of a Trainer kind
    under another apiVersion (``api_version`` is empty when the document has none), which
    validation reports and judges no further."""

    document: Document
    api_version: str
    kind: str
    name: str
    namespace: str | None

    @property
    def data(self) -> JsonObject:
        """The object as loaded (before defaults)."""
        data = self.document.data
        return data if isinstance(data, dict) else {}

    @property
    def path(self) -> str:
        """Repo-relative path of the file holding the object."""
        return self.document.source.path

    def label(self, key: str) -> str | None:
        """Value of a metadata label, if set to a string."""
        value = get_path(self.data, ("metadata", "labels", key))
        return value if isinstance(value, str) else None

    def finding(
        self,
        path: FieldPath,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        hint: str | None = None,
    ) -> Diagnostic:
        """A diagnostic about this object, located at ``path`` inside it."""
        located = self.document.finding(path, code, message, severity=severity, hint=hint)
        return replace(located, kind=self.kind, namespace=self.namespace, name=self.name)
