"""Plain scalars as kubectl reads them, and the JSON it sends.

The expected values come from go-yaml v2's rules as sigs.k8s.io/yaml holds them
(``goyaml.v2/resolve.go``: ``resolveMap``, ``resolveTable``, ``resolve``, ``yamlStyleFloat``,
``parseTimestamp``; ``goyaml.v2/decode.go``: ``scalar``; ``yaml.go``:
``convertToJSONableObject``, ``json.Marshal``), and each row names the rule that decides
it. trainc holds go-yaml's value (an int or a float as go-yaml typed it); the JSON column
is the text kubectl sends, which :func:`kubectl_json` derives from that value as kubectl
does: ``json.Marshal``, then the API machinery's decoding (an integral number that fits
int64 as an integer, any other as a float64) and ``json.Marshal`` again. Every row
but the one marked ``NEWER`` was also checked with a real kubectl (v1.32, ``kubectl
annotate --local -o json``), which :func:`test_the_table_is_what_kubectl_sends` repeats
wherever kubectl is installed.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.load.yamltext import AMBIGUOUS
from trainc.config.limits import InputLimits
from trainc.load.scalars import (
    Resolved,
    ScalarError,
    is_timestamp,
    json_number,
    json_value,
    resolve_plain,
    resolve_tagged,
)
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonValue

# Rule names used in the comments:
#   MAP        resolveMap: the listed spellings of booleans, nulls, .inf/.nan, <<
#   M-ONLY     resolveTable "M": a word starting with yYnNtTfFoO~ not in the map is text
#   DOT        resolveTable ".": strconv.ParseFloat(text) (underscores not allowed)
#   TIMESTAMP  parseTimestamp succeeds; decode.go keeps a timestamp into interface{} as text
#   INT        strconv.ParseInt(text without "_", 0, 64): Go base 0, sign, 0x/0o/0b/0
#   UINT       ParseInt overflowed, strconv.ParseUint(text without "_", 0, 64) fits
#   FLOAT      yamlStyleFloat matches the text without "_" and ParseFloat succeeds
#   BIN        the "0b" branch: ParseInt(text[2:], 2, 64) after everything else failed
#   BIG        ParseUint overflowed: new(big.Int).SetString(text, 0) (NEWER: kubectl 1.32,
#              whose goyaml.v2 predates it, sends the text)
#   TEXT       none of the above: the scalar stays a string (no base 60, no hex floats)
#   JSON-INT   json.Marshal writes an integral float without a fraction (trainc holds the
#              float: 1e3 is 1000.0); the API machinery decodes it as int64 when it fits
#   JSON-FLOAT an integer past int64 is decoded as float64 and written with Go's shortest
#              digits (trainc holds the integer)
TABLE: list[tuple[str, str]] = [
    # --- integers: Go base 0 (INT) ---
    ("0o17", "15"),  # INT: 0o prefix (Go >= 1.13)
    ("+0o7", "7"),  # INT: sign, then 0o
    ("-0o7", "-7"),  # INT
    ("0O17", "15"),  # INT: prefix letters in either case
    ("017", "15"),  # INT: a leading 0 is octal
    ("0x1F", "31"),  # INT
    ("0X1f", "31"),  # INT
    ("-0x1F", "-31"),  # INT
    ("0x_1", "1"),  # INT: "_" dropped first
    ("0b101", "5"),  # INT
    ("0B11", "3"),  # INT
    ("-0b101", "-5"),  # INT
    ("+0b101", "5"),  # INT
    ("0b-1", "-1"),  # BIN: ParseInt("-1", 2) after base 0 refused "0b-1"
    ("0b_1", "1"),  # INT
    ("1_000", "1000"),  # INT
    ("+_7", "7"),  # INT
    ("1__0", "10"),  # INT
    ("1_e3", "1000"),  # FLOAT: "1e3" once "_" is dropped
    ("0_", "0"),  # INT
    ("00", "0"),  # INT
    ("-0", "0"),  # INT
    ("9223372036854775807", "9223372036854775807"),  # INT: int64's maximum
    ("-9223372036854775808", "-9223372036854775808"),  # INT: int64's minimum
    ("9223372036854775808", "9223372036854776000"),  # UINT, then JSON-FLOAT
    ("18446744073709551615", "18446744073709552000"),  # UINT, then JSON-FLOAT
    ("0xFFFFFFFFFFFFFFFF", "18446744073709552000"),  # UINT, then JSON-FLOAT
    ("-9223372036854775809", "-9223372036854776000"),  # FLOAT: ParseUint takes no sign
    ("18446744073709551616", "18446744073709552000"),  # FLOAT: past uint64, decimal
    ("0x10000000000000000", "18446744073709552000"),  # BIG (NEWER), then JSON-FLOAT
    ("123456789012345678", "123456789012345678"),  # INT
    # --- floats (FLOAT, DOT), sent as JSON-INT when integral ---
    ("08", "8"),  # FLOAT: not octal, but yamlStyleFloat; JSON-INT
    ("09.5", "9.5"),  # FLOAT
    ("3.", "3"),  # FLOAT, JSON-INT
    ("3.0", "3"),  # FLOAT, JSON-INT
    (".5", "0.5"),  # DOT
    ("-.5", "-0.5"),  # FLOAT
    ("1e3", "1000"),  # FLOAT, JSON-INT
    ("1E3", "1000"),  # FLOAT, JSON-INT
    ("-1e-3", "-0.001"),  # FLOAT
    ("1.5e+3", "1500"),  # FLOAT, JSON-INT
    ("6.8523e+5", "685230"),  # FLOAT, JSON-INT
    ("685.230_15e+03", "685230.15"),  # FLOAT
    ("-0.0", "0"),  # FLOAT: json.Marshal writes -0, decoded as the integer 0
    ("1e-400", "0"),  # FLOAT: ParseFloat underflows to 0 without an error
    ("1e21", "1e+21"),  # FLOAT: Go writes %e from 1e21 on
    ("1e-7", "1e-7"),  # FLOAT: and under 1e-6
    ("1.5e300", "1.5e+300"),  # FLOAT
    ("1e400", '"1e400"'),  # TEXT: ParseFloat out of range
    (".5e999", '".5e999"'),  # DOT out of range: TEXT
    ("0x1p3", '"0x1p3"'),  # TEXT: a Go hex float, but no rule tries one
    ("1.2.3", '"1.2.3"'),  # TEXT
    ("1e", '"1e"'),  # TEXT
    ("1,000", '"1,000"'),  # TEXT
    ("0x", '"0x"'),  # TEXT: no digit after the prefix
    ("0b", '"0b"'),  # TEXT
    ("0o", '"0o"'),  # TEXT
    ("+", '"+"'),  # TEXT
    ("_1", '"_1"'),  # TEXT: "_" is not in resolveTable
    (".iNf", '".iNf"'),  # DOT: not in the map, not a float
    # --- no base 60 ---
    ("12:30:00", '"12:30:00"'),  # TEXT
    ("1:30", '"1:30"'),  # TEXT
    ("-1:30", '"-1:30"'),  # TEXT
    ("190:20:30.15", '"190:20:30.15"'),  # TEXT
    # --- booleans in every spelling ---
    *((word, "true") for word in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON")),  # MAP
    *((word, "true") for word in ("true", "True", "TRUE")),  # MAP
    *((word, "false") for word in ("n", "N", "no", "No", "NO", "off", "Off", "OFF")),  # MAP
    *((word, "false") for word in ("false", "False", "FALSE")),  # MAP
    ("yEs", '"yEs"'),  # M-ONLY
    ("oN", '"oN"'),  # M-ONLY
    # --- nulls ---
    ("~", "null"),  # MAP
    ("null", "null"),  # MAP
    ("Null", "null"),  # MAP
    ("NULL", "null"),  # MAP
    ("", "null"),  # MAP: the empty scalar
    ("nULL", '"nULL"'),  # M-ONLY
    ("=", '"="'),  # TEXT: YAML 1.1's value type is not in go-yaml
    ("<<", '"<<"'),  # MAP: the merge key, as a value its text
    # --- timestamps stay their text ---
    ("2001-12-14", '"2001-12-14"'),  # TIMESTAMP: 2006-1-2
    ("2001-12-14t21:59:43.10-05:00", '"2001-12-14t21:59:43.10-05:00"'),  # TIMESTAMP
    ("2001-12-14T21:59:43Z", '"2001-12-14T21:59:43Z"'),  # TIMESTAMP
    ("2001-12-14 21:59:43.10", '"2001-12-14 21:59:43.10"'),  # TIMESTAMP: no zone
    ("2001-2-3T3:4:5Z", '"2001-2-3T3:4:5Z"'),  # TIMESTAMP: one-digit fields
    ("2001-12-14 21:59:43.10 -5", '"2001-12-14 21:59:43.10 -5"'),  # not one: TEXT
    ("2001-02-30", '"2001-02-30"'),  # not a day: TEXT
    ("2001-12-14T21:59:43", '"2001-12-14T21:59:43"'),  # no zone after T: TEXT
]
#: Plain scalars kubectl refuses: json.Marshal cannot write NaN or an infinity.
REFUSED = [
    (".inf", "json: unsupported value: +Inf"),  # MAP
    (".Inf", "json: unsupported value: +Inf"),  # MAP
    ("+.INF", "json: unsupported value: +Inf"),  # MAP
    ("-.inf", "json: unsupported value: -Inf"),  # MAP
    ("-.INF", "json: unsupported value: -Inf"),  # MAP
    (".nan", "json: unsupported value: NaN"),  # MAP
    (".NaN", "json: unsupported value: NaN"),  # MAP
    (".NAN", "json: unsupported value: NaN"),  # MAP
]
NEWER = {"0x10000000000000000"}


def go_json(value: JsonValue) -> str:
    """``value`` as json.Marshal writes it (Go's shortest float digits, %e outside
    [1e-6, 1e21), ``e-07`` cleaned to ``e-7``)."""
    if isinstance(value, float):
        if value == 0:
            return "0"
        if 1e-6 <= abs(value) < 1e21:
            text = format(Decimal(repr(value)), "f")
            return text.rstrip("0").rstrip(".") if "." in text else text
        mantissa, exponent = repr(value).split("e")
        sign, digits = exponent[0], exponent[1:].lstrip("0")
        return f"{mantissa}e{sign}{digits.rjust(2, '0') if sign == '+' else digits}"
    return json.dumps(value)


def kubectl_json(value: JsonValue) -> str:
    """What kubectl sends for go-yaml's ``value``: json.Marshal, the API machinery's
    number decoding (int64 when the text is an integer that fits, else float64), and
    json.Marshal again."""
    text = go_json(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return text
    if all(character in "-0123456789" for character in text) and -(2**63) <= int(text) < 2**63:
        return text
    return go_json(float(text))


def read(text: str) -> tuple[JsonValue, list[str]]:
    """What trainc reads for the plain scalar ``text``, and its findings' messages."""
    parsed = parse_documents(SourceFile("f.yaml", f"v: {text}\n"), InputLimits())
    data = parsed.documents[0].data
    assert isinstance(data, dict)
    return data["v"], [diagnostic.message for diagnostic in parsed.diagnostics]


