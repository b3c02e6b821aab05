"""Typing YAML scalars exactly as kubectl and Argo CD do, up to the JSON they send.

kubectl and Argo CD read manifests with sigs.k8s.io/yaml: go-yaml **v2** (the
``goyaml.v2`` fork) unmarshals a document into ``interface{}``,
``convertToJSONableObject`` (``yaml.go``) turns the map keys into strings, and
``json.Marshal`` writes the JSON that the API machinery decodes again, numbers as int64
when they are integral and fit, float64 otherwise. trainc's data is that last value, so
both parse paths (:mod:`trainc.load.fastyaml`, :mod:`trainc.load.ruamelyaml`) hand this
module the scalar's text, its explicit tag and whether it is plain, and get the same
value. The rules, from ``goyaml.v2/resolve.go`` (``resolve``) and ``decode.go``
(``scalar``):

- A quoted or block scalar without a tag is a string. So is a scalar with the
  non-specific tag ``!`` (``! 12`` is ``"12"``, a bare ``!`` is ``""``) and one with a
  tag go-yaml does not resolve (``!thing``), except ``!!binary``: its base64 text is
  decoded, and bytes that are not UTF-8 become U+FFFD as ``json.Marshal`` writes them.
- A plain scalar is first looked up in the resolve map: ``y Y yes Yes YES on On ON true
  True TRUE`` are true, ``n N no No NO off Off OFF false False FALSE`` false, ``~ null
  Null NULL`` and the empty scalar null, ``.nan .NaN .NAN`` NaN and ``.inf``, ``+.inf``,
  ``-.inf`` (each also ``.Inf``, ``.INF``) infinities; ``<<`` is the merge key.
- Otherwise its first character decides. After ``.``: Go's ``strconv.ParseFloat`` of
  the text (``.5``, ``.5e3``). After a digit, ``+`` or ``-``: a timestamp (which stays
  its text: go-yaml keeps timestamps into ``interface{}`` as strings), then, on the text
  without ``_``: ``ParseInt(text, 0, 64)`` (Go's base 0: ``0x``, ``0o``, ``0b`` in either
  case, a leading ``0`` for octal, an optional sign), ``ParseUint``, the
  ``yamlStyleFloat`` pattern ``^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$``
  with ``ParseFloat`` (so ``08`` and ``09`` are the float 8 and 9), ``0b``/``-0b``
  binary in base 2, and an integer of any size (``math/big``) when ``ParseUint``
  overflowed. A float out of range (``1e400``) and anything else are text. There is
  no base 60: ``1:30`` and ``12:30:00`` are strings.
- A scalar with an explicit tag (``!!int``, ``!!float``, ``!!bool``, ``!!null``,
  ``!!timestamp``) is resolved the same way and must come back with that tag
  (``!!float`` also takes an integer, as a float); anything else fails kubectl
  (``cannot decode !!str `twelve` as a !!int``). ``!!str`` keeps the text.

What goes out as JSON (:func:`json_value`): trainc holds go-yaml's value (an int or a
float as go-yaml typed it: ``1e3`` is 1000.0, sent as the JSON number ``1000``), except
what ``json.Marshal`` cannot write: NaN and infinities fail kubectl (``json: unsupported
value: +Inf``), and are a finding with the text kept. The API machinery then decodes a
JSON number as int64 when it is integral and fits, float64 otherwise; an integer past
float64 cannot be decoded and is a finding too.

Mapping keys (:func:`key_text`): an int becomes its digits, a bool ``true``/``false``, a
float its ``FormatFloat(f, 'g', -1, 32)`` text; null, uint64 and big integers fail.

There are no YAML versions here: go-yaml reads every document by these rules, and
kubectl refuses any ``%YAML`` or ``%TAG`` directive (see
:mod:`trainc.load.ruamelyaml`).
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import struct
from collections.abc import Callable

from trainc.model.json import JsonValue
from trainc.records import dataclass

TAG_PREFIX = "tag:yaml.org,2002:"
STR_TAG = TAG_PREFIX + "str"
MERGE_TAG = TAG_PREFIX + "merge"
_NULL_TAG = TAG_PREFIX + "null"
_BOOL_TAG = TAG_PREFIX + "bool"
_INT_TAG = TAG_PREFIX + "int"
_FLOAT_TAG = TAG_PREFIX + "float"
_TIMESTAMP_TAG = TAG_PREFIX + "timestamp"
_BINARY_TAG = TAG_PREFIX + "binary"
#: The tags go-yaml's ``resolve`` types (``resolvableTag``); any other keeps the text.
_RESOLVABLE = frozenset(("", STR_TAG, _BOOL_TAG, _INT_TAG, _FLOAT_TAG, _NULL_TAG, _TIMESTAMP_TAG))

#: A base prefix with at least one digit after it: ``0x1``.
_PREFIX_LENGTH = 3
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1

#: go-yaml's ``resolveMap``: the words a plain scalar is looked up by first.
_RESOLVE_MAP: dict[str, tuple[str, object]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"), ("bool", True)),
    **dict.fromkeys(("on", "On", "ON"), ("bool", True)),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE"), ("bool", False)),
    **dict.fromkeys(("off", "Off", "OFF"), ("bool", False)),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), ("null", None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), ("float", math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), ("float", math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), ("float", -math.inf)),
    "<<": ("merge", "<<"),
}
#: go-yaml's ``resolveTable``: which first characters lead where ("M": the map only).
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D")}
_HINTS.update({**dict.fromkeys("yYnNtTfFoO~", "M"), ".": "."})
#: ``yamlStyleFloat``, and what Go's ParseFloat takes of a text that starts with a dot.
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
_TAG_NAMES = {
    _NULL_TAG: "null",
    _BOOL_TAG: "bool",
    _INT_TAG: "int",
    _FLOAT_TAG: "float",
    _TIMESTAMP_TAG: "timestamp",
}


class ScalarError(ValueError):
    """kubectl refuses the file because of this scalar; the message says how."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True, slots=True)
