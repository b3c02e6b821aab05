"""Defaulted objects from YAML text, as the validate layer hands them to resolve and policies.

Parsing goes through the real loader so that positions, and so finding locations, are
the ones users see; defaults come from the generated schemas.
"""

from __future__ import annotations

from trainc.config.limits import InputLimits
from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import get_path
from trainc.model.kinds import KINDS_BY_NAME
from trainc.model.schematree import load_kind_schema
from trainc.schema.defaults import apply_defaults, drop_nulls


def defaulted_objects(text: str, path: str = "jobs.yaml") -> list[DefaultedObject]:
    """Every trainer object in ``text``, schema-defaulted, namespaced like the loader does."""
    parsed = parse_documents(SourceFile(path, text), InputLimits())
    assert not parsed.diagnostics, parsed.diagnostics
    objects = []
    for document in parsed.documents:
        data = document.data
        assert isinstance(data, dict)
        kind = str(data["kind"])
        namespace = get_path(data, ("metadata", "namespace"))
        if KINDS_BY_NAME[kind].namespaced:
            namespace = namespace if isinstance(namespace, str) else "default"
        loaded = LoadedObject(
            document=document,
            api_version=str(data["apiVersion"]),
            kind=kind,
            name=str(get_path(data, ("metadata", "name"))),
            namespace=namespace if isinstance(namespace, str) else None,
        )
        defaulted = apply_defaults(drop_nulls(data), load_kind_schema(kind))
        assert isinstance(defaulted, dict)
        objects.append(DefaultedObject(loaded, defaulted, loaded.namespace, schema_valid=True))
    return objects


def defaulted_object(text: str, path: str = "jobs.yaml") -> DefaultedObject:
    """The one trainer object in ``text``."""
    (only,) = defaulted_objects(text, path)
    return only
