"""Where every value of a resolved JobSet came from: a line of an input, or a plugin's rule.

A finding about the Job the JobSet controller creates must point at the line a user
wrote, and that line may be the runtime's, a TrainJob override, or a runtime patch, or
the value may be one trainc's plugins computed. Resolution builds its JobSet spec by
copying input subtrees, merging patches and letting plugins write; a :class:`Trace`
records, as that happens, the origin of each node and member written, and answers "where
did the value at this path come from?" afterwards.

The records are keyed by node identity, not by path, so later edits that move nodes
around (a strategic merge reordering a list, a plugin appending to one) cannot make an
origin point at the wrong item. A node with no record of its own is as its nearest
recorded ancestor wrote it: its origin is the ancestor's, extended by the path between
them. That keeps the common case free: a subtree copied verbatim needs one record at its
root. The trace holds a reference to every node it recorded, so a node's identity is
never reused while the trace can be asked about it.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonValue
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class Written:
    """A value as an input file has it: the object, the path in it, and the patch's manager.

    ``manager`` is set when the value was written in a TrainJob's ``runtimePatches``
    entry, whose manager owns it.
    """

    source: DefaultedObject
    path: FieldPath
    manager: str | None = None

    def at(self, relative: FieldPath) -> Written:
        """The origin of a value ``relative`` below this one, written along with it."""
        if not relative:
            return self
        return Written(self.source, (*self.path, *relative), self.manager)


@dataclass(frozen=True, slots=True)
class Derived:
    """A value computed, not written: who set it, by which rule, and the input behind it.

    ``actor`` is who sets it ("trainc's torch plugin", "the JobSet webhook", "the JobSet
    controller"). ``cause`` is where a user changes the value (the TrainJob's
    ``numNodes`` for a pod count, the runtime's ``mlPolicy.torch`` for torchrun's
    environment), so a finding about a derived value still points at a line.
    """

    actor: str
    rule: str
    cause: Written

    def at(self, relative: FieldPath) -> Derived:
        """A derived value's parts are derived by the same rule."""
        return self


Origin = Written | Derived


def describe(origin: Origin) -> str:
    """Where a value came from, in words: for a finding's hint."""
    if isinstance(origin, Derived):
        return f"set by {origin.actor}: {origin.rule}"
    kind = origin.source.kind
    where = f"{kind} {origin.source.name}"
    if origin.manager is not None:
        return f"written in the runtime patch of manager {origin.manager!r} of {where}"
    return f"written in {where}"


