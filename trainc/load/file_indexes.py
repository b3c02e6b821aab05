"""What the indexes of runs on named files (:mod:`.runtime_files`, :mod:`.named_files`)
share: their cache key, one per checkout, input limits and file selection, so that two
checkouts, or two selections of one, never trust each other's stamps; and the split of a
walk's files into those the run looks at and those it skips (whose entries are kept)."""

from __future__ import annotations

from collections.abc import Iterable, Set
from pathlib import Path

from trainc.cache.keys import code_fingerprint, digest
from trainc.load.input_settings import InputSettings


def index_key(section: str, config: InputSettings, *selection: tuple[str, ...]) -> str:
    """The key of ``section``'s index of one checkout (its absolute root), read within
    ``config``'s limits, of the files the globs of ``selection`` select."""
    parts = [code_fingerprint(), section, str(Path(config.root).resolve()), repr(config.limits)]
    for globs in selection:
        parts += [str(len(globs)), *globs]
    return digest(parts)


def split(files: Iterable[str], skip: Set[str]) -> tuple[list[str], list[str]]:
    """``files`` not in ``skip``, and those in it, each in order."""
    looked_at: list[str] = []
    skipped: list[str] = []
    for path in files:
        (skipped if path in skip else looked_at).append(path)
    return looked_at, skipped
