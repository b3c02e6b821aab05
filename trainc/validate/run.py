"""Validation layers in the API server's order, over every object of a run.

Per object: migration hints, the structural schema check (with ObjectMeta rules), CRD
defaults, then CEL rules. Across objects: the webhook-equivalent checks, organisation
policies and, with ``--base``, transition rules against the same objects at that revision.
Every layer adds to one diagnostics list; none stops the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from trainc.config import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath
from trainc.model.kinds import KINDS_BY_NAME
from trainc.model.labels import API_VERSION
from trainc.model.schematree import load_kind_schema
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.objects import DefaultedObject
from trainc.validate.cel.rules import check_rules
from trainc.validate.crossobject.run import check_cross_object
from trainc.validate.defaults import apply_defaults, drop_nulls
from trainc.validate.metadata import check_metadata
from trainc.validate.migrations import check_migrations
from trainc.validate.policies import PolicySet, check_policies
from trainc.validate.structural import check_schema

ObjectKey = tuple[str, str | None, str]


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    """Objects with defaults applied, and everything found about them."""

    objects: tuple[DefaultedObject, ...]
    diagnostics: tuple[Diagnostic, ...]


def validate_objects(
    objects: Sequence[LoadedObject],
    config: RepoConfig,
    policies: PolicySet,
    *,
    base: Sequence[LoadedObject] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ValidationOutcome:
    """Run every validation layer; ``base`` enables the transition rules.

    ``progress(done, total)`` is called after each object's own checks, the bulk of
    the work; the cross-object layers that follow are quick.
    """
    diagnostics: list[Diagnostic] = []
    checked: list[DefaultedObject] = []
    for done, obj in enumerate(objects, 1):
        found, defaulted = _check_document(obj, config)
        diagnostics.extend(found)
        if defaulted is not None:
            checked.append(defaulted)
        if progress is not None:
            progress(done, len(objects))
    diagnostics.extend(check_cross_object(checked))
    diagnostics.extend(check_policies(policies, checked, RuntimeIndex(checked)))
    if base is not None:
        diagnostics.extend(_check_against_base(checked, base, config))
    return ValidationOutcome(objects=tuple(checked), diagnostics=tuple(diagnostics))


def prepare_object(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None, frozenset[FieldPath]]:
    """Document-level layers up to defaulting: (findings, defaulted object, error paths).

    Returns no object when the document is not the served API version: nothing after
    the migration hint could say anything useful about it.
    """
    migration = check_migrations(obj)
    diagnostics = list(migration.diagnostics)
    if obj.api_version != API_VERSION:
        return diagnostics, None, frozenset()
    info = KINDS_BY_NAME[obj.kind]
    schema = load_kind_schema(obj.kind)
    data = drop_nulls(obj.data)
    findings = check_schema(data, schema, skip=migration.handled_paths)
    diagnostics.extend(obj.finding(f.path, f.code, f.message, hint=f.hint) for f in findings)
    diagnostics.extend(check_metadata(obj, namespaced=info.namespaced))
    defaulted_data = apply_defaults(data, schema)
    namespace = (obj.namespace or config.namespace) if info.namespaced else None
    defaulted = DefaultedObject(
        loaded=obj,
        data=defaulted_data if isinstance(defaulted_data, dict) else {},
        namespace=namespace,
        schema_valid=not findings and not migration.diagnostics,
    )
    error_paths = frozenset(f.path for f in findings) | migration.handled_paths
    return diagnostics, defaulted, error_paths


def _check_document(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None]:
    diagnostics, defaulted, error_paths = prepare_object(obj, config)
    if defaulted is not None:
        schema = load_kind_schema(obj.kind)
        diagnostics.extend(check_rules(defaulted, schema, skip_paths=error_paths))
    return diagnostics, defaulted


def _key(obj: DefaultedObject) -> ObjectKey:
    return (obj.kind, obj.namespace, obj.name)


def _check_against_base(
    current: Iterable[DefaultedObject], base: Sequence[LoadedObject], config: RepoConfig
) -> list[Diagnostic]:
    """Transition rules for every object that also exists, valid, at the base revision."""
    # Only ``--base`` runs need the transition layer: loaded here, not by every run.
    from trainc.validate.cel.transitions import check_transitions  # noqa: PLC0415

    previous: dict[ObjectKey, DefaultedObject] = {}
    for loaded in base:
        _, defaulted, _ = prepare_object(loaded, config)
        if defaulted is not None and defaulted.schema_valid:
            previous.setdefault(_key(defaulted), defaulted)
    diagnostics: list[Diagnostic] = []
    for obj in current:
        old = previous.get(_key(obj))
        if old is not None and obj.schema_valid:
            diagnostics.extend(check_transitions(obj, old, load_kind_schema(obj.kind)))
    return diagnostics
