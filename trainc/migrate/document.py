"""Migrating one file: the old spellings of its objects rewritten, document by document.

A file is cut into documents where kubectl cuts it (every line that starts with ``---``);
only the documents with something to migrate are read by ruamel and written back, the
others keep their bytes. Each rewritten document is read again by trainc's own loader and
must hold exactly the data the edits give when applied to the loaded data (the same
:func:`~trainc.migrate.apply.apply_edits`, on plain data): what ruamel would write
differently (a value it would quote or type otherwise under YAML 1.1) is not written.

What is not rewritten is kept with its finding and the reason: a migration that needs a
person (``Migration.manual``), a conflict with what the object already holds, a Jinja
template (its YAML exists only once rendered) or a JSON file (no round-trip writer keeps
its layout).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.error import YAMLError

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document, LoadedObject
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.migrate import roundtrip
from trainc.migrate.apply import Conflict, PlainKit, apply_edits
from trainc.model.json import FieldPath, JsonValue, copy_json, get_path
from trainc.schema.migrations import Migration, check_migrations
from trainc.schema.rewrites import Edit

_SEPARATOR = re.compile(r"^---")
#: A line as kubectl and the YAML parsers count them: up to and with its ``\n``.
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_TEMPLATE = "a Jinja template is YAML only once rendered: edit the template by hand"
_JSON = "JSON files are not rewritten (no writer keeps their layout): edit the file by hand"


@dataclass(frozen=True, slots=True)
class LeftAsIs:
    """A finding ``trainc migrate`` did not act on, and why."""

    diagnostic: Diagnostic
    reason: str


@dataclass(frozen=True, slots=True)
class Rewritten:
    """An object whose old spellings were rewritten, and the migrations that did it."""

    obj: LoadedObject
    migrations: tuple[Migration, ...]


@dataclass(frozen=True, slots=True)
class FileMigration:
    """One file before and after: ``after == before`` when nothing was rewritten."""

    path: str
    before: str
    after: str
    rewritten: tuple[Rewritten, ...]
    left: tuple[LeftAsIs, ...]

    @property
    def changed(self) -> bool:
        """Whether the file's text would change."""
        return self.after != self.before


@dataclass(frozen=True, slots=True)
class _Piece:
    """A document as kubectl cuts the file: its ``---`` line (if any) and its text."""

    separator: str
    body: str
    line: int  # 0-based line of the body's first line in the file


#: The objects of one piece with migrations to apply, and those migrations.
_Work = list[tuple[LoadedObject, tuple[Migration, ...]]]


def migrate_source(
    source: SourceFile,
    objects: Sequence[LoadedObject],
    *,
    manager: str,
    limits: InputLimits,
    held: Mapping[LoadedObject, str] | None = None,
) -> FileMigration:
    """The migrated text of ``source``, whose trainer objects are ``objects``.

    ``held`` are objects to leave as they are, each with the reason.
    """
    held = held or {}
    rewritten: list[Rewritten] = []
    left: list[LeftAsIs] = []
    pieces = _split(source.text)
    work: dict[int, _Work] = {}
    for obj in objects:
        migrations = check_migrations(obj, manager=manager).migrations
        left += [LeftAsIs(m.diagnostic, m.manual) for m in migrations if m.manual is not None]
        automatic = tuple(m for m in migrations if m.manual is None)
        if not automatic:
            continue
        reason = _JSON if source.path.endswith(".json") else held.get(obj)
        reason = _TEMPLATE if source.original is not None else reason
        if reason is not None:
            left += [LeftAsIs(m.diagnostic, reason) for m in automatic]
            continue
        work.setdefault(_piece_of(pieces, obj), []).append((obj, automatic))
    bodies = [piece.body for piece in pieces]
    for index, piece_work in sorted(work.items()):
        new_body, done, refused = _migrate_piece(source.path, pieces[index], piece_work, limits)
        bodies[index] = new_body
        rewritten += done
        left += refused
    after = "".join(piece.separator + body for piece, body in zip(pieces, bodies, strict=True))
    return FileMigration(source.path, source.text, after, tuple(rewritten), tuple(left))


