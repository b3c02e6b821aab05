"""Taking TrainJob documents out of their files, and nothing else.

A file may hold other documents beside the TrainJob (its runtime, a second job); those
must come out byte for byte as they were, comments included. The text is cut at its
``---`` separator lines into pieces that each begin with their separator; a piece whose
one document is a TrainJob to remove is dropped. The edit is then proven: the new text,
read again, must hold exactly the old documents less the removed ones, in order, or the
file is left as it was. A file left without any document is deleted. Templates (their
documents exist only once rendered) are never edited.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trainc.config.limits import InputLimits
from trainc.emit.replace import ChangedMeanwhile, replace_text
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, JsonValue

#: A line that starts a YAML document: ``---`` alone or followed by a blank.
_SEPARATOR = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)
_TEMPLATE_SUFFIX = ".j2"


class UnsafeEditError(Exception):
    """The documents cannot be taken out of this file without touching others."""


@dataclass(frozen=True, slots=True)
class Edit:
    """What becomes of one file: from ``before``, its new text, or None when it is to be
    deleted."""

    path: str
    before: str
    text: str | None


def without_documents(
    path: str, text: str, removed: Sequence[JsonObject], limits: InputLimits
) -> Edit:
    """``text`` of file ``path`` without the documents ``removed`` (each as read).

    Raises :class:`UnsafeEditError` for a template, for text the loader cannot read, and when
    a document to remove does not stand alone between separators.
    """
    if path.endswith(_TEMPLATE_SUFFIX):
        raise UnsafeEditError("a template: its documents exist only once rendered")
    pieces = [piece for piece in _pieces(text) if piece]
    left = list(removed)
    kept: list[str] = []
    for piece in pieces:
        documents = _documents(path, piece, limits)
        if len(documents) == 1 and documents[0] in left:
            left.remove(documents[0])
        else:
            kept.append(piece)
    if left:
        raise UnsafeEditError("its document does not stand alone between '---' separators")
    new_text = "".join(kept)
    remaining = [document for piece in kept for document in _documents(path, piece, limits)]
    if not remaining:
        return Edit(path, text, None)
    before = _documents(path, text, limits)
    for document in removed:
        before.remove(document)
    if _documents(path, new_text, limits) != before:
        raise UnsafeEditError("the other documents of the file would not read the same")
    return Edit(path, text, new_text)


def _pieces(text: str) -> list[str]:
    starts = [0, *(match.start() for match in _SEPARATOR.finditer(text)), len(text)]
    return [text[start:end] for start, end in itertools.pairwise(starts)]


def _documents(path: str, text: str, limits: InputLimits) -> list[JsonValue]:
    parsed = parse_documents(SourceFile(path=path, text=text), limits)
    if any(finding.is_error for finding in parsed.diagnostics):
        raise UnsafeEditError("the file does not read as YAML")
    return [document.data for document in parsed.documents]


def apply_edit(root: Path, edit: Edit) -> None:
    """Carry out ``edit`` under ``root``: delete the file, or replace its text atomically
    (:func:`trainc.emit.replace.replace_text`), provided it still holds the text the edit
    was made from. Raises ChangedMeanwhile otherwise."""
    target = root / edit.path
    if edit.text is None:
        if target.read_bytes().decode("utf-8-sig") != edit.before:
            raise ChangedMeanwhile(str(target))
        target.unlink()
        return
    replace_text(target, edit.before, edit.text)
