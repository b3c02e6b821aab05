"""Kubernetes resource quantities (``"100m"``, ``"2Gi"``, ``4``) as exact decimals.

Resource summaries and, later, PodGroup ``minResources`` sums must agree with what the
API server stores, so quantities are parsed with ``apimachinery``'s grammar and rounding
(``k8s.io/apimachinery/pkg/api/resource/quantity.go``) into :class:`~decimal.Decimal`,
never into floats: ``0.1 + 0.2`` CPU must be exactly ``300m``.
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Context, Decimal, InvalidOperation

from trainc.model.json import JsonValue

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
    text = _text(value)
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(f"{text!r} is not a quantity")
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


def quantity_value(amount: Decimal) -> int:
    """``Quantity.Value()``: the amount as an integer, rounded up away from zero."""
    return int(amount.to_integral_value(rounding=ROUND_UP))


def _text(value: JsonValue) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not a quantity")
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