class Resolved:
    """A scalar as go-yaml resolves it: its kind and its Go value.

    ``kind`` is ``null``, ``bool``, ``int`` (Go ``int``), ``uint`` (``uint64``),
    ``bigint`` (``*big.Int``), ``float``, ``timestamp`` (kept as its text), ``merge``
    or ``str``; the value is the Python equivalent.
    """

    kind: str
    value: object


# --------------------------------------------------------------------------- Go numbers


class _GoNumError(Exception):  # strconv.NumError, with whether it is ErrRange
    def __init__(self, *, overflow: bool) -> None:
        super().__init__("range" if overflow else "syntax")
        self.overflow = overflow


def _digit(character: str) -> int:
    """A digit's value as strconv reads it (letters are 10 to 35); 99 for anything else."""
    if "0" <= character <= "9":
        return ord(character) - 48
    lower = character.lower()
    return ord(lower) - 87 if "a" <= lower <= "z" and character.isascii() else 99


def parse_uint(text: str, base: int) -> int:
    """``strconv.ParseUint(text, base, 64)`` without underscores; raises _GoNumError.

    As in Go, overflow is reported as soon as it happens, before the digits after it are
    looked at, and base 0 reads the prefixes ``0b``, ``0o``, ``0x`` (either case, only
    when a digit follows the prefix letter) and a leading ``0`` as octal.
    """
    if not text:
        raise _GoNumError(overflow=False)
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower()
            if len(text) >= _PREFIX_LENGTH and prefix in ("b", "o", "x"):
                base = {"b": 2, "o": 8, "x": 16}[prefix]
                text = text[2:]
            else:
                base = 8
                text = text[1:]
    value = 0
    for character in text:
        digit = _digit(character)
        if digit >= base:
            raise _GoNumError(overflow=False)
        value = value * base + digit
        if value > _UINT64_MAX:
            raise _GoNumError(overflow=True)
    return value


