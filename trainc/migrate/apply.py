"""Applying a migration's edits to a document tree: plain data, or ruamel's commented tree.

One algorithm serves both trees, so the data a rewrite is checked against is computed by
the same steps that rewrite the file: the tree-specific operations (make a mapping, insert
a key at a place, delete or rename one with its comments) come from a :class:`Kit`.

Before anything changes, every edit is checked against the tree; an edit that would
overwrite something the user wrote (a move onto a field that is set, a runtimePatches
entry whose manager is taken, two overrides setting one field of one job) raises
:class:`Conflict`, and the tree is left as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, MutableMapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from trainc.model.json import FieldPath, format_path
from trainc.schema.rewrites import AddEntry, Delete, Edit, Ref, Rename, Set, Template

#: List entries merged by this field when two edits add entries for the same item (the
#: replicatedJobs of a runtime patch are keyed by name, like most Kubernetes lists).
_MERGE_KEY = "name"


class Conflict(Exception):  # noqa: N818 - a reason to leave a document as it is, not a bug
    """The edits cannot be applied without overwriting what the document holds."""


class Kit(Protocol):
    """The operations that differ between plain data and ruamel's round-trip tree."""

    def new_map(self) -> MutableMapping[Any, Any]:
        """An empty mapping."""

    def new_seq(self) -> MutableSequence[Any]:
        """An empty sequence."""

    def insert(self, mapping: MutableMapping[Any, Any], index: int, key: str, value: Any) -> None:
        """Put ``key`` at position ``index`` of ``mapping``."""

    def replace(self, mapping: MutableMapping[Any, Any], key: str, value: Any) -> None:
        """Set the value of ``key``, which exists, in the style the old value was written."""

    def detach(self, mapping: MutableMapping[Any, Any], key: str) -> Any:
        """Take the comment lines after the value of ``key`` off it, for :meth:`delete`.

        They introduce what follows the field, so they stay in place when it goes; taken
        before anything moves, they do not travel with a moved value.
        """

    def delete(self, mapping: MutableMapping[Any, Any], key: str, following: Any) -> Any:
        """Remove ``key``, leaving the ``following`` comment lines in its place; returns
        them when their place is after ``mapping`` itself (``key`` was its only field)."""

    def keep(self, parent: Any, key: Any, following: Any) -> None:
        """Put comment lines after the value of ``parent[key]``."""

    def rename(self, mapping: MutableMapping[Any, Any], key: str, new: str) -> None:
        """Rename ``key`` to ``new`` in place."""

    def adopt(self, new: MutableMapping[Any, Any], key: str, old: str) -> None:
        """The comment on the line of ``new[key]``: the one ``old`` had, the field it replaces."""


class PlainKit:
    """The kit for plain JSON-shaped data (dicts keep insertion order)."""

    def new_map(self) -> MutableMapping[Any, Any]:
        """An empty mapping."""
        return {}

    def new_seq(self) -> MutableSequence[Any]:
        """An empty sequence."""
        return []

    def insert(self, mapping: MutableMapping[Any, Any], index: int, key: str, value: Any) -> None:
        """Put ``key`` at position ``index``."""
        items = list(mapping.items())
        items.insert(index, (key, value))
        mapping.clear()
        mapping.update(items)

    def replace(self, mapping: MutableMapping[Any, Any], key: str, value: Any) -> None:
        """Set the value of ``key``."""
        mapping[key] = value

    def detach(self, mapping: MutableMapping[Any, Any], key: str) -> Any:
        """Plain data has no comments."""

    def delete(self, mapping: MutableMapping[Any, Any], key: str, following: Any) -> Any:
        """Remove ``key``."""
        del mapping[key]

    def keep(self, parent: Any, key: Any, following: Any) -> None:
        """Plain data has no comments."""

    def rename(self, mapping: MutableMapping[Any, Any], key: str, new: str) -> None:
        """Rename ``key`` to ``new`` in place."""
        items = [(new if name == key else name, value) for name, value in mapping.items()]
        mapping.clear()
        mapping.update(items)

    def adopt(self, new: MutableMapping[Any, Any], key: str, old: str) -> None:
        """Plain data has no comments."""


