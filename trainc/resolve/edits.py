"""Edits plugins make to the working JobSet, with the upsert rules of Trainer's builder.

The rules are upstream's (the builder's upserts in https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/builder.go):
env and volumes by name,
ports by containerPort *or* name, volumeMounts by mountPath; an existing entry is
replaced in place, a new one appended, so the runtime's own order is kept. Every edit
records in the resolution's trace where the value it writes comes from, so a finding
about it points at a line; lists and maps are changed in place, never rebuilt, so the
origins of the entries already there stay true.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from trainc.model.json import JsonObject, JsonValue
from trainc.resolve.provenance import Origin, Trace

COMPLETION_INDEX_PATH = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


def env_value(name: str, value: str) -> JsonObject:
    """An environment variable with a literal value."""
    return {"name": name, "value": value}


def env_field(name: str, field_path: str) -> JsonObject:
    """An environment variable read from a pod field (the downward API)."""
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def upsert_env(
    trace: Trace, container: JsonObject, entries: Iterable[JsonObject], origin: Origin
) -> None:
    """Set environment variables by name: replaced in place, else appended."""
    _upsert_by(trace, container, "env", "name", ((entry, origin) for entry in entries), origin)


def upsert_traced_env(
    trace: Trace, container: JsonObject, entries: Iterable[tuple[JsonObject, Origin]]
) -> None:
    """:func:`upsert_env` for entries that each have their own origin (a TrainJob's env).

    A missing list is created from the first entry's origin; no entry, no list.
    """
    pending = list(entries)
    if pending:
        _upsert_by(trace, container, "env", "name", pending, pending[0][1])


def upsert_ports(
    trace: Trace, container: JsonObject, entries: Iterable[JsonObject], origin: Origin
) -> None:
    """Set container ports, matching an existing one by containerPort or by name."""

    def same(old: JsonObject, new: JsonObject) -> bool:
        if old.get("containerPort") == new.get("containerPort"):
            return True
        return new.get("name") is not None and old.get("name") == new.get("name")

    _upsert(trace, container, "ports", entries, origin, same=same)


def upsert_volume_mounts(
    trace: Trace, container: JsonObject, entries: Iterable[JsonObject], origin: Origin
) -> None:
    """Set volume mounts, matching an existing one by mountPath (not by name)."""
    _upsert_by(
        trace, container, "volumeMounts", "mountPath", ((e, origin) for e in entries), origin
    )


def upsert_volumes(
    trace: Trace, pod: JsonObject, entries: Iterable[JsonObject], origin: Origin
) -> None:
    """Set pod volumes by name."""
    _upsert_by(trace, pod, "volumes", "name", ((entry, origin) for entry in entries), origin)


def append_items(
    trace: Trace, parent: JsonObject, key: str, entries: Iterable[JsonObject], origin: Origin
) -> None:
    """Append ``entries`` to the list ``parent[key]`` (created when missing)."""
    items = _list(trace, parent, key, origin)
    for entry in entries:
        trace.node(entry, origin)
        items.append(entry)


def _upsert(
    trace: Trace,
    parent: JsonObject,
    key: str,
    entries: Iterable[JsonObject],
    origin: Origin,
    *,
    same: Callable[[JsonObject, JsonObject], bool],
) -> None:
    items = _list(trace, parent, key, origin)
    for entry in entries:
        trace.node(entry, origin)
        for index, existing in enumerate(items):
            if isinstance(existing, dict) and same(existing, entry):
                trace.superseded(items, index, existing, trace.recorded(existing))
                items[index] = entry
                break
        else:
            items.append(entry)


def _upsert_by(
    trace: Trace,
    parent: JsonObject,
    key: str,
    field: str,
    entries: Iterable[tuple[JsonObject, Origin]],
    origin: Origin,
) -> None:
    """:func:`_upsert` where entries are the same when their ``field`` is equal.

    The list is indexed by that field once, instead of searched for every entry (a
    container's environment takes dozens of upserts). Resolution runs on schema-valid
    objects only, so the field is a string or missing, and a dictionary finds what ``==``
    would: the first item with an equal value.
    """
    items = _list(trace, parent, key, origin)
    first: dict[str | None, int] = {}
    for index, existing in enumerate(items):
        if isinstance(existing, dict):
            first.setdefault(_text(existing, field), index)
    for entry, entry_origin in entries:
        trace.node(entry, entry_origin)
        name = _text(entry, field)
        at = first.get(name)
        if at is None:
            first[name] = len(items)
            items.append(entry)
        else:
            replaced = items[at]
            trace.superseded(items, at, replaced, trace.recorded(replaced))
            items[at] = entry


def _text(entry: JsonObject, field: str) -> str | None:
    value = entry.get(field)
    return value if isinstance(value, str) else None


def _list(trace: Trace, parent: JsonObject, key: str, origin: Origin) -> list[JsonValue]:
    """``parent[key]`` as a list to change in place, created (from ``origin``) when missing."""
    current = parent.get(key)
    if isinstance(current, list):
        return current
    created: list[JsonValue] = []
    trace.put(parent, key, created, origin)
    return created


def child_object(parent: JsonObject, key: str) -> JsonObject:
    """``parent[key]`` as a mapping the caller may amend, created when missing."""
    child = parent.get(key)
    if not isinstance(child, dict):
        child = parent[key] = {}
    return child


def set_labels(
    trace: Trace,
    metadata: JsonObject,
    labels: Mapping[str, tuple[str, Origin]],
    *,
    key: str = "labels",
) -> None:
    """Merge ``labels`` (or annotations, with ``key``), each with its origin, into metadata."""
    current = child_object(metadata, key)
    for name, (value, origin) in labels.items():
        trace.put(current, name, value, origin)
