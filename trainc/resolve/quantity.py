"""Kubernetes resource quantities (``"100m"``, ``"2Gi"``, ``4``) as exact decimals.

Resource summaries and PodGroup ``minResources`` sums must agree with what the API
server stores, so quantities are parsed with ``apimachinery``'s grammar and rounding
(``k8s.io/apimachinery/pkg/api/resource/quantity.go``) into :class:`~decimal.Decimal`,
never into floats: ``0.1 + 0.2`` CPU must be exactly ``300m``. Sums are written back in
apimachinery's canonical form (``1250m``, ``2560Mi``), as Trainer's PodGroups carry them.
"""

from __future__ import annotations

import functools
import re
from decimal import ROUND_UP, Context, Decimal, InvalidOperation

from trainc.errors import CompilerBug
from trainc.model.json import JsonValue
from trainc.model.patterns import QUANTITY

#: The largest magnitude a Quantity holds; apimachinery caps larger values at it.
MAX_QUANTITY = Decimal(2**63 - 1)
#: The finest precision a Quantity keeps; smaller non-zero amounts round up to it.
NANO = Decimal("1e-9")
#: Longest quantity text trainc parses: ample for 19 integer and 9 fractional digits
#: with padding, and a bound on the arithmetic hostile input can ask for.
MAX_QUANTITY_LENGTH = 128

_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<binary>[KMGTPE]i)|[eE](?P<exponent>[+-]?[0-9]+)|(?P<decimal>[numkMGTPE]))?"
)
_DECIMAL_SI = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SI = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {0: "", **{exponent: suffix for suffix, exponent in _DECIMAL_SI.items()}}
_BINARY_SUFFIX = {0: "", **{power // 10: suffix for suffix, power in _BINARY_SI.items()}}
_KIBI = 1024
_INT32_MAX = 2**31 - 1
# Enough precision for every value that survives the magnitude checks (at most
# MAX_QUANTITY_LENGTH digits times 2**60), so only the nano rounding ever rounds.
_EXACT = Context(prec=MAX_QUANTITY_LENGTH + 40, Emax=10**6, Emin=-(10**6), traps=[InvalidOperation])


class QuantityError(ValueError):
    """The value is not a Kubernetes quantity."""


def parse_quantity(value: JsonValue) -> Decimal:
    """The amount ``value`` denotes, rounded and capped as apimachinery's ParseQuantity does.

    Accepts a string or a YAML number (the API server reads an unquoted number's text).
    Non-zero amounts below one nano round up, away from zero, to 1n; magnitudes above
    2^63-1 are capped there. Raises :class:`QuantityError` for anything else.
    """
    return _parse_text(_text(value))


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Decimal:
    """:func:`parse_quantity` of a quantity's text, remembered.

    A repository spells the same few amounts (``"4"``, ``"16Gi"``) thousands of times,
    and summaries and PodGroups parse them again for every job. The result is an
    immutable Decimal, and a QuantityError is raised afresh each time (never cached).
    """
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(f"{text!r} is not {QUANTITY.noun}")
    number = Decimal(match["number"])
    if match["binary"]:
        return _bounded(_EXACT.multiply(number, Decimal(2 ** _BINARY_SI[match["binary"]])))
    exponent = _DECIMAL_SI[match["decimal"]] if match["decimal"] else _exponent(match["exponent"])
    if number.is_zero():
        return Decimal(0)
    # Decide the magnitude before scaling, so 1e2000000000 costs nothing.
    magnitude = number.adjusted() + exponent
    if magnitude > len(str(MAX_QUANTITY)):
        return MAX_QUANTITY.copy_sign(number)
    if magnitude < -len(str(MAX_QUANTITY)):
        return NANO.copy_sign(number)
    return _bounded(number.scaleb(exponent, _EXACT))


def is_binary_quantity(value: JsonValue) -> bool:
    """Whether ``value`` is written with a binary suffix (``Ki`` ... ``Ei``).

    apimachinery remembers this as the quantity's format (BinarySI) and prints sums in
    it; every other spelling prints as DecimalSI here (trainc never needs the
    ``e<n>`` exponent form back).
    """
    match = _QUANTITY.fullmatch(value) if isinstance(value, str) else None
    return match is not None and match["binary"] is not None


def format_quantity(amount: Decimal, *, binary: bool = False) -> str:
    """``amount`` as apimachinery's ``Quantity.String()`` prints it: ``1250m``, ``2560Mi``.

    DecimalSI (the default) strips trailing zeros and picks the SI suffix whose power of
    1000 leaves an integer mantissa: ``1.25`` → ``1250m``, ``1500`` → ``1500``, ``2000``
    → ``2k``. BinarySI (``binary=True``) picks the largest power of 1024 that divides
    the amount (``2.5Gi`` → ``2560Mi``), but falls back to DecimalSI for magnitudes
    below 1024 and for fractions, which a binary suffix cannot show exactly. The amount
    is first rounded up to nano precision, as parsing would. Sums beyond 2^63 (which a
    single quantity cannot hold, so no SI suffix fits) print in exponent form.
    """
    rounded = amount.quantize(NANO, rounding=ROUND_UP, context=_EXACT)
    if rounded.is_zero():
        return "0"
    if binary and abs(rounded) >= _KIBI and rounded == rounded.to_integral_value():
        return _binary_text(int(rounded))
    return _decimal_text(rounded)


def _decimal_text(amount: Decimal) -> str:
    sign, digits, exponent = amount.as_tuple()
    if not isinstance(exponent, int):
        raise CompilerBug(f"cannot print {amount} as a quantity")
    mantissa = int("".join(map(str, digits)))
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3  # Python's modulo floors, so the exponent goes down to a multiple of 3
    mantissa *= 10**shift
    exponent -= shift
    suffix = _DECIMAL_SUFFIX.get(exponent, f"e{exponent}")
    return f"{'-' if sign else ''}{mantissa}{suffix}"


def _binary_text(amount: int) -> str:
    mantissa, power = abs(amount), 0
    while mantissa % _KIBI == 0 and power < max(_BINARY_SUFFIX):
        mantissa //= _KIBI
        power += 1
    return f"{'-' if amount < 0 else ''}{mantissa}{_BINARY_SUFFIX[power]}"


def quantity_value(amount: Decimal) -> int:
    """``Quantity.Value()``: the amount as an integer, rounded up away from zero."""
    return int(amount.to_integral_value(rounding=ROUND_UP))


def _text(value: JsonValue) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not {QUANTITY.noun}")
    text = value if isinstance(value, str) else repr(value)
    if len(text) > MAX_QUANTITY_LENGTH:
        raise QuantityError(f"quantity longer than {MAX_QUANTITY_LENGTH} characters")
    return text


def _exponent(digits: str | None) -> int:
    """The ``e<n>`` exponent; apimachinery parses it as a 32-bit integer."""
    exponent = int(digits) if digits else 0
    if abs(exponent) > _INT32_MAX:
        raise QuantityError(f"exponent {digits} is out of range")
    return exponent


def _bounded(amount: Decimal) -> Decimal:
    """Cap the magnitude, else round up to nano precision, in the plainest notation.

    apimachinery rounds first and caps second; capping first gives the same result
    because rounding up never brings a value above the cap back below it.
    """
    if abs(amount) > MAX_QUANTITY:
        return MAX_QUANTITY.copy_sign(amount)
    rounded = amount.quantize(NANO, rounding=ROUND_UP, context=_EXACT)
    if rounded == rounded.to_integral_value():
        return rounded.quantize(Decimal(1), context=_EXACT)
    return rounded.normalize(_EXACT)
