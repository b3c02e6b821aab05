"""``trainc diff --format json``: the changes as one JSON object, for scripts and bots."""

from __future__ import annotations

from collections.abc import Sequence

from trainc.diff.changes import ObjectChange
from trainc.diff.summary import DiffSummary
from trainc.model.json import JsonObject


def diff_document(
    changes: Sequence[ObjectChange], *, base: str, head: str, exit_code: int
) -> JsonObject:
    """Every changed object (owner, identity, change, the refusals of an update the API
    server refuses, the unified diff) and the counts. Field names in lowerCamelCase."""
    summary = DiffSummary.of(changes)
    return {
        "base": base,
        "changes": [_entry(change, base, head) for change in changes],
        "summary": {
            "trainJobs": summary.trainjobs,
            "added": summary.added,
            "changed": summary.changed,
            "removed": summary.removed,
            "needsNewName": summary.refused,
            "exitCode": exit_code,
        },
    }


def _entry(change: ObjectChange, base: str, head: str) -> JsonObject:
    """One change; ``trainJob`` is absent for the sweeper's objects and ``namespace`` for
    cluster-scoped ones, as in the manifests."""
    entry: JsonObject = {
        "kind": change.kind,
        "name": change.name,
        "change": change.change.value,
        "needsNewName": bool(change.refusals),
        "refusals": list(change.refusals),
        "diff": "\n".join(change.unified(base, head)) + "\n",
    }
    if change.owner:
        entry["trainJob"] = change.owner
    if change.namespace:
        entry["namespace"] = change.namespace
    return entry