def _split(text: str) -> list[_Piece]:
    """The file's documents, cut at each line that starts with ``---`` as kubectl cuts."""
    pieces: list[_Piece] = []
    separator, start = "", 0
    body: list[str] = []
    for number, line in enumerate(_LINE.findall(text)):
        if _SEPARATOR.match(line):
            pieces.append(_Piece(separator, "".join(body), start))
            separator, body, start = line, [], number + 1
        else:
            body.append(line)
    pieces.append(_Piece(separator, "".join(body), start))
    return pieces


def _piece_of(pieces: Sequence[_Piece], obj: LoadedObject) -> int:
    line = _root(obj.document)[0]
    return max(index for index, piece in enumerate(pieces) if piece.line <= line)


def _root(document: Document) -> tuple[int, int]:
    return document.positions.get((), (0, 0))


def _migrate_piece(
    path: str, piece: _Piece, work: _Work, limits: InputLimits
) -> tuple[str, list[Rewritten], list[LeftAsIs]]:
    """The piece's new body, the findings it fixes, and those it leaves (with the reason)."""
    every = [m for _, migrations in work for m in migrations]

    def refuse(reason: str) -> tuple[str, list[Rewritten], list[LeftAsIs]]:
        return piece.body, [], [LeftAsIs(m.diagnostic, reason) for m in every]

    crlf = "\r\n" in piece.body
    body = piece.body.replace("\r\n", "\n") if crlf else piece.body
    original = _read_one(path, body, limits)
    if original is None:
        return refuse("the document does not read as one YAML document on its own")
    expected = copy_json(original.data)
    accepted: list[tuple[FieldPath, tuple[Edit, ...], Rewritten]] = []
    left: list[LeftAsIs] = []
    for obj, migrations in work:
        prefix = _prefix(original, obj, piece.line)
        edits = tuple(edit for m in migrations for edit in m.edits)
        target = get_path(expected, prefix) if prefix is not None else None
        if prefix is None or not isinstance(target, dict):
            left += [LeftAsIs(m.diagnostic, "the object was not found again") for m in migrations]
            continue
        trial = copy_json(target)
        try:
            apply_edits(trial, edits, PlainKit())
        except Conflict as conflict:
            left += [LeftAsIs(m.diagnostic, f"it would overwrite: {conflict}") for m in migrations]
            continue
        target.clear()
        target.update(trial)
        accepted.append((prefix, edits, Rewritten(obj, migrations)))
    if not accepted:
        return piece.body, [], left
    try:
        loaded = roundtrip.load(body)
        for prefix, edits, _ in accepted:
            apply_edits(_node(loaded.tree, prefix), edits, roundtrip.RoundTripKit())
        new_body = roundtrip.dump(loaded)
    except (YAMLError, Conflict) as error:
        return refuse(f"ruamel.yaml cannot rewrite the document ({error})")
    reread = _read_one(path, new_body, limits)
    if reread is None or reread.data != expected:
        return refuse("ruamel.yaml would not write the document back as the same data")
    done = [rewritten for _, _, rewritten in accepted]
    return (new_body.replace("\n", "\r\n") if crlf else new_body), done, left


def _read_one(path: str, body: str, limits: InputLimits) -> Document | None:
    """The one document of ``body`` as trainc reads it, or None if that is not what it is."""
    parsed = parse_documents(SourceFile(path=path, text=body), limits)
    if len(parsed.documents) != 1 or any(d.is_error for d in parsed.diagnostics):
        return None
    return parsed.documents[0]


def _prefix(document: Document, obj: LoadedObject, first_line: int) -> FieldPath | None:
    """Where in ``document`` (a piece starting at ``first_line``) the object sits: the
    root, or an item of a List."""
    line, column = _root(obj.document)
    wanted = (line - first_line, column)
    data: JsonValue = document.data
    items = data.get("items") if isinstance(data, dict) else None
    candidates: list[FieldPath] = [()]
    if isinstance(items, list):
        candidates = [("items", index) for index in range(len(items))]
    for candidate in candidates:
        if document.positions.get(candidate) == wanted:
            return candidate
    return None


def _node(tree: Any, prefix: FieldPath) -> Any:
    for key in prefix:
        tree = tree[key]
    return tree
