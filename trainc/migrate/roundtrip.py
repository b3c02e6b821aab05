"""One YAML document read and written back by ruamel.yaml's round-trip mode.

Round-trip keeps what a person wrote: comments, key order, quoting and block or flow
style. What it cannot know it is told: the indentation of mappings and of list items (it
has one setting per dump, guessed here from the document), and that no line is to be
re-wrapped. Blank lines around the document are set aside and put back, as ruamel drops
trailing ones.

ruamel reads the document as YAML 1.2; kubectl reads YAML 1.1. Nothing here relies on the
two agreeing: the rewritten text is read again by trainc's own loader and compared with
the data the edits should give (:mod:`trainc.migrate.document`).
"""

from __future__ import annotations

import io
import itertools
import re
import sys
from collections.abc import MutableMapping, MutableSequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase, CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.scalarstring import ScalarString
from ruamel.yaml.tokens import CommentToken

#: A line that opens a block: ``key:`` (or ``- key:``) with nothing after it but a comment.
_OPENER = re.compile(r"^(?P<indent> *)(?:- +)*[^\s#-][^#]*:\s*(?:#.*)?$")
_ITEM = re.compile(r"^(?P<indent> *)- ")
#: ruamel's comment slots on a mapping key: index 2 holds the comment after its value.
_AFTER_VALUE = 2
_DEFAULT_LAYOUT = (2, 4, 2)


@dataclass(frozen=True, slots=True)
class Layout:
    """ruamel's indentation settings: mapping indent, list item content indent, dash offset."""

    mapping: int
    sequence: int
    offset: int

    @classmethod
    def guess(cls, text: str) -> Layout:
        """The indentation ``text`` uses, read off its first nested mapping and first list."""
        mapping = sequence = offset = None
        lines = [
            line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
        ]
        for line, following in itertools.pairwise(lines):
            opener = _OPENER.match(line)
            if opener is None:
                continue
            parent = len(opener["indent"]) + _dash_width(line)
            item = _ITEM.match(following)
            child = len(following) - len(following.lstrip(" "))
            if item is not None and offset is None and child >= parent:
                content = (
                    child
                    + 1
                    + len(following[child + 1 :])
                    - len(following[child + 1 :].lstrip(" "))
                )
                offset, sequence = child - parent, content - parent
            elif item is None and mapping is None and child > parent:
                mapping = child - parent
        default_mapping, default_sequence, default_offset = _DEFAULT_LAYOUT
        mapping = mapping or default_mapping
        if offset is None or sequence is None:
            return cls(mapping, mapping + default_sequence - default_mapping, default_offset)
        return cls(mapping, sequence, offset)


def _dash_width(line: str) -> int:
    """Columns the ``- `` prefixes of a line take before its key."""
    stripped = line.lstrip(" ")
    width = 0
    while stripped.startswith("- "):
        rest = stripped[2:].lstrip(" ")
        width += len(stripped) - len(rest)
        stripped = rest
    return width


def _yaml(layout: Layout) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = sys.maxsize  # never re-wrap a long line
    yaml.indent(mapping=layout.mapping, sequence=layout.sequence, offset=layout.offset)
    return yaml


@dataclass(frozen=True, slots=True)
class Loaded:
    """A document's tree, with what surrounds it in the text and how it is indented."""

    tree: Any
    layout: Layout
    before: str
    after: str


def load(text: str) -> Loaded:
    """The round-trip tree of one document's ``text`` (no ``---`` line)."""
    body = text.strip("\n")
    start = text.index(body) if body else 0
    layout = Layout.guess(body)
    tree = _yaml(layout).load(body + "\n")
    return Loaded(tree, layout, text[:start], text[start + len(body) + 1 :] if body else "")


def dump(loaded: Loaded) -> str:
    """The text of ``loaded.tree``, as its indentation and surrounding blank lines were."""
    stream = io.StringIO()
    _yaml(loaded.layout).dump(loaded.tree, stream)
    return loaded.before + stream.getvalue() + loaded.after