def test_the_table_is_long_and_has_no_duplicates() -> None:
    texts = [text for text, _ in TABLE] + [text for text, _ in REFUSED]
    assert len(texts) == len(set(texts))
    assert len(TABLE) >= 40


@pytest.mark.parametrize(("text", "sent"), TABLE, ids=[repr(text) for text, _ in TABLE])
def test_plain_scalars_are_what_kubectl_sends(text: str, sent: str) -> None:
    value, messages = read(text)
    assert messages == []
    assert kubectl_json(value) == sent
    # The JSON type: a string, a boolean, null or a number.
    if sent.startswith('"'):
        assert isinstance(value, str)
    elif sent in ("true", "false", "null"):
        assert value == json.loads(sent)
        assert type(value) is type(json.loads(sent))
    else:
        assert isinstance(value, int | float)
        assert not isinstance(value, bool)
        assert float(sent) == float(value)


@pytest.mark.parametrize(("text", "error"), REFUSED)
def test_nan_and_infinities_are_findings_at_the_scalar(text: str, error: str) -> None:
    parsed = parse_documents(SourceFile("f.yaml", f"a: 1\nv: {text}\n"), InputLimits())
    (diagnostic,) = parsed.diagnostics
    assert (diagnostic.code, diagnostic.line, diagnostic.column) == ("load.syntax", 2, 4)
    assert error in diagnostic.message
    assert diagnostic.hint == f'quote it if it is text: "{text}"'
    assert parsed.documents[0].data == {"a": 1, "v": text}  # never NaN in trainc's data


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_the_table_is_what_kubectl_sends(tmp_path: Path) -> None:
    rows = [(text, sent) for text, sent in TABLE if text not in NEWER]
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n" + "".join(
        f"  k{index}: {text}\n" for index, (text, _) in enumerate(rows)
    )
    (tmp_path / "table.yaml").write_text(manifest, encoding="utf-8")
    done = subprocess.run(
        ["kubectl", "annotate", "--local", "-f", str(tmp_path / "table.yaml"), "a=b", "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    raw = json.loads(done.stdout, parse_int=lambda s: ("n", s), parse_float=lambda s: ("n", s))
    got = {
        key: value[1] if isinstance(value, tuple) else json.dumps(value)
        for key, value in raw["data"].items()
    }
    assert got == {f"k{index}": sent for index, (_, sent) in enumerate(rows)}


# --------------------------------------------------------------------------- tags


@pytest.mark.parametrize(
    ("tag", "text", "value"),
    [
        ("int", "0x1F", 31),  # resolve: rtag == tag
        ("int", "08", None),  # FLOAT: cannot decode !!float `08` as a !!int
        ("float", "1", 1.0),  # an int is accepted as a float (and sent as 1)
        ("float", "1.5", 1.5),
        ("float", "18446744073709551615", None),  # a uint64 is not (only int and int64)
        ("bool", "yes", True),
        ("bool", "1", None),
        ("null", "", None),
        ("null", "~", None),
        ("str", "08", "08"),  # !!str keeps any text
        ("timestamp", "2001-12-14", "2001-12-14"),
        ("timestamp", "12", None),
        ("timestamp", "2001-13-01", None),
        ("binary", "aGVsbG8=", "hello"),
        ("binary", "gIGC", "\ufffd\ufffd\ufffd"),  # bytes that are not UTF-8
        ("binary", "aGVs\nbG8=\n", "hello"),  # line breaks are skipped
        ("set", "x", "x"),  # a tag go-yaml does not resolve keeps the text
    ],
)
def test_explicit_tags(tag: str, text: str, value: object) -> None:
    full = f"tag:yaml.org,2002:{tag}"
    refused = value is None and tag != "null"
    if refused:
        with pytest.raises(ScalarError, match=rf"as a !!{tag}"):
            resolve_tagged(full, text)
        return
    resolved = resolve_tagged(full, text)
    assert json_value(resolved, text) == value


def test_bad_base64_is_refused() -> None:
    with pytest.raises(ScalarError, match="base64"):
        resolve_tagged("tag:yaml.org,2002:binary", "a b")


@pytest.mark.parametrize(
    ("text", "timestamp"),
    [
        ("2001-12-14", True),
        ("2000-2-29", True),
        ("2001-2-29", False),  # not a leap year
        ("1900-02-29", False),
        ("2001-12-14t21:59:43.123456789123-05:00", True),  # more digits are read and cut
        ("2001-12-14T21:59:43,5Z", True),  # Go also takes a comma
        ("2001-12-14T24:00:00Z", False),
        ("2001-12-14T21:60:00Z", False),
        ("2001-12-14T21:59:43+25:00", False),
        ("2001-12-14T21:59:43+0500", False),
        ("2001-12-14 21:59:43Z", False),  # the space layout has no zone
        ("2001-12-14  21:59:43", False),
        ("12001-12-14", False),
        ("2001-12-14T", False),
    ],
)
def test_timestamps_are_gos_time_parse_layouts(text: str, *, timestamp: bool) -> None:
    assert is_timestamp(text) is timestamp


# --------------------------------------------------------------------------- JSON numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("-0", 0),
        ("1.0", 1.0),
        ("1e3", 1000.0),
        ("1.5", 1.5),
        ("9223372036854775808", 2**63),
    ],
)
def test_json_numbers_are_typed_as_json_types_them(text: str, value: float) -> None:
    assert json_number(text) == value
    assert isinstance(json_number(text), int) is isinstance(value, int)