def parse_int(text: str, base: int) -> int:
    """``strconv.ParseInt(text, base, 64)``: an optional sign, then :func:`parse_uint`."""
    if not text:
        raise _GoNumError(overflow=False)
    negative = text[0] == "-"
    magnitude = parse_uint(text[1:] if text[0] in "+-" else text, base)
    if (not negative and magnitude > _INT64_MAX) or magnitude > -_INT64_MIN:
        raise _GoNumError(overflow=True)
    return -magnitude if negative else magnitude


def _parse_float(text: str) -> float | None:
    """Go's ParseFloat of a text already known to be well formed; None when out of range."""
    value = float(text)
    return None if math.isinf(value) else value


def _big_int(text: str) -> int | None:
    """``new(big.Int).SetString(text, 0)``: any size, sign and base prefix; or None."""
    sign = -1 if text[:1] == "-" else 1
    digits = text[1:] if text[:1] in ("+", "-") else text
    base = 10
    if digits[:1] == "0" and len(digits) > 1:
        prefix = digits[1].lower()
        base, digits = {"b": (2, digits[2:]), "o": (8, digits[2:]), "x": (16, digits[2:])}.get(
            prefix, (8, digits[1:])
        )
    if not digits or any(_digit(character) >= base for character in digits):
        return None
    return sign * int(digits, base)


# --------------------------------------------------------------------------- timestamps


#: go-yaml's timestamp layouts, as Go's time.Parse reads them: one- or two-digit fields,
#: an optional fraction (after a dot or a comma), and a zone (``Z`` or ``±hh:mm``) after
#: ``T`` or ``t`` but none after a space; the ranges are checked by :func:`is_timestamp`.
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[-+]([0-9]{2}):([0-9]{2}))"
    r"| ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?)?"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_FEBRUARY = 2
_HOURS = 24
_MINUTES = 60


def is_timestamp(text: str) -> bool:
    """Whether go-yaml's ``parseTimestamp`` takes ``text``: Go's time.Parse with one of
    ``2006-1-2T15:4:5.999999999Z07:00`` (also with ``t``), ``2006-1-2 15:4:5.999999999``
    and ``2006-1-2``: a real calendar day, hours under 24, minutes and seconds under 60,
    and a zone offset of at most 24 hours and 60 minutes.
    """
    found = _TIMESTAMP.fullmatch(text)
    if found is None:
        return False
    year, month, day = (int(part) for part in found.group(1, 2, 3))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= month <= len(_DAYS):
        return False
    last_day = _DAYS[month - 1] - (month == _FEBRUARY and not leap)
    clock = [int(part or 0) for part in found.group(4, 5, 6, 9, 10, 11)]
    zone = [int(part or 0) for part in found.group(7, 8)]
    return (
        1 <= day <= last_day
        and max(clock[0], clock[3]) < _HOURS
        and max(clock[1], clock[2], clock[4], clock[5]) < _MINUTES
        and zone[0] <= _HOURS
        and zone[1] <= _MINUTES
    )


# --------------------------------------------------------------------------- resolving


def resolve_plain(text: str) -> Resolved:
    """go-yaml's ``resolve("", text)``: what an untagged plain scalar is.

    Short texts are memoised: keys and common values repeat in every document.
    """
    if len(text) <= _MEMO_LENGTH:
        return _resolve_memo(text)
    return _resolve(text, timestamps=True)


#: The longest plain scalar :func:`resolve_plain` memoises (keys, names, numbers).
_MEMO_LENGTH = 64


@functools.lru_cache(maxsize=1 << 14)
def _resolve_memo(text: str) -> Resolved:
    return _resolve(text, timestamps=True)


def _resolve(text: str, *, timestamps: bool) -> Resolved:
    found = _RESOLVE_MAP.get(text)
    if found is not None:
        return Resolved(*found)
    hint = _HINTS.get(text[:1])
    if hint == ".":
        if _DOT_FLOAT.fullmatch(text):
            value = _parse_float(text)
            if value is not None:
                return Resolved("float", value)
    elif hint in ("D", "S"):
        if timestamps and is_timestamp(text):
            return Resolved("timestamp", text)
        return _number(text)
    return Resolved("str", text)


