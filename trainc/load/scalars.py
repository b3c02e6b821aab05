"""Typing the text of a YAML scalar by its resolved tag: null, bool, int and float.

The parsers only compose nodes and resolve tags; the values are typed here, once, so the
libyaml fast path (:mod:`trainc.load.fastyaml`) and the ruamel path
(:mod:`trainc.load.ruamelyaml`) agree by construction. The rules are ruamel.yaml's
``SafeConstructor`` ones, which trainc has always applied (``tests/load/test_scalars.py``
compares the two on generated text): underscores are dropped, ``0b``/``0x``/``0o``
prefixes are read, and a ``%YAML 1.1`` document (trainc's default, as kubectl reads
manifests) also reads ``010`` as octal and ``1:20`` as base 60.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

from trainc.model.json import JsonValue

Version = tuple[int, int]
#: The YAML version of a document without a ``%YAML`` directive, as kubectl reads it.
YAML_1_1: Version = (1, 1)
_YAML_1_2: Version = (1, 2)

TAG_PREFIX = "tag:yaml.org,2002:"
_BOOLS = {
    "yes": True,
    "no": False,
    "y": True,
    "n": False,
    "true": True,
    "false": False,
    "on": True,
    "off": False,
}
_PREFIXED_BASES = {"0b": 2, "0x": 16, "0o": 8}
_Number = TypeVar("_Number", int, float)


def _signed(text: str) -> tuple[int, str]:
    """The sign and the rest of a number's text; IndexError for empty text, as ruamel."""
    sign = -1 if text[0] == "-" else 1
    return sign, text[1:] if text[0] in "+-" else text


def _base60(digits: list[_Number], zero: _Number) -> _Number:
    """A sexagesimal number, summed from the last digit up as ruamel does (same rounding)."""
    value = zero
    base = 1
    for digit in reversed(digits):
        value += digit * base
        base *= 60
    return value


def yaml_bool(text: str, version: Version) -> bool:
    """``yes``/``no``, ``y``/``n``, ``true``/``false``, ``on``/``off`` in any case."""
    return _BOOLS[text.lower()]


def yaml_int(text: str, version: Version) -> int:
    """An integer; raises ValueError (or IndexError for empty text) when it is none."""
    sign, digits = _signed(text.replace("_", ""))
    base = _PREFIXED_BASES.get(digits[:2])
    if base is not None:
        return sign * int(digits[2:], base)
    if version == YAML_1_1 and digits[0] == "0":
        return sign * int(digits, 8)
    if version == YAML_1_1 and ":" in digits:
        return sign * _base60([int(part) for part in digits.split(":")], 0)
    return sign * int(digits)


def yaml_float(text: str, version: Version) -> float:
    """A float, ``.inf`` and ``.nan`` included; raises ValueError (IndexError) otherwise."""
    sign, digits = _signed(text.replace("_", "").lower())
    if digits == ".inf":
        return sign * math.inf
    if digits == ".nan":
        return math.nan
    if version != _YAML_1_2 and ":" in digits:
        return sign * _base60([float(part) for part in digits.split(":")], 0.0)
    return sign * float(digits)


def yaml_null(text: str, version: Version) -> None:
    """Any text tagged null (``~``, ``null``, empty, or ``!!null x``) is null."""


_TYPED: dict[str, Callable[[str, Version], JsonValue]] = {
    TAG_PREFIX + "null": yaml_null,
    TAG_PREFIX + "bool": yaml_bool,
    TAG_PREFIX + "int": yaml_int,
    TAG_PREFIX + "float": yaml_float,
}


def typed_scalar(tag: str, text: str, version: Version) -> JsonValue:
    """The value of a scalar; every tag but null, bool, int and float keeps its text.

    Timestamps, ``!!binary`` and custom tags stay text because Kubernetes decodes YAML
    through JSON, where they are strings. Raises ValueError, KeyError or IndexError when
    the text does not fit its (explicit) tag, e.g. ``!!int twelve``.
    """
    typed = _TYPED.get(tag)
    return text if typed is None else typed(text, version)
