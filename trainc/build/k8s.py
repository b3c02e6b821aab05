"""Kubernetes object fragments and the upsert rules Trainer's builder applies to templates.

The rules are upstream's (``upstream-semantics.md`` §2.7 b): env and volumes by name,
ports by containerPort *or* name, volumeMounts by mountPath; an existing entry is
replaced in place, a new one appended, so the runtime's own order is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from trainc.model.json import JsonObject, JsonValue

COMPLETION_INDEX_PATH = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


def env_value(name: str, value: str) -> JsonObject:
    """An environment variable with a literal value."""
    return {"name": name, "value": value}


def env_field(name: str, field_path: str) -> JsonObject:
    """An environment variable read from a pod field (the downward API)."""
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def upsert_env(container: JsonObject, entries: Iterable[JsonObject]) -> None:
    """Set environment variables by name: replaced in place, else appended."""
    _upsert(container, "env", entries, lambda old, new: old.get("name") == new.get("name"))


def upsert_ports(container: JsonObject, entries: Iterable[JsonObject]) -> None:
    """Set container ports, matching an existing one by containerPort or by name."""

    def same(old: JsonObject, new: JsonObject) -> bool:
        if old.get("containerPort") == new.get("containerPort"):
            return True
        return new.get("name") is not None and old.get("name") == new.get("name")

    _upsert(container, "ports", entries, same)


def upsert_volume_mounts(container: JsonObject, entries: Iterable[JsonObject]) -> None:
    """Set volume mounts, matching an existing one by mountPath (not by name)."""
    _upsert(
        container,
        "volumeMounts",
        entries,
        lambda old, new: old.get("mountPath") == new.get("mountPath"),
    )


def upsert_volumes(pod: JsonObject, entries: Iterable[JsonObject]) -> None:
    """Set pod volumes by name."""
    _upsert(pod, "volumes", entries, lambda old, new: old.get("name") == new.get("name"))


def _upsert(
    parent: JsonObject,
    key: str,
    entries: Iterable[JsonObject],
    same: Callable[[JsonObject, JsonObject], bool],
) -> None:
    current = parent.get(key)
    items: list[JsonValue] = list(current) if isinstance(current, list) else []
    for entry in entries:
        for index, existing in enumerate(items):
            if isinstance(existing, dict) and same(existing, entry):
                items[index] = entry
                break
        else:
            items.append(entry)
    parent[key] = items


def child_object(parent: JsonObject, key: str) -> JsonObject:
    """``parent[key]`` as a mapping the caller may amend, created when missing."""
    child = parent.get(key)
    if not isinstance(child, dict):
        child = parent[key] = {}
    return child


def set_labels(metadata: JsonObject, labels: dict[str, str], *, key: str = "labels") -> None:
    """Merge ``labels`` (or annotations, with ``key``) into an object's metadata."""
    current = metadata.get(key)
    merged: JsonObject = dict(current) if isinstance(current, dict) else {}
    merged.update(labels)
    metadata[key] = merged


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