def apply_edits(root: MutableMapping[Any, Any], edits: Sequence[Edit], kit: Kit) -> None:
    """Apply ``edits`` (paths relative to ``root``) in place; on Conflict, discard the tree.

    Order: new values are built from the moved subtrees first, then written, then the
    replaced and deleted fields removed, then renames made, deepest first, so that no
    edit's path is disturbed by another's.
    """
    plan = _Plan(root, kit)
    for edit in edits:
        plan.add(edit)
    plan.run()


@dataclass
class _Entries:
    """The runtimePatches-style entry several AddEntry edits of one object build together."""

    path: FieldPath
    key: str
    name: str
    fields: dict[str, Template]
    replaces: list[FieldPath] = field(default_factory=list)


class _Plan:
    def __init__(self, root: MutableMapping[Any, Any], kit: Kit) -> None:
        self._root = root
        self._kit = kit
        self._sets: list[Set] = []
        self._entries: dict[tuple[FieldPath, str, str], _Entries] = {}
        self._deletes: list[FieldPath] = []
        self._renames: list[Rename] = []
        self._used: set[int] = set()

    def add(self, edit: Edit) -> None:
        match edit:
            case Set():
                if edit.replaces is not None and self._has(edit.path):
                    raise Conflict(f"{format_path(edit.path)} is already set")
                self._sets.append(edit)
            case Delete():
                self._deletes.append(edit.path)
            case Rename():
                if self._has((*edit.path[:-1], edit.key)):
                    raise Conflict(f"{format_path((*edit.path[:-1], edit.key))} is already set")
                self._renames.append(edit)
            case AddEntry():
                self._add_entry(edit)

    def _add_entry(self, edit: AddEntry) -> None:
        existing = self._get(edit.path)
        if existing is not None and not isinstance(existing, MutableSequence):
            raise Conflict(f"{format_path(edit.path)} is not a list")
        for item in existing or ():
            if isinstance(item, MutableMapping) and item.get(edit.key) == edit.name:
                raise Conflict(
                    f"{format_path(edit.path)} already has an entry with {edit.key} {edit.name}"
                )
        slot = self._entries.setdefault(
            (edit.path, edit.key, edit.name), _Entries(edit.path, edit.key, edit.name, {})
        )
        slot.fields = _merge(slot.fields, edit.fields, format_path(edit.path))
        slot.replaces.append(edit.replaces)

    def run(self) -> None:
        replaced = [edit.replaces for edit in self._sets if edit.replaces is not None]
        removed = [
            *replaced,
            *(path for entry in self._entries.values() for path in entry.replaces),
            *self._deletes,
        ]
        detached = [(path, self._detach(path)) for path in removed]
        built_sets = [(edit, self._build(edit.value)) for edit in self._sets]
        built_entries = [
            (entry, self._build(dict(entry.fields))) for entry in self._entries.values()
        ]
        for entry, fields in built_entries:
            self._write_entry(entry, fields)
        for edit, value in built_sets:
            self._write(edit.path, value, edit.replaces)
        for path, following in detached:
            parent = self._get(path[:-1])
            if isinstance(parent, MutableMapping) and path[-1] in parent:
                leftover = self._kit.delete(parent, str(path[-1]), following)
                if leftover and len(path) > 1:
                    self._kit.keep(self._get(path[:-2]), path[-2], leftover)
        for rename in sorted(self._renames, key=lambda r: len(r.path), reverse=True):
            parent = self._get(rename.path[:-1])
            if isinstance(parent, MutableMapping) and rename.path[-1] in parent:
                self._kit.rename(parent, str(rename.path[-1]), rename.key)

    def _build(self, value: Template) -> Any:
        """The tree for ``value``: moved subtrees for Refs (a copy when one is used again)."""
        if isinstance(value, Ref):
            node = self._get(value.path)
            if id(node) in self._used:
                return copy.deepcopy(node)
            self._used.add(id(node))
            return node
        if isinstance(value, dict):
            mapping = self._kit.new_map()
            for key, item in value.items():
                mapping[key] = self._build(item)
            return mapping
        if isinstance(value, list):
            sequence = self._kit.new_seq()
            sequence.extend(self._build(item) for item in value)
            return sequence
        return value

    def _write_entry(self, entry: _Entries, fields: MutableMapping[Any, Any]) -> None:
        item = self._kit.new_map()
        item[entry.key] = entry.name
        item.update(fields)
        existing = self._get(entry.path)
        if isinstance(existing, MutableSequence):
            existing.append(item)
            return
        sequence = self._kit.new_seq()
        sequence.append(item)
        self._write(entry.path, sequence, entry.replaces[0])

    def _write(self, path: FieldPath, value: Any, replaces: FieldPath | None) -> None:
        """Set ``path`` to ``value``; a new field goes where ``replaces`` stands, if a sibling."""
        node = self._root
        for depth, key in enumerate(path):
            last = depth == len(path) - 1
            if not isinstance(node, MutableMapping):
                raise Conflict(f"{format_path(path[:depth])} is not a mapping")
            if key in node and not last:
                node = node[key]
                continue
            if key in node:  # a value replaced where it stands
                self._kit.replace(node, str(key), value)
                return
            new = value if last else self._kit.new_map()
            self._place(node, path[:depth], str(key), new, replaces)
            node = new

    def _place(
        self,
        mapping: MutableMapping[Any, Any],
        where: FieldPath,
        key: str,
        value: Any,
        replaces: FieldPath | None,
    ) -> None:
        if replaces is not None and replaces[:-1] == where and replaces[-1] in mapping:
            old = str(replaces[-1])
            self._kit.insert(mapping, list(mapping).index(old), key, value)
            self._kit.adopt(mapping, key, old)
        else:
            self._kit.insert(mapping, len(mapping), key, value)

    def _detach(self, path: FieldPath) -> Any:
        parent = self._get(path[:-1])
        if isinstance(parent, MutableMapping) and path[-1] in parent:
            return self._kit.detach(parent, str(path[-1]))
        return None

    def _has(self, path: FieldPath) -> bool:
        parent = self._get(path[:-1])
        return isinstance(parent, MutableMapping) and path[-1] in parent

    def _get(self, path: FieldPath) -> Any:
        node: Any = self._root
        for key in path:
            if isinstance(key, int):
                if not isinstance(node, MutableSequence) or not 0 <= key < len(node):
                    return None
            elif not isinstance(node, MutableMapping) or key not in node:
                return None
            node = node[key]
        return node


def _merge(old: Template, new: Template, where: str) -> Any:
    """Two edits' values for one place as one; raises Conflict when both set one field."""
    if isinstance(old, dict) and isinstance(new, dict):
        merged = dict(old)
        for key, value in new.items():
            merged[key] = _merge(merged[key], value, f"{where}.{key}") if key in merged else value
        return merged
    if isinstance(old, list) and isinstance(new, list):
        return _merge_items([*old, *new], where)
    raise Conflict(f"two old fields both set {where}")


def _merge_items(items: Iterable[Template], where: str) -> list[Template]:
    """List items with the same name merged into the first (the list is keyed by name)."""
    merged: list[Template] = []
    by_name: dict[object, int] = {}
    for item in items:
        name = item.get(_MERGE_KEY) if isinstance(item, dict) else None
        if isinstance(name, str) and name in by_name:
            index = by_name[name]
            rest = {key: value for key, value in item.items() if key != _MERGE_KEY}  # type: ignore[union-attr]
            merged[index] = _merge(merged[index], rest, f"{where}[{name}]")
        else:
            if isinstance(name, str):
                by_name[name] = len(merged)
            merged.append(item)
    return merged
