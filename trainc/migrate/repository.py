"""Migrating what the loader read: every file that holds trainer objects, in path order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby

from trainc.config.limits import InputLimits
from trainc.config.settings import RepoConfig
from trainc.load.documents import LoadedObject
from trainc.load.inputs import LoadResult
from trainc.load.source import SourceFile
from trainc.migrate.check import rewrite_errors
from trainc.migrate.document import FileMigration, migrate_source
from trainc.policy.apply import PolicySet


def migrate_inputs(
    sources: Mapping[str, SourceFile],
    objects: Sequence[LoadedObject],
    *,
    manager: str,
    limits: InputLimits,
    held: Mapping[LoadedObject, str],
) -> tuple[FileMigration, ...]:
    """The files that change or keep a finding; ``objects`` are sorted by path (the
    loader's order), ``held`` are left as they are, each with the reason."""
    files = []
    for path, group in groupby(objects, key=lambda obj: obj.path):
        migrated = migrate_source(
            sources[path], list(group), manager=manager, limits=limits, held=held
        )
        if migrated.changed or migrated.left:
            files.append(migrated)
    return tuple(files)


def migrate_checked(
    inputs: LoadResult,
    context: Sequence[LoadedObject],
    config: RepoConfig,
    policies: PolicySet,
    *,
    manager: str,
) -> tuple[FileMigration, ...]:
    """:func:`migrate_inputs`, holding back each object whose rewrite would bring an error
    (:mod:`trainc.migrate.check`) until none does."""
    held: dict[LoadedObject, str] = {}
    while True:
        files = migrate_inputs(
            inputs.sources, inputs.objects, manager=manager, limits=config.limits, held=held
        )
        broken = rewrite_errors(files, inputs.objects, context, config, policies)
        if not broken.keys() - held.keys():
            return files
        held.update(broken)
