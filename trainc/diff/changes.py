"""What an edit does to the cluster: the objects compile emits at two revisions, compared.

``trainc diff`` compiles the repository at the base revision and in the working tree and
hands both outputs here. An object is identified as the cluster identifies it (kind,
namespace, name, apiVersion); it is *added*, *removed* or *changed* when its rendered
YAML differs, and left out when it does not, so unchanged objects and fields make no
noise. Each change belongs to the TrainJob that owns the object, or to no one job (the
sweeper's objects). A change the API server refuses to apply in place (a field the
JobSet API makes immutable) carries the reasons, so the review sees it before the sync
fails.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from trainc.emit.order import sort_key
from trainc.emit.yamlout import dump_yaml
from trainc.model.json import JsonObject

#: The owner of the objects that belong to no one TrainJob (the sweeper's).
SHARED = ""

_Key = tuple[int, str, str, str, str]


class Change(StrEnum):
    """What an edit does to one object."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class Emitted:
    """A compile's output: each TrainJob's objects by owner (``namespace/name``), and
    the objects of no one job."""

    jobs: Mapping[str, Sequence[JsonObject]]
    shared: Sequence[JsonObject] = ()

    def by_key(self) -> dict[_Key, tuple[str, JsonObject]]:
        """Every object by its identity, with its owner."""
        owned = [(owner, obj) for owner, objects in self.jobs.items() for obj in objects]
        owned += [(SHARED, obj) for obj in self.shared]
        return {sort_key(obj): (owner, obj) for owner, obj in owned}


@dataclass(frozen=True, slots=True)
class ObjectChange:
    """One object an edit adds, removes or changes, as YAML before and after.

    ``before`` is empty for an added object, ``after`` for a removed one. ``refusals``
    say why the API server would refuse to update the object in place; the fix is a new
    TrainJob name.
    """

    owner: str
    kind: str
    namespace: str
    name: str
    change: Change
    before: str
    after: str
    refusals: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """``JobSet ml/llama``, or ``ClusterRole trainc-sweeper`` for a cluster-scoped one."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"

    def unified(self, before_label: str, after_label: str, *, context: int = 3) -> list[str]:
        """The change as unified diff lines (without line ends), as ``diff -u`` prints."""
        path = (
            f"{self.kind}/{self.namespace}/{self.name}"
            if self.namespace
            else (f"{self.kind}/{self.name}")
        )
        return list(
            difflib.unified_diff(
                self.before.splitlines(),
                self.after.splitlines(),
                fromfile=f"a/{path}" if self.before else "/dev/null",
                tofile=f"b/{path}" if self.after else "/dev/null",
                fromfiledate=before_label if self.before else "",
                tofiledate=after_label if self.after else "",
                n=context,
                lineterm="",
            )
        )


def compare(
    before: Emitted,
    after: Emitted,
    refusals: Callable[[str], Sequence[str]] = lambda owner: (),
) -> tuple[ObjectChange, ...]:
    """The objects that differ between ``before`` and ``after``, by owner then in the
    canonical object order (the shared objects last). ``refusals(owner)`` gives why
    the API server refuses to update that TrainJob's JobSet in place."""
    old, new = before.by_key(), after.by_key()
    changes: list[ObjectChange] = []
    for key in sorted(old.keys() | new.keys()):
        owner = (new.get(key) or old[key])[0]
        text_before = _render(old.get(key))
        text_after = _render(new.get(key))
        if text_before == text_after:
            continue
        change = (
            Change.ADDED
            if not text_before
            else Change.REMOVED
            if not text_after
            else Change.CHANGED
        )
        _, kind, namespace, name, _ = key
        refused = tuple(refusals(owner)) if change is Change.CHANGED and kind == "JobSet" else ()
        changes.append(
            ObjectChange(owner, kind, namespace, name, change, text_before, text_after, refused)
        )
    changes.sort(key=lambda change: (change.owner == SHARED, change.owner))  # stable
    return tuple(changes)


def _change(before: str, after: str) -> Change:
    if not before:
        return Change.ADDED
    return Change.REMOVED if not after else Change.CHANGED


def _render(entry: tuple[str, JsonObject] | None) -> str:
    return dump_yaml([entry[1]]) if entry is not None else ""


def owners(changes: Iterable[ObjectChange]) -> dict[str, list[ObjectChange]]:
    """The changes grouped by owner, in the order given."""
    grouped: dict[str, list[ObjectChange]] = {}
    for change in changes:
        grouped.setdefault(change.owner, []).append(change)
    return grouped
