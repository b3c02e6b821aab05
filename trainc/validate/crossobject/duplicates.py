"""Objects declared twice: the API server keeps one object per kind, namespace and name.

Applying both documents silently lets the later one overwrite the earlier, and trainc's
runtime index resolves references to the first; either way one declaration is dead, so the
later one is an error that names where the first lives.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainc.diagnostics import Diagnostic
from trainc.resolve.objects import DefaultedObject
from trainc.validate.crossobject.findings import describe, where


def check_duplicates(objects: Sequence[DefaultedObject]) -> list[Diagnostic]:
    """One error per repeated (kind, effective namespace, name), on every later declaration.

    ``objects`` must be in document order (path, then index in the file).
    """
    first_seen: dict[tuple[str, str | None, str], DefaultedObject] = {}
    found = []
    for obj in objects:
        if not obj.name:
            continue
        first = first_seen.setdefault((obj.kind, obj.namespace, obj.name), obj)
        if first is obj:
            continue
        found.append(
            obj.finding(
                ("metadata", "name"),
                "xobj.duplicate-object",
                f"{describe(obj)} is already declared at {where(first)}",
                hint="delete one declaration or rename it; references resolve to the first",
            )
        )
    return found