def _number(text: str) -> Resolved:
    """The numeric part of ``resolve`` for a text that starts with a digit or a sign."""
    plain = text.replace("_", "")
    overflow = False
    for kind, parse in (("int", parse_int), ("uint", parse_uint)):
        try:
            return Resolved(kind, parse(plain, 0))
        except _GoNumError as error:
            overflow = error.overflow  # ParseUint's error is the one that counts
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        value = _parse_float(plain)
        if value is not None:
            return Resolved("float", value)
    binary = _binary_digits(plain)
    if binary is not None:
        return binary
    if overflow:
        big = _big_int(plain)
        if big is not None:
            return Resolved("bigint", big)
    return Resolved("str", text)


def _binary_digits(plain: str) -> Resolved | None:
    """go-yaml's ``0b`` and ``-0b`` branches: the digits after the prefix in base 2 (so
    ``0b-1`` is -1, which base 0 refused)."""
    attempts: tuple[tuple[Callable[[str, int], int], str, str], ...]
    if plain.startswith("0b"):
        attempts = ((parse_int, "int", plain[2:]), (parse_uint, "uint", plain[2:]))
    elif plain.startswith("-0b"):
        attempts = ((parse_int, "int", "-" + plain[3:]),)
    else:
        return None
    for parse, kind, digits in attempts:
        try:
            return Resolved(kind, parse(digits, 2))
        except _GoNumError:
            pass
    return None


def resolve_tagged(tag: str, text: str) -> Resolved:
    """go-yaml's ``resolve(tag, text)`` for an explicit tag; raises ScalarError.

    ``tag`` is the full tag (``tag:yaml.org,2002:int``, ``!thing``); ``!`` and unknown
    tags keep the text, ``!!binary`` decodes it.
    """
    if tag == _BINARY_TAG:
        return Resolved("str", _binary(text))
    if tag not in _RESOLVABLE:
        return Resolved("str", text)
    if tag == STR_TAG:
        return Resolved("str", text)
    resolved = _resolve(text, timestamps=tag == _TIMESTAMP_TAG)
    wanted = _TAG_NAMES[tag]
    if resolved.kind == wanted:
        return resolved
    if wanted == "float" and resolved.kind == "int" and isinstance(resolved.value, int):
        return Resolved("float", float(resolved.value))
    got = {"uint": "int", "bigint": "int"}.get(resolved.kind, resolved.kind)
    raise ScalarError(
        f"{text!r} is not a valid !!{wanted}: kubectl refuses the file "
        f"(cannot decode !!{got} `{text}` as a !!{wanted})",
        hint="fix the value or drop the tag",
    )


def _binary(text: str) -> str:
    """A ``!!binary`` scalar as kubectl sends it: the decoded bytes, each byte that is not
    UTF-8 replaced by U+FFFD (Go's base64 skips line breaks, nothing else)."""
    try:
        data = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        raise ScalarError(
            "the !!binary value is not valid base64: kubectl refuses the file",
            hint="fix the base64 text, or drop !!binary to keep the text as it is",
        ) from None
    decoded = data.decode("utf-8", "surrogateescape")
    return re.sub("[\udc80-\udcff]", "\ufffd", decoded)


def resolve_scalar(tag: str | None, text: str, *, plain: bool) -> Resolved:
    """go-yaml's decoder: a scalar with its explicit tag (None if it has none).

    Raises ScalarError where kubectl fails.
    """
    if tag is None:
        return resolve_plain(text) if plain else Resolved("str", text)
    return resolve_tagged(tag, text)


# --------------------------------------------------------------------------- to JSON


