"""Kubernetes' quantity library: ``quantity('1.5G')``, comparisons, arithmetic, conversions.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go,
on apimachinery's ``resource.Quantity``; parsing and rounding are trainc's own model of
it, :mod:`trainc.resolve.quantity`. A value is carried as its exact decimal amount
(:mod:`.values`), so equal amounts are equal values whatever their spelling.
"""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

from trainc.resolve.quantity import QuantityError, parse_quantity
from trainc.schema.cel.library.declare import (
    Function,
    Library,
    LibraryError,
    Overload,
    member,
    succeeds,
)
from trainc.schema.cel.library.declare import global_function as function
from trainc.schema.cel.library.values import QUANTITY, unwrap, wrap

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: apimachinery's ErrFormatWrong pattern: text it matches failed on its suffix instead.
_FORMAT = re.compile(r"[+-]?[0-9.]+[eEinumkKMGTP]*[-+]?[0-9]*")
_FORMAT_WRONG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
#: Digits kept by sums and differences: any two parsed quantities add up exactly.
_PRECISION = 400


def amount(value: object) -> Decimal:
    """The amount of a Quantity value."""
    return Decimal(unwrap(value, QUANTITY))


def quantity_of(number: Decimal) -> dict[str, str]:
    """The Quantity value of ``number``, in its one canonical spelling."""
    text = format(number.normalize(), "f") if number else "0"
    return wrap(QUANTITY, text)


def to_quantity(text: str) -> dict[str, str]:
    """``quantity(<string>)``: ``ParseQuantity``'s error when ``text`` is no quantity."""
    try:
        return quantity_of(parse_quantity(text))
    except QuantityError:
        if _FORMAT.fullmatch(text):
            raise LibraryError("unable to parse quantity's suffix") from None
        raise LibraryError(_FORMAT_WRONG) from None


def _as_int64(number: Decimal) -> int | None:
    if number != number.to_integral_value():
        return None
    whole = int(number)
    return whole if _INT64_MIN <= whole <= _INT64_MAX else None


def _as_integer(value: object) -> int:
    whole = _as_int64(amount(value))
    if whole is None:
        raise LibraryError("cannot convert value to integer")
    return whole


def _compare(left: object, right: object) -> int:
    a, b = amount(left), amount(right)
    return (a > b) - (a < b)


def _plus(left: object, right: Decimal) -> dict[str, str]:
    with localcontext() as context:
        context.prec = _PRECISION
        return quantity_of(amount(left) + right)


def _add(left: object, right: object) -> dict[str, str]:
    return _plus(left, amount(right))


def _add_int(left: object, right: int) -> dict[str, str]:
    return _plus(left, Decimal(right))


def _sub(left: object, right: object) -> dict[str, str]:
    return _plus(left, -amount(right))


def _sub_int(left: object, right: int) -> dict[str, str]:
    return _plus(left, -Decimal(right))


def _sign(value: object) -> int:
    number = amount(value)
    return (number > 0) - (number < 0)


_Q = (QUANTITY,)
_QQ = (QUANTITY, QUANTITY)

QUANTITY_LIBRARY = Library(
    "quantity",
    (1, 28),
    (
        function("quantity", "string_to_quantity", ("string",), QUANTITY, to_quantity),
        function("isQuantity", "is_quantity_string", ("string",), "bool", succeeds(to_quantity)),
        Function("sign", (Overload("quantity_sign", _Q, "int", _sign, member=True),)),
        member(
            "isGreaterThan",
            "quantity_is_greater_than",
            _QQ,
            "bool",
            lambda a, b: _compare(a, b) == 1,
        ),
        member(
            "isLessThan", "quantity_is_less_than", _QQ, "bool", lambda a, b: _compare(a, b) == -1
        ),
        member("compareTo", "quantity_compare_to", _QQ, "int", _compare),
        member(
            "asApproximateFloat", "quantity_get_float", _Q, "double", lambda q: float(amount(q))
        ),
        member("asInteger", "quantity_get_int", _Q, "int", _as_integer),
        member(
            "isInteger",
            "quantity_is_integer",
            _Q,
            "bool",
            lambda q: _as_int64(amount(q)) is not None,
        ),
        Function(
            "add",
            (
                Overload("quantity_add", _QQ, QUANTITY, _add, member=True),
                Overload("quantity_add_int", (QUANTITY, "int"), QUANTITY, _add_int, member=True),
            ),
        ),
        Function(
            "sub",
            (
                Overload("quantity_sub", _QQ, QUANTITY, _sub, member=True),
                Overload("quantity_sub_int", (QUANTITY, "int"), QUANTITY, _sub_int, member=True),
            ),
        ),
    ),
)
