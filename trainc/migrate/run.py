"""Migrating what the loader read: every file that holds trainer objects, in path order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby

from trainc.load.documents import LoadedObject
from trainc.load.limits import Limits
from trainc.load.source import SourceFile
from trainc.migrate.document import FileMigration, migrate_source


def migrate_inputs(
    sources: Mapping[str, SourceFile],
    objects: Sequence[LoadedObject],
    *,
    manager: str,
    limits: Limits,
) -> tuple[FileMigration, ...]:
    """The files that change or keep a finding; ``objects`` are sorted by path (the
    loader's order)."""
    files = []
    for path, group in groupby(objects, key=lambda obj: obj.path):
        migrated = migrate_source(sources[path], list(group), manager=manager, limits=limits)
        if migrated.changed or migrated.left:
            files.append(migrated)
    return tuple(files)
