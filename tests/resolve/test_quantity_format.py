"""``format_quantity``: apimachinery's canonical ``Quantity.String()``, suffix and rounding."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainc.model.json import JsonValue
from trainc.resolve.quantity import (
    MAX_QUANTITY,
    format_quantity,
    is_binary_quantity,
    parse_quantity,
)


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("0", "0"),
        ("1", "1"),
        ("10", "10"),
        ("100", "100"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("2000", "2k"),
        ("12345", "12345"),
        ("1000000", "1M"),
        ("1250000000", "1250M"),
        ("1e9", "1G"),
        ("1e12", "1T"),
        ("1e15", "1P"),
        ("1e18", "1E"),
        ("32", "32"),
        ("102", "102"),
        ("1.25", "1250m"),
        ("0.5", "500m"),
        ("0.1", "100m"),
        ("0.05", "50m"),
        ("1.5", "1500m"),
        ("0.000250", "250u"),
        ("0.000001", "1u"),
        ("0.0000015", "1500n"),
        ("0.000000001", "1n"),
        ("-1.25", "-1250m"),
        ("-2000", "-2k"),
        ("4294967296", "4294967296"),  # 4Gi written as decimal stays digits
        ("9223372036854775807", "9223372036854775807"),
    ],
)
def test_decimal_si_picks_the_suffix_that_leaves_an_integer(amount: str, expected: str) -> None:
    assert format_quantity(Decimal(amount)) == expected


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("0", "0"),
        ("1024", "1Ki"),
        ("2048", "2Ki"),
        ("1536", "1536"),  # 1.5Ki: no binary suffix shows it whole
        ("1048576", "1Mi"),
        ("2684354560", "2560Mi"),  # 2.5Gi
        ("438086664192", "408Gi"),
        ("1099511627776", "1Ti"),
        ("1125899906842624", "1Pi"),
        ("1152921504606846976", "1Ei"),
        ("1000", "1k"),  # below 1024: DecimalSI
        ("512", "512"),
        ("0.5", "500m"),  # fractions: DecimalSI
        ("1024.5", "1024500m"),
        ("-2048", "-2Ki"),
        ("-1000", "-1k"),
        ("1000000000", "1000000000"),  # 1G is not a multiple of 1Ki
    ],
)
def test_binary_si_divides_by_powers_of_1024(amount: str, expected: str) -> None:
    assert format_quantity(Decimal(amount), binary=True) == expected


def test_upstream_vectors() -> None:
    # T16: 2 x (500m, 1Gi) + 1 x (250m, 512Mi); T14: 102 x (1, 4Gi).
    cpu = 2 * parse_quantity("500m") + parse_quantity("250m")
    memory = 2 * parse_quantity("1Gi") + parse_quantity("512Mi")
    assert format_quantity(cpu) == "1250m"
    assert format_quantity(memory, binary=True) == "2560Mi"
    assert format_quantity(102 * parse_quantity("1")) == "102"
    assert format_quantity(102 * parse_quantity("4Gi"), binary=True) == "408Gi"


def test_rounds_up_to_nano_precision() -> None:
    assert format_quantity(Decimal("0.0000000001")) == "1n"
    assert format_quantity(Decimal("1.0000000001")) == "1000000001n"
    assert format_quantity(Decimal("-0.0000000001")) == "-1n"


def test_sums_beyond_one_quantity_print_in_exponent_form() -> None:
    assert format_quantity(Decimal("1e21")) == "1e21"
    assert format_quantity(Decimal("1.5e22")) == "15e21"
    assert format_quantity(2 * MAX_QUANTITY) == "18446744073709551614"


@pytest.mark.parametrize(
    ("value", "binary"),
    [
        ("1Gi", True),
        ("1.5Ki", True),
        ("512Mi", True),
        ("1G", False),
        ("500m", False),
        ("1e3", False),
        ("4", False),
        (4, False),
        ("nonsense", False),
        (None, False),
    ],
)
def test_is_binary_quantity(value: JsonValue, binary: bool) -> None:
    assert is_binary_quantity(value) is binary


_AMOUNTS = st.decimals(
    min_value=Decimal(-(2**62)), max_value=Decimal(2**62), places=9, allow_nan=False
)


@given(_AMOUNTS, st.booleans())
def test_formatting_round_trips_through_parsing(amount: Decimal, binary: bool) -> None:
    assert parse_quantity(format_quantity(amount, binary=binary)) == amount


@given(_AMOUNTS)
def test_decimal_text_is_an_integer_mantissa_with_the_largest_suffix(amount: Decimal) -> None:
    text = format_quantity(amount).lstrip("-")
    mantissa = text.rstrip("numkMGTPE")
    assert mantissa.isdigit()
    assert len(text) - len(mantissa) <= 1
    # A factor of 1000 left in the mantissa would have moved into a larger suffix.
    assert mantissa == "0" or not mantissa.endswith("000") or text.endswith("E")
