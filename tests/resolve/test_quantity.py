from __future__ import annotations

from decimal import Decimal

import pytest

from trainc.model.json import JsonValue
from trainc.resolve.quantity import (
    MAX_QUANTITY,
    QuantityError,
    parse_quantity,
    quantity_value,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100m", "0.1"),
        ("1.5", "1.5"),
        ("2Gi", "2147483648"),
        ("1Ki", "1024"),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("1e-3", "0.001"),
        ("-1", "-1"),
        ("+2k", "2000"),
        ("4", "4"),
        ("1.", "1"),
        (".5", "0.5"),
        ("1E", "1000000000000000000"),  # E alone is exa, not an exponent
        ("250u", "0.00025"),
        ("5n", "0.000000005"),
        ("0", "0"),
        ("-0", "0"),
        (4, "4"),
        (1.5, "1.5"),
        (1e3, "1000"),
    ],
)
def test_parses_exactly(text: JsonValue, expected: str) -> None:
    assert parse_quantity(text) == Decimal(expected)


def test_sums_are_exact() -> None:
    assert parse_quantity("100m") + parse_quantity("200m") == parse_quantity("300m")


def test_rounds_below_nano_up_away_from_zero() -> None:
    assert parse_quantity("0.0000000001") == Decimal("1e-9")
    assert parse_quantity("1e-2000000000") == Decimal("1e-9")
    assert parse_quantity("-1e-10") == Decimal("-1e-9")
    assert parse_quantity("1.0000000001") == Decimal("1.000000001")


def test_caps_at_int64_max() -> None:
    assert parse_quantity("9223372036854775808") == MAX_QUANTITY
    assert parse_quantity("1e2000000000") == MAX_QUANTITY
    assert parse_quantity("-16Ei") == -MAX_QUANTITY


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "1e",
        "1 ",
        " 1",
        "1.5.5",
        "1Mi2",
        "1KI",
        "1K",
        "1e1.5",
        "1k8",
        "inf",
        ".",
        "1e2147483648",
        "1" * 200,
        True,
        None,
        [],
        {},
    ],
)
def test_rejects(text: JsonValue) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize(
    ("text", "value"), [("100m", 1), ("4", 4), ("2.5", 3), ("-1.5", -2), ("0", 0), ("2Gi", 2**31)]
)
def test_value_rounds_up_away_from_zero(text: str, value: int) -> None:
    assert quantity_value(parse_quantity(text)) == value
