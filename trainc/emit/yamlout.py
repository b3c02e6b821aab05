"""The one YAML dumper: JSON-shaped data to deterministic, block-style YAML text.

Every YAML trainc writes (compiled manifests, generated CRDs) goes through
:func:`dump_yaml`, so key order, quoting and string styles are decided once:

- keys ``apiVersion``, ``kind``, ``metadata``, ``spec`` first, then alphabetical, at every
  level (so embedded templates read like top-level objects);
- strings that any YAML 1.1 or 1.2 reader would take for something else (``on``, ``0755``,
  ``1:20``, ``null``, ``2024-01-01``) are single-quoted, because Kubernetes tooling still
  parses YAML 1.1;
- multi-line strings become literal ``|`` blocks; text with control characters or
  YAML 1.1 line breaks (NEL, LS, PS) is double-quoted with escapes instead, the only
  style that reproduces it exactly;
- no anchors or aliases, no line folding, UTF-8 text with ``\\n`` line ends and a final
  newline.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.resolver import implicit_resolvers
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from trainc.model.json import JsonValue

_LEADING_KEYS = ("apiVersion", "kind", "metadata", "spec")
_KEY_RANK = {key: rank for rank, key in enumerate(_LEADING_KEYS)}

# Text YAML can carry unescaped: printable characters except the YAML 1.1 line breaks
# (NEL, LS, PS) and the byte-order mark. Anything else goes in a double-quoted scalar,
# the only style with escapes.
_RAW_TEXT = re.compile(
    "[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)

# Effectively infinite: a folded line would change the bytes of long CEL rules and
# descriptions between ruamel versions, and reviewers diff them.
_NO_FOLDING = 1 << 30


class _Representer(RoundTripRepresenter):
    """ruamel's round-trip representer with explicit nulls and no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        """Never emit anchors: the same dict may sit at two places of a generated tree."""
        return True

    def represent_none(self, data: Any) -> ScalarNode:
        """Spell null out; ruamel's round-trip default is an empty value."""
        return self.represent_scalar("tag:yaml.org,2002:null", "null")


_Representer.add_representer(type(None), _Representer.represent_none)


def _key_order(key: str) -> tuple[int, str]:
    return (_KEY_RANK.get(key, len(_LEADING_KEYS)), key)


def _resolvers_by_first_char() -> dict[str, list[re.Pattern[str]]]:
    """ruamel's implicit-type patterns of every YAML version, by the first characters they allow."""
    table: dict[str, list[re.Pattern[str]]] = {}
    for _, _, regexp, first in implicit_resolvers:
        compiled = re.compile(regexp.pattern, regexp.flags)  # unwraps ruamel's lazy pattern
        for char in first or [""]:
            table.setdefault(char, []).append(compiled)
    return table


_RESOLVERS = _resolvers_by_first_char()


def _is_ambiguous(text: str) -> bool:
    """True when a YAML 1.1 or 1.2 reader would resolve the plain scalar to a non-string."""
    return any(regexp.match(text) for regexp in _RESOLVERS.get(text[:1], ()))


def _styled(text: str) -> str:
    """``text`` escaped, as a literal block, single-quoted, or left to ruamel's choice."""
    styled: str = text
    if not _RAW_TEXT.fullmatch(text):
        styled = DoubleQuotedScalarString(text)
    elif "\n" in text:
        styled = LiteralScalarString(text)
    elif _is_ambiguous(text):
        styled = SingleQuotedScalarString(text)
    return styled


def _prepare(value: JsonValue) -> object:
    """Copy ``value`` into ruamel's types, carrying key order and string styles."""
    if isinstance(value, dict):
        ordered = CommentedMap()
        for key in sorted(value, key=_key_order):
            ordered[_styled(key)] = _prepare(value[key])
        return ordered
    if isinstance(value, list):
        return [_prepare(item) for item in value]
    if isinstance(value, str):
        return _styled(value)
    return value


def _dumper() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.Representer = _Representer
    yaml.width = _NO_FOLDING
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.allow_unicode = True
    yaml.default_flow_style = False
    return yaml


def dump_yaml(documents: Sequence[JsonValue]) -> str:
    """Serialise ``documents`` as one YAML stream, separated by ``---`` lines.

    The result depends only on the data: neither dict insertion order nor the identity
    of shared sub-objects shows in the output.
    """
    yaml = _dumper()
    parts: list[str] = []
    for document in documents:
        stream = io.StringIO()
        yaml.dump(_prepare(document), stream)
        parts.append(stream.getvalue())
    return "---\n".join(parts)
