"""The skeleton of a namespaced Kubernetes object, which every plugin's build part fills in."""

from __future__ import annotations

from trainc.model.json import JsonObject, JsonValue


def manifest(
    api_version: str, kind: str, name: str, namespace: str, **fields: JsonValue
) -> JsonObject:
    """A namespaced object: apiVersion, kind, metadata with name and namespace, then fields."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        **fields,
    }
