"""The document-level layers: migration hints, structural schema, ObjectMeta, defaults, CEL.

What the API server does to one object on its own, before anything looks across objects.
``validate --base`` runs the first of them on the base revision's objects too
(:mod:`trainc.checks.transitions.base`), so they live apart from the run that orders every layer.
"""

from __future__ import annotations

from dataclasses import replace

from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject, effective_namespace
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath, format_path
from trainc.model.kinds import KINDS_BY_NAME
from trainc.model.labels import API_VERSION
from trainc.model.schematree import load_kind_schema
from trainc.schema.cel.rules import check_rules
from trainc.schema.defaults import store
from trainc.schema.metadata import check_metadata
from trainc.schema.migrations import check_migrations
from trainc.schema.structural import check_stored


def prepare_object(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None, frozenset[FieldPath]]:
    """Document-level layers up to defaulting: (findings, defaulted object, error paths).

    Returns no object when the document is not the served API version: nothing after
    the migration hint could say anything useful about it.
    """
    namespace = effective_namespace(obj, config.namespace)
    diagnostics, defaulted, error_paths = _prepare(obj, config, namespace)
    return [_in_namespace(d, namespace) for d in diagnostics], defaulted, error_paths


def _in_namespace(diagnostic: Diagnostic, namespace: str | None) -> Diagnostic:
    """``diagnostic`` naming the namespace its object lands in when the object names none.

    A TrainJob without ``metadata.namespace`` is applied to the default namespace (as
    ``kubectl apply -n`` would), so a finding about it says where, as the later layers'
    findings do, rather than leave the namespace out.
    """
    if diagnostic.kind is None or diagnostic.namespace is not None:
        return diagnostic
    return replace(diagnostic, namespace=namespace)


def _prepare(
    obj: LoadedObject, config: RepoConfig, namespace: str | None
) -> tuple[list[Diagnostic], DefaultedObject | None, frozenset[FieldPath]]:
    migration = check_migrations(obj)
    diagnostics = list(migration.diagnostics)
    if obj.api_version != API_VERSION:
        return diagnostics, None, frozenset()
    info = KINDS_BY_NAME[obj.kind]
    schema = load_kind_schema(obj.kind)
    stored = store(obj.data, schema)
    # A value kubectl cannot decode was reported by the loader; its stand-in text is no
    # value to judge, and the object as a whole never reaches the API server.
    refused = obj.document.refused
    findings = check_stored(stored, schema, skip=migration.handled_paths | refused)
    diagnostics.extend(obj.finding(f.path, f.code, f.message, hint=f.hint) for f in findings)
    refused_fields = {format_path(path) for path in refused}
    diagnostics.extend(
        finding
        for finding in check_metadata(obj, namespaced=info.namespaced)
        if finding.field_path not in refused_fields
    )
    defaulted_data = stored.defaulted
    defaulted = DefaultedObject(
        loaded=obj,
        data=defaulted_data if isinstance(defaulted_data, dict) else {},
        namespace=namespace,
        schema_valid=not findings and not migration.diagnostics and not refused,
    )
    error_paths = frozenset(f.path for f in findings) | migration.handled_paths | refused
    return diagnostics, defaulted, error_paths


def check_document(
    obj: LoadedObject, config: RepoConfig
) -> tuple[list[Diagnostic], DefaultedObject | None]:
    """Every document-level layer: (findings, defaulted object, None if not served)."""
    diagnostics, defaulted, error_paths = prepare_object(obj, config)
    if defaulted is not None:
        schema = load_kind_schema(obj.kind)
        diagnostics.extend(check_rules(defaulted, schema, skip_paths=error_paths))
    return diagnostics, defaulted
