"""Whether a rewrite brings an error: the migrated objects validated as the repository.

A migration is a change of spelling, but the new spelling is checked by rules the old one
never met (a runtime patch may not set the env of the node container, whose env only
``spec.trainer.env`` sets). So the rewritten files are validated with the rest of the
repository, and an object that gets an error at a field its rewrite wrote is held back
with that error as the reason. An error elsewhere in the object was there before the
old spelling hid it, and is ``trainc validate``'s to report. A rule turned off in
trainc.yaml, or suppressed where it points, holds nothing back, as it fails no run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from trainc.config.judgement import Judgement
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.engine.pipeline import PassChoices, validate_objects
from trainc.load.documents import LoadedObject
from trainc.load.objects import classify_documents
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.migrate.document import FileMigration, Rewritten
from trainc.model.json import format_path
from trainc.policy.apply import PolicySet
from trainc.schema.rewrites import written_path

_ObjectKey = tuple[str, str, str]


def rewrite_errors(
    files: Sequence[FileMigration],
    objects: Sequence[LoadedObject],
    context: Sequence[LoadedObject],
    config: RepoConfig,
    policies: PolicySet,
) -> dict[LoadedObject, str]:
    """The rewritten objects that get an error at a field they wrote, and that error."""
    changed = {file.path: file for file in files if file.changed}
    if not changed:
        return {}
    after = [obj for obj in objects if obj.path not in changed]
    for path, file in changed.items():
        parsed = parse_documents(SourceFile(path=path, text=file.after), config.limits)
        after.extend(classify_documents(parsed.documents).objects)
    every = (*after, *context)
    sources = {obj.document.source.path: obj.document.source for obj in every}
    judgement = Judgement.for_run(config, sources.values())
    outcome = validate_objects(every, config, policies, choices=PassChoices(judgement=judgement))
    written = {
        _key(rewritten.obj): (rewritten.obj, _paths(rewritten))
        for file in changed.values()
        for rewritten in file.rewritten
    }
    broken: dict[LoadedObject, str] = {}
    for diagnostic in outcome.diagnostics:
        found = written.get((diagnostic.file or "", diagnostic.kind or "", diagnostic.name or ""))
        if found is None or not diagnostic.is_error or found[0] in broken:
            continue
        obj, paths = found
        if _under(diagnostic, paths):
            broken[obj] = (
                f"the rewrite would bring an error: {diagnostic.code}: {diagnostic.message}"
            )
    return broken


def _key(obj: LoadedObject) -> _ObjectKey:
    return (obj.path, obj.kind, obj.name)


def _paths(rewritten: Rewritten) -> tuple[str, ...]:
    """The fields the rewrite of an object wrote, as findings name them."""
    return tuple(
        format_path(path)
        for migration in rewritten.migrations
        for edit in migration.edits
        if (path := written_path(edit)) is not None
    )


def _under(diagnostic: Diagnostic, paths: Iterable[str]) -> bool:
    field = diagnostic.field_path or ""
    return any(field == path or field.startswith((f"{path}.", f"{path}[")) for path in paths)
