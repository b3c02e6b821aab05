"""The dumper trainc used before its own emitter: ruamel.yaml, configured for trainc.

It stays here as an oracle. The emitter in :mod:`trainc.emit.yamlout` is meant to write
the same bytes for every mapping document, so a byte comparison checks its layout,
indentation, key order and string styles against a general YAML library. Two deliberate
differences are carried over into the oracle, so that it checks everything else:

- whether a plain string would be retyped is judged by :func:`resolves_to_non_string`
  as well as by ruamel's own resolvers (the emitter also quotes the forms go-yaml reads
  as numbers; ``test_yamlscalar`` checks the predicate against real readers);
- a literal block starting with a tab gets an indentation indicator, which libyaml
  needs and ruamel did not write.

Floats whose ``repr`` has no dot (``1e+17``) and scalar documents are left out of the
comparison: ruamel wrote the former in a form YAML 1.1 reads as a string, and the
latter (which trainc never writes) as block scalars at column 0.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.resolver import implicit_resolvers
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from trainc.emit.yamlscalar import resolves_to_non_string
from trainc.model.json import JsonValue

_LEADING_KEYS = ("apiVersion", "kind", "metadata", "spec")
_KEY_RANK = {key: rank for rank, key in enumerate(_LEADING_KEYS)}

# Printable characters except the YAML 1.1 line breaks and the byte-order mark.
_RAW_TEXT = re.compile(
    "[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)


class _Representer(RoundTripRepresenter):
    """ruamel's round-trip representer with explicit nulls and no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_none(self, data: Any) -> ScalarNode:
        return self.represent_scalar("tag:yaml.org,2002:null", "null")


_Representer.add_representer(type(None), _Representer.represent_none)


class _Emitter(RoundTripEmitter):
    """ruamel's emitter, with an indentation indicator on blocks that start with a tab."""

    def determine_block_hints(self, text: Any) -> Any:
        hints, indent, indicator = super().determine_block_hints(text)
        if text.startswith("\t"):
            return "2" + hints, 2, indicator
        return hints, indent, indicator


def _resolvers_by_first_char() -> dict[str, list[re.Pattern[str]]]:
    table: dict[str, list[re.Pattern[str]]] = {}
    for _, _, regexp, first in implicit_resolvers:
        compiled = re.compile(regexp.pattern, regexp.flags)  # unwraps ruamel's lazy pattern
        for char in first or [""]:
            table.setdefault(char, []).append(compiled)
    return table


_RESOLVERS = _resolvers_by_first_char()


def ruamel_resolves(text: str) -> bool:
    """True when one of ruamel's YAML 1.1 or 1.2 resolvers types the plain scalar ``text``."""
    return any(regexp.match(text) for regexp in _RESOLVERS.get(text[:1], ()))


def _styled(text: str) -> str:
    styled: str = text
    if not _RAW_TEXT.fullmatch(text):
        styled = DoubleQuotedScalarString(text)
    elif "\n" in text:
        styled = LiteralScalarString(text)
    elif ruamel_resolves(text) or resolves_to_non_string(text):
        styled = SingleQuotedScalarString(text)
    return styled


def _prepare(value: JsonValue) -> object:
    if isinstance(value, dict):
        ordered = CommentedMap()
        for key in sorted(value, key=lambda key: (_KEY_RANK.get(key, len(_LEADING_KEYS)), key)):
            ordered[_styled(key)] = _prepare(value[key])
        return ordered
    if isinstance(value, list):
        return [_prepare(item) for item in value]
    if isinstance(value, str):
        return _styled(value)
    return value


def ruamel_dump(documents: Sequence[JsonValue]) -> str:
    """``documents`` as the ruamel-based dumper wrote them."""
    yaml = YAML(typ="rt", pure=True)
    yaml.Representer = _Representer
    yaml.Emitter = _Emitter
    yaml.width = 1 << 30
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.allow_unicode = True
    yaml.default_flow_style = False
    parts: list[str] = []
    for document in documents:
        stream = io.StringIO()
        yaml.dump(_prepare(document), stream)
        parts.append(stream.getvalue())
    return "---\n".join(parts)
