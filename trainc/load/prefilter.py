"""Which files could define a runtime, decided from their bytes without parsing them.

Validating one TrainJob (the pre-commit case) needs its runtime, wherever in the
repository that lives, and parsing every file to find the runtimes would make a
single-file run as slow as a whole-repository one. Most files are TrainJobs in plain
block style whose top-level keys start at column 0, so one line tells what they are:
``kind: TrainJob``. This module answers "could this file define a runtime?" and must
never say no to a file that does: anything it does not fully recognise (flow style,
indented documents, tags, anchors, merge keys, escapes, templates, ``kind: List``) is a
yes, and the caller parses it.
"""

from __future__ import annotations

import re
from typing import Final

from trainc.model.kinds import RUNTIME_KINDS

_RUNTIME_KINDS: Final = frozenset(kind.encode() for kind in RUNTIME_KINDS)

# A line that starts at column 0 with something other than a comment, a document
# marker, a directive, or nothing at all: at column 0, only top-level keys can.
_TOP_LEVEL_LINE: Final = re.compile(rb"^(?![#%\s]|(?:---|\.\.\.)(?:\s|$))[^\r\n]+", re.MULTILINE)
# A simple top-level key: a plain word, or a quoted one without escapes.
_SIMPLE_KEY: Final = re.compile(rb"""(?:[A-Za-z_][\w.\-/]*|"[^"\\]*"|'[^']*')[ \t]*:(?:[ \t]|$)""")
# ``kind: Word`` with an optional quote and comment, nothing else.
_KIND_LINE: Final = re.compile(
    rb"""(?:kind|"kind"|'kind')[ \t]*:[ \t]*(["']?)([A-Za-z][A-Za-z0-9]*)\1[ \t]*(?:\#.*)?$"""
)
_KIND_KEY: Final = re.compile(rb"""(?:kind|"kind"|'kind')[ \t]*:""")
# Blank, comment and directive lines, then an indented line: a document whose top-level
# keys are not at column 0, so the lines there do not tell its kind.
_INDENTED_START: Final = re.compile(rb"(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\n)*[ \t]+[^\s#]")
# A ``---`` line, and whatever follows the marker on it.
_DOCUMENT_MARKER: Final = re.compile(rb"^---(?=\s|$)([ \t]*)([^\r\n]*)\r?\n?", re.MULTILINE)


def may_define_runtime(data: bytes) -> bool:
    """False only when ``data`` certainly holds no TrainingRuntime or ClusterTrainingRuntime.

    The answer is no when no runtime kind is named anywhere in the bytes, or when every
    document starts at column 0, every line at column 0 is a simple top-level key, and
    each ``kind`` among them names some other single object kind.
    """
    if not any(kind in data for kind in _RUNTIME_KINDS):
        return False
    if _has_unaligned_document(data):
        return True
    for line in _TOP_LEVEL_LINE.finditer(data):
        text = line.group().rstrip(b"\r")
        if not _SIMPLE_KEY.match(text):
            return True  # flow style, a sequence, a tag, an alias, a template: parse it
        if _KIND_KEY.match(text):
            kind = _KIND_LINE.match(text)
            if kind is None:
                return True  # an anchor, tag or value on the next line
            name = kind.group(2)
            if name in _RUNTIME_KINDS or name.endswith(b"List"):
                return True
    return False


def _has_unaligned_document(data: bytes) -> bool:
    """True when a document starts indented, or has content on its ``---`` line."""
    if _INDENTED_START.match(data):
        return True
    for marker in _DOCUMENT_MARKER.finditer(data):
        rest = marker.group(2)
        if rest and not rest.startswith(b"#"):
            return True
        if _INDENTED_START.match(data, marker.end()):
            return True
    return False
