"""Objects declared twice: the API server keeps one object per kind, namespace and name.

Applying both documents silently lets the later one overwrite the earlier, and trainc's
runtime index resolves references to the first; either way one declaration is dead, so the
later one is an error that names where the first lives. A TrainJob's name is also the name
of its JobSet, PodGroup and ConfigMaps, so this is their clash too.

In a run on named files (the pre-commit hook), the objects of the rest of the repository
are known by name (``elsewhere``): a checked object declared there as well is the
duplicate, wherever it sorts, since the named file is the one being changed (a job file
copied and not renamed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from trainc.checks.shared.findings import describe, where
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject

XOBJ_DUPLICATE_OBJECT = Rule(
    "xobj.duplicate-object",
    Severity.ERROR,
    "two documents declare the same object",
)


#: ``(kind, effective namespace, name)``: what the API server keeps one object of.
Identity: TypeAlias = tuple[str, str | None, str]


def check_duplicates(
    objects: Sequence[DefaultedObject], elsewhere: Mapping[Identity, str] = {}
) -> list[Diagnostic]:
    """One error per repeated (kind, effective namespace, name), on every later declaration.

    ``objects`` must be in document order (path, then index in the file). ``elsewhere``
    gives the ``file:line`` of objects the run does not check, by identity; a checked
    object with one of those identities is an error too.
    """
    first_seen: dict[Identity, DefaultedObject] = {}
    found = []
    for obj in objects:
        if not obj.name:
            continue
        identity = (obj.kind, obj.namespace, obj.name)
        declared = elsewhere.get(identity)
        if declared is not None:
            found.append(_duplicate(obj, declared))
            continue
        first = first_seen.setdefault(identity, obj)
        if first is not obj:
            found.append(_duplicate(obj, where(first)))
    return found


def _duplicate(obj: DefaultedObject, first: str) -> Diagnostic:
    return obj.finding(
        ("metadata", "name"),
        XOBJ_DUPLICATE_OBJECT.code,
        f"{describe(obj)} is already declared at {first}",
        hint="delete one declaration or rename it; references resolve to the first",
    )
