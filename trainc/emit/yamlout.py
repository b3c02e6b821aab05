"""The one YAML dumper: JSON-shaped data to deterministic, block-style YAML text.

Every YAML trainc writes (compiled manifests, generated CRDs) goes through
:func:`dump_yaml`, so key order, quoting and string styles are decided once:

- keys ``apiVersion``, ``kind``, ``metadata``, ``spec`` first, then alphabetical, at every
  level (so embedded templates read like top-level objects);
- block mappings indented by two, block sequences at their key's indentation, ``{}``
  and ``[]`` for empty collections;
- strings styled by the rules of :mod:`trainc.emit.yamlscalar`: plain only when every
  YAML 1.1 and 1.2 reader reads a string (``on``, ``0755``, ``1:20``, ``2024-01-01`` are
  quoted, because Kubernetes tooling still parses YAML 1.1), literal ``|`` blocks for
  multi-line text, double quotes with escapes for control characters;
- ``null``, ``true``/``false``, decimal integers, and floats that read back as the same
  float (``1.0``, ``1.0e+17``, never an integer);
- no anchors or aliases, no line folding, ``\\n`` line ends and a final newline.

The emitter is written for this data alone (dicts with string keys, lists, str, int,
float, bool, None) rather than through a general YAML library: it appends the lines
directly, about a hundred times faster than ruamel.yaml's emitter and eight times faster
than libyaml's, which made serialising the bulk of ``trainc compile``. The walk recurses
two frames per nesting level, so Python's default limit allows some 490 levels;
Kubernetes objects nest a few dozen.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from trainc.emit.yamlscalar import KEY_STYLES, STRING_STYLES, inline_style
from trainc.model.json import JsonValue

_LEADING_KEYS = ("apiVersion", "kind", "metadata", "spec")
_STEP = "  "


def _ordered_keys(mapping: dict[str, JsonValue]) -> list[str]:
    """The keys in output order: the leading keys present, then the rest sorted."""
    keys = sorted(mapping)
    if "spec" in mapping or "metadata" in mapping or "kind" in mapping or "apiVersion" in mapping:
        leading = [key for key in _LEADING_KEYS if key in mapping]
        keys = leading + [key for key in keys if key not in _LEADING_KEYS]
    return keys


def _float_text(value: float) -> str:
    """The shortest text that reads back as ``value``, as a float in YAML 1.1 and 1.2.

    ``repr`` gives ``1e+17`` for large floats, which YAML 1.1 reads as a string (its
    floats need a dot), hence ``1.0e+17``.
    """
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    return text if "." in text else text.replace("e", ".0e")


def _scalar_text(value: JsonValue) -> str:
    """A non-string scalar's text; other types are rejected, not guessed."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float_text(float(value))
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def _write_entry(
    head: str, value: JsonValue, indent: str, out: list[str], *, compact: bool
) -> None:
    """Write ``value`` after ``head``, a line start ending in ``key:``, ``-``, ``?`` or ``:``.

    ``indent`` is the column of that key or indicator. A nested collection starts on the
    same line after a sequence or explicit-key indicator (``compact``), on the next line
    after a key; a literal block's lines are indented one step past ``indent``.
    """
    if isinstance(value, str):
        style = STRING_STYLES[value]
        if isinstance(style, str):
            out.append(f"{head} {style}")
        else:
            out.append(f"{head} {style.header}")
            inner = indent + _STEP
            out.extend([inner + line if line else "" for line in style.lines])
    elif isinstance(value, dict):
        if not value:
            out.append(head + " {}")
        elif compact:
            _write_mapping(value, head + " ", indent + _STEP, out)
        else:
            out.append(head)
            _write_mapping(value, indent + _STEP, indent + _STEP, out)
    elif isinstance(value, list):
        if not value:
            out.append(head + " []")
        elif compact:
            _write_sequence(value, head + " ", indent + _STEP, out)
        else:
            out.append(head)
            _write_sequence(value, indent, indent, out)
    else:
        out.append(f"{head} {_scalar_text(value)}")


def _write_mapping(mapping: dict[str, JsonValue], first: str, indent: str, out: list[str]) -> None:
    """Write a non-empty mapping whose keys sit at ``indent``; ``first`` starts line one.

    A key that cannot be implicit (long, or with line breaks) becomes an explicit
    ``? key`` line followed by ``: value``, both laid out like sequence items.
    """
    start = first
    for key in _ordered_keys(mapping):
        value = mapping[key]
        key_style = KEY_STYLES[key]
        if key_style is None:
            _write_entry(start + "?", key, indent, out, compact=True)
            _write_entry(indent + ":", value, indent, out, compact=True)
        else:
            _write_entry(start + key_style, value, indent, out, compact=False)
        start = indent


def _write_sequence(sequence: list[JsonValue], first: str, indent: str, out: list[str]) -> None:
    """Write a non-empty sequence whose ``-`` indicators sit at ``indent``."""
    start = first
    for item in sequence:
        _write_entry(start + "-", item, indent, out, compact=True)
        start = indent


def _write_document(document: JsonValue, out: list[str]) -> None:
    """Write one document; a scalar one on one line (no block scalar at the root)."""
    if isinstance(document, dict) and document:
        _write_mapping(document, "", "", out)
    elif isinstance(document, list) and document:
        _write_sequence(document, "", "", out)
    elif isinstance(document, dict | list):
        out.append("{}" if isinstance(document, dict) else "[]")
    elif isinstance(document, str):
        out.append(inline_style(document))
    else:
        out.append(_scalar_text(document))
    if not out[-1]:
        # Only a keep-chomped block (``|+``) ends in an empty line: the end marker
        # closes it, as ruamel.yaml did, so no trailing text can join its last lines.
        out.append("...")


def dump_yaml(documents: Sequence[JsonValue]) -> str:
    """Serialise ``documents`` as one YAML stream, separated by ``---`` lines.

    The result depends only on the data: neither dict insertion order nor the identity
    of shared sub-objects shows in the output. Subclasses of the JSON types (a
    ``StrEnum`` member) are written as their base type; anything else raises TypeError.
    """
    out: list[str] = []
    for document in documents:
        if out:
            out.append("---")
        _write_document(document, out)
    return "\n".join(out) + "\n" if out else ""
