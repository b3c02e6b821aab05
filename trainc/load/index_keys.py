"""The cache key of an index of a checkout's files (:mod:`.runtime_files`,
:mod:`.named_files`): one per checkout, input limits and file selection, so that two
checkouts, or two selections of one, never trust each other's stamps."""

from __future__ import annotations

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