class RoundTripKit:
    """The :class:`~trainc.migrate.apply.Kit` for ruamel's commented tree."""

    def new_map(self) -> MutableMapping[Any, Any]:
        """An empty mapping."""
        return CommentedMap()

    def new_seq(self) -> MutableSequence[Any]:
        """An empty sequence."""
        return CommentedSeq()

    def insert(self, mapping: MutableMapping[Any, Any], index: int, key: str, value: Any) -> None:
        """Put ``key`` at position ``index``."""
        if isinstance(mapping, CommentedMap):
            mapping.insert(index, key, value)
        else:
            mapping[key] = value

    def replace(self, mapping: MutableMapping[Any, Any], key: str, value: Any) -> None:
        """Set the value of ``key`` in place, quoted as the old value was."""
        old = mapping[key]
        mapping[key] = (
            type(old)(value) if isinstance(old, ScalarString) and isinstance(value, str) else value
        )

    def detach(self, mapping: MutableMapping[Any, Any], key: str) -> str:
        """The comment lines after the value of ``key``, taken off it."""
        return _detach_following(mapping, key)

    def delete(self, mapping: MutableMapping[Any, Any], key: str, following: Any) -> Any:
        """Remove ``key``, keeping ``following`` where it stood; returns it if that is after
        ``mapping`` itself (the field was its only one)."""
        keys = list(mapping)
        index = keys.index(key)
        del mapping[key]
        _comments(mapping).pop(key, None)
        if not mapping and isinstance(mapping, CommentedMap):
            mapping.fa.set_flow_style()  # ``{}``, with the comment of its line after it
        if not following:
            return None
        if index > 0:
            _append(mapping, keys[index - 1], following)
        elif mapping and isinstance(mapping, CommentedMap):
            lines = (line.strip().removeprefix("#").strip() for line in following.splitlines())
            mapping.yaml_set_start_comment("\n".join(lines), indent=_column(mapping))
        else:
            return following
        return None

    def keep(self, parent: Any, key: Any, following: Any) -> None:
        """Put the comment lines ``following`` after the value of ``parent[key]``."""
        _append(parent, key, following)

    def rename(self, mapping: MutableMapping[Any, Any], key: str, new: str) -> None:
        """Rename ``key`` to ``new`` in place, with its comments."""
        index = list(mapping).index(key)
        value = mapping[key]
        comment = _comments(mapping).pop(key, None)
        del mapping[key]
        self.insert(mapping, index, new, value)
        if comment is not None:
            _comments(mapping)[new] = comment

    def adopt(self, mapping: MutableMapping[Any, Any], key: str, old: str) -> None:
        """Give ``mapping[key]`` the comment on the line of ``old``, which it replaces."""
        old_value, new_value = mapping[old], mapping[key]
        if not isinstance(old_value, CommentedBase) or not isinstance(new_value, CommentedBase):
            return
        # ruamel keeps the comment on a block key's line with the block's first lines.
        start = old_value.ca.comment
        if start and start[0] is not None:
            new_value.ca.comment = [start[0], [] if isinstance(new_value, CommentedSeq) else None]
            start[0] = None
        comments = _comments(mapping)
        if old in comments:
            comments[key] = comments.pop(old)


def _column(mapping: CommentedMap) -> int:
    """The column the keys of ``mapping`` start at, as it was read."""
    column = mapping.lc.col
    return column if isinstance(column, int) else 0


def _comments(node: Any) -> dict[Any, Any]:
    return node.ca.items if isinstance(node, CommentedBase) else {}


def _last_leaf(parent: Any, key: Any) -> tuple[Any, Any]:
    """Where the comment after the value of ``parent[key]`` is kept: its last scalar."""
    value = parent[key]
    if isinstance(value, CommentedMap) and len(value):
        return _last_leaf(value, list(value)[-1])
    if isinstance(value, CommentedSeq) and len(value):
        return _last_leaf(value, len(value) - 1)
    return parent, key


def _slot(holder: Any) -> int:
    """ruamel's comment slot after a value: 2 for a mapping's key, 0 for a list item."""
    return _AFTER_VALUE if isinstance(holder, CommentedMap) else 0


def _detach_following(parent: Any, key: Any) -> str:
    """Remove and return the whole-line comments after the value of ``parent[key]``: they
    introduce what follows it, so they stay in place when it goes or moves."""
    holder, leaf = _last_leaf(parent, key)
    slots = _comments(holder).get(leaf)
    token = slots[_slot(holder)] if slots else None
    if slots is None or not isinstance(token, CommentToken):
        return ""
    line, _, following = token.value.partition("\n")
    if line.strip():
        token.value = line + "\n"
    else:
        slots[_slot(holder)] = None
    return following


def _append(parent: Any, key: Any, text: str) -> None:
    """Put the comment lines ``text`` after the value of ``parent[key]``."""
    holder, leaf = _last_leaf(parent, key)
    if not isinstance(holder, CommentedBase):
        return
    slots = holder.ca.items.setdefault(leaf, [None, None, None, None])
    token = slots[_slot(holder)]
    if isinstance(token, CommentToken):
        token.value = token.value + text
    else:
        slots[_slot(holder)] = CommentToken("\n" + text, CommentMark(0), None)