class Trace:
    """The origins of the nodes of one resolved tree, recorded while it is built."""

    __slots__ = ("_history", "_members", "_nodes")

    def __init__(self) -> None:
        """An empty trace."""
        self._nodes: dict[int, tuple[JsonValue, Origin]] = {}
        self._members: dict[tuple[int, str | int], tuple[JsonValue, Origin]] = {}
        self._history: dict[tuple[int, str | int], tuple[JsonValue, list[Earlier]]] = {}

    def node(self, value: JsonValue, origin: Origin) -> None:
        """``value`` (a mapping or list) and everything below it came from ``origin``."""
        if isinstance(value, dict | list):
            self._nodes[id(value)] = (value, origin)

    def member(self, parent: JsonValue, key: str | int, origin: Origin) -> None:
        """``parent[key]`` came from ``origin``, whatever its parent's origin is."""
        self._members[(id(parent), key)] = (parent, origin)

    def put(self, parent: dict[str, JsonValue], key: str, value: JsonValue, origin: Origin) -> None:
        """Set ``parent[key] = value`` and record that it came from ``origin``; a value it
        replaces is kept as an earlier one (:meth:`superseded`)."""
        if key in parent:
            old = parent[key]
            member = self._members.get((id(parent), key))
            self.superseded(parent, key, old, member[1] if member else self.recorded(old))
        parent[key] = value
        self.member(parent, key, origin)
        self.node(value, origin)

    def superseded(
        self, parent: JsonValue, key: str | int, value: JsonValue, origin: Origin | None
    ) -> None:
        """``parent[key]`` held ``value``, from ``origin``, until it is replaced now.

        ``origin`` None means the value was as its parent's origin wrote it. What a value
        replaced is what ``trainc explain --field`` shows: runtime, patch, override.
        """
        entry = self._history.setdefault((id(parent), key), (parent, []))
        entry[1].append(Earlier(value, origin))

    def same(self, copy: JsonValue, original: JsonValue) -> None:
        """``copy`` replaces ``original``: it takes over its records, node and members.

        For edits that rebuild a mapping or list rather than change it in place.
        """
        found = self._nodes.get(id(original))
        if found is not None:
            self.node(copy, found[1])
        if isinstance(original, dict):
            for key in original:
                member = self._members.get((id(original), key))
                if member is not None:
                    self.member(copy, key, member[1])
                history = self._history.get((id(original), key))
                if history is not None:
                    self._history[(id(copy), key)] = (copy, list(history[1]))

    def child_origin(self, parent: JsonValue, parent_origin: Origin, key: str | int) -> Origin:
        """The origin of ``parent[key]``, given its parent's: its own record, else its member
        record, else the parent's origin extended by ``key``."""
        child = _child(parent, key)
        own = self._nodes.get(id(child)) if isinstance(child, dict | list) else None
        found = own or self._members.get((id(parent), key))
        return found[1] if found is not None else parent_origin.at((key,))

    def recorded(self, value: JsonValue) -> Origin | None:
        """The origin recorded for ``value`` itself, if any."""
        found = self._nodes.get(id(value))
        return found[1] if found is not None else None

    def origin(self, root: JsonValue, path: FieldPath) -> Origin | None:
        """Where the value at ``path`` below ``root`` came from.

        A path that runs past the tree (a missing field a rule requires) ends at the
        deepest node that exists, extended by the rest of the path. None when nothing on
        the way was recorded.
        """
        # The walk of :meth:`_walk` without its steps: this runs for most fields a
        # plugin or check reads, and only the last origin matters.
        origin = self.recorded(root)
        relative: list[str | int] = []
        node: JsonValue = root
        for depth, key in enumerate(path):
            child = _child(node, key)
            if isinstance(child, _Missing):
                relative.extend(path[depth:])
                break
            origin, relative = self._reached(node, key, child, origin, relative)
            node = child
        return _at(origin, relative)

    def earlier(self, root: JsonValue, path: FieldPath) -> list[tuple[Origin, JsonValue]]:
        """The values the field at ``path`` held before its current one, oldest first,
        with their origins: a runtime's value a patch replaced, a patch's value a
        TrainJob override replaced. A replaced ancestor (a whole list entry) counts when
        its old value had the field."""
        found: list[tuple[Origin, JsonValue]] = []
        for step in self._walk(root, path):
            history = self._history.get((id(step.parent), step.key))
            if history is None or step.parent_origin is None:
                continue
            rest = path[step.depth + 1 :]
            for earlier in history[1]:
                value = _below(earlier.value, rest)
                if not isinstance(value, _Missing):
                    origin = earlier.origin or step.parent_origin.at((step.key,))
                    found.append((origin.at(rest), value))
        return found

    def _walk(self, root: JsonValue, path: FieldPath) -> Iterator[_Step]:
        """Each step of ``path`` that exists below ``root``, with the origin of the value
        it reaches; a path running past the tree ends with the rest appended."""
        origin = self.recorded(root)
        relative: list[str | int] = []
        node: JsonValue = root
        for depth, key in enumerate(path):
            parent_origin = origin.at(tuple(relative)) if origin is not None else None
            child = _child(node, key)
            if isinstance(child, _Missing):
                relative.extend(path[depth:])
                yield _Step(depth, node, key, parent_origin, _at(origin, relative))
                return
            origin, relative = self._reached(node, key, child, origin, relative)
            yield _Step(depth, node, key, parent_origin, _at(origin, relative))
            node = child

    def _reached(
        self,
        parent: JsonValue,
        key: str | int,
        child: JsonValue,
        origin: Origin | None,
        relative: list[str | int],
    ) -> tuple[Origin | None, list[str | int]]:
        """(origin, path below it) of ``child = parent[key]``, given its parent's: its own
        record or member record starts afresh, else the key extends ``relative``."""
        own = self._nodes.get(id(child)) if isinstance(child, dict | list) else None
        member = own or self._members.get((id(parent), key))
        if member is not None:
            return member[1], []
        relative.append(key)
        return origin, relative


@dataclass(frozen=True, slots=True)
class Earlier:
    """A value a field held before it was replaced, and where it came from (None: as
    its parent's origin wrote it)."""

    value: JsonValue
    origin: Origin | None


@dataclass(frozen=True, slots=True)
class _Step:
    """One step of a walk down a traced tree: ``parent[key]``, the origin of ``parent``
    and of the value reached."""

    depth: int
    parent: JsonValue
    key: str | int
    parent_origin: Origin | None
    origin: Origin | None


def _at(origin: Origin | None, relative: list[str | int]) -> Origin | None:
    return origin.at(tuple(relative)) if origin is not None else None


def _below(value: JsonValue, path: FieldPath) -> JsonValue | _Missing:
    node: JsonValue | _Missing = value
    for key in path:
        if isinstance(node, _Missing):
            return node
        node = _child(node, key)
    return node


class _Missing:
    """A step that leaves the tree."""


_MISSING = _Missing()


def _child(node: JsonValue, key: str | int) -> JsonValue | _Missing:
    if isinstance(key, int):
        if isinstance(node, list) and 0 <= key < len(node):
            return node[key]
        return _MISSING
    if isinstance(node, dict) and key in node:
        return node[key]
    return _MISSING
