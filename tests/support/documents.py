"""In-memory documents for tests that do not need the YAML loader."""

from __future__ import annotations

from trainc.load.documents import Document, LoadedObject
from trainc.load.source import SourceFile
from trainc.model.json import JsonObject, JsonValue


def make_document(data: JsonValue, path: str = "test.yaml", text: str = "") -> Document:
    """A document with no position information: every node locates to line 1."""
    return Document(source=SourceFile(path=path, text=text), index=0, data=data, positions={})


def make_object(data: JsonObject, path: str = "test.yaml") -> LoadedObject:
    """A trainer object built straight from data (kind, name, namespace read from it)."""
    metadata = data.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    name = meta.get("name")
    namespace = meta.get("namespace")
    return LoadedObject(
        document=make_document(data, path),
        api_version=str(data.get("apiVersion", "")),
        kind=str(data.get("kind", "")),
        name=name if isinstance(name, str) else "",
        namespace=namespace if isinstance(namespace, str) else None,
    )