def test_json_numbers_past_float64_are_refused() -> None:
    with pytest.raises(ScalarError, match="cannot unmarshal number 1e400"):
        json_number("1e400")


# --------------------------------------------------------------------------- properties


@given(st.integers(-(2**63), 2**63 - 1), st.sampled_from(["d", "x", "X", "o", "O", "b", "B", "0"]))
def test_every_int64_in_every_go_base_reads_back(number: int, base: str) -> None:
    digits: dict[str, Callable[[int], str]] = {
        "d": str, "x": hex, "X": hex, "o": oct, "O": oct, "b": bin, "B": bin
    }  # fmt: skip
    magnitude = abs(number)
    if base == "0":
        text = "0" + format(magnitude, "o") if magnitude else "0"
    else:
        text = digits[base](magnitude)
        if base in "XOB":
            text = text[:1] + base + text[2:]
    text = ("-" if number < 0 else "") + text
    assert resolve_plain(text) == Resolved("int", number)
    assert json_value(resolve_plain(text), text) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_reads_back(number: float) -> None:
    text = repr(number)
    resolved = resolve_plain(text)
    if resolved.kind == "int":  # repr of a whole float without a fraction: "1e+16"
        assert resolved.value == number
        return
    assert resolved == Resolved("float", number)
    assert json_value(resolved, text) == number


@given(st.one_of(st.sampled_from(AMBIGUOUS), st.text(max_size=12)))
def test_resolving_never_fails_and_json_values_are_finite(text: str) -> None:
    resolved = resolve_plain(text)
    try:
        value = json_value(resolved, text)
    except ScalarError:
        assert resolved.kind in ("float", "bigint")
        return
    if isinstance(value, float):
        assert math.isfinite(value)
    if resolved.kind == "str":
        assert value == text