def json_value(resolved: Resolved, text: str) -> JsonValue:
    """go-yaml's value as trainc holds it, where ``json.Marshal`` can write it; raises
    ScalarError where kubectl fails.

    ``json.Marshal`` refuses NaN and infinities. Numbers keep go-yaml's type: ``1e3`` is
    the float 1000.0, which goes out as the JSON number ``1000``; an integer past int64
    goes out as its digits (and the API machinery decodes it as a float64), past
    float64 it cannot be decoded at all. Timestamps and merge keys are their text.
    """
    value = resolved.value
    kind = resolved.kind
    if kind == "float" and isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            sent = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
            raise ScalarError(
                f"{text!r} is read as a float {'NaN' if sent == 'NaN' else 'infinity'}, which "
                f"JSON cannot hold: kubectl refuses the file (json: unsupported value: {sent})",
                hint=f'quote it if it is text: "{text}"',
            )
        return value
    if kind in ("int", "uint", "bigint") and isinstance(value, int):
        _decodable(value, text)
        return value
    if kind == "bool":
        return bool(value)
    if kind == "null":
        return None
    return str(value)


def _decodable(integer: int, text: str) -> None:
    """Raise ScalarError for an integer the API machinery cannot decode (past float64)."""
    try:
        float(integer)
    except OverflowError:
        raise ScalarError(
            f"{text!r} is an integer too large for any JSON number the API server reads: "
            "kubectl refuses the file",
            hint=f'quote it if it is text: "{text}"',
        ) from None


def json_number(text: str) -> int | float:
    """A JSON number of a ``.json`` file, typed as JSON types it (an integer without a
    fraction or exponent, a float otherwise); raises ScalarError when the API machinery
    cannot decode it (``1e400`` does not fit a float64)."""
    if not any(character in text for character in ".eE"):
        integer = int(text)
        _decodable(integer, text)
        return integer
    number = float(text)
    if math.isinf(number):
        raise ScalarError(
            f"the number {text} does not fit a float64: kubectl and Argo CD refuse the "
            f"file (cannot unmarshal number {text} into Go value of type float64)",
            hint="write a smaller number, or quote it",
        )
    return number


def key_text(resolved: Resolved) -> str | None:
    """The string kubectl makes of a mapping key (``convertToJSONableObject``), or None
    when it refuses the key (null, uint64 and big integers)."""
    kind = resolved.kind
    value = resolved.value
    if kind in ("str", "timestamp", "merge"):
        return str(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "int":
        return str(value)
    if kind == "float" and isinstance(value, float):
        return _go_float32_text(value)
    return None


#: The decimal exponents Go's ``'g'`` format writes without an exponent (shortest form).
_FIXED_EXPONENTS = (-4, 6)


def _go_float32_text(number: float) -> str:
    """``strconv.FormatFloat(number, 'g', -1, 32)``, infinities and NaN as YAML writes them."""
    if math.isnan(number):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", number))[0]
    except OverflowError:
        single = math.copysign(math.inf, number)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    candidate = f"{single:.8e}"  # nine digits always read back as the float32
    for precision in range(1, 10):  # the shortest digits that read back as this float32
        candidate = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(candidate)))[0] == single:
            break
    mantissa, exponent_text = candidate.split("e")
    exponent = int(exponent_text)
    digits = mantissa.replace(".", "").lstrip("-").rstrip("0") or "0"
    sign = "-" if single < 0 else ""
    if not _FIXED_EXPONENTS[0] <= exponent < _FIXED_EXPONENTS[1]:  # Go's %g switch
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, fraction = digits[: exponent + 1], digits[exponent + 1 :]
    whole = whole.ljust(exponent + 1, "0")
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def is_merge(tag: str | None, text: str, *, plain: bool) -> bool:
    """go-yaml's ``isMerge``: the text ``<<``, plain (or tagged ``!``) or tagged ``!!merge``."""
    return text == "<<" and ((tag is None and plain) or tag in ("!", MERGE_TAG))


def kind_noun(kind: str) -> str:
    """How a resolved kind reads in a message."""
    return {
        "null": "null",
        "bool": "a boolean",
        "int": "an integer",
        "uint": "an unsigned 64-bit integer",
        "bigint": "an integer beyond 64 bits",
        "float": "a float",
    }.get(kind, "a string")
