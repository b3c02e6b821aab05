"""Kubernetes' CEL libraries through the engine adapter: each case is an expression and
result (or error) of upstream's library tests and documented examples
(k8s.io/apiserver/pkg/cel/library/*_test.go and the libraries' doc comments), evaluated
here by trainc's engine."""

from __future__ import annotations

import subprocess
import sys

import pytest

from trainc.model.json import JsonValue
from trainc.schema.cel.engine import (
    CelCompileError,
    CelUnsupportedError,
    EvalError,
    compile_expression,
)
from trainc.schema.cel.library import NAMES
from trainc.schema.cel.library.declare import Release
from trainc.schema.cel.library.offered import LIBRARIES, PUBLIC_NAMES, libraries_at


def value(expression: str, release: Release | None = None) -> JsonValue | EvalError:
    return compile_expression(expression, ("object",), release=release).evaluate({"object": {}})


def error(expression: str) -> str:
    result = value(expression)
    assert isinstance(result, EvalError), result
    return result.message


QUANTITY = [
    ('quantity("200M") == quantity("200M")', True),
    ('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
    ('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M")', True),
    ('quantity("200M") == quantity("0.3G")', False),
    ('isQuantity("20")', True),
    ('isQuantity("20M")', True),
    ('isQuantity("20Mi")', True),
    ('isQuantity("20Mo")', False),
    ('isQuantity("10Mm")', False),
    ('isQuantity("1,3G")', False),
    ('quantity("50M").isLessThan(quantity("50Mi"))', True),
    ('quantity("100M").isLessThan(quantity("50M"))', False),
    ('quantity("50Mi").isGreaterThan(quantity("50M"))', True),
    ('quantity("50M").isGreaterThan(quantity("100M"))', False),
    ('quantity("200M").compareTo(quantity("0.2G"))', 0),
    ('quantity("50M").compareTo(quantity("50Mi"))', -1),
    ('quantity("50Mi").compareTo(quantity("50M"))', 1),
    ('quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ('quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    ('quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
    ('quantity("50k").sub(20) == quantity("49980")', True),
    ('quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
    ('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
    ('quantity("50k").asInteger()', 50000),
    ('quantity("50").isInteger()', True),
    ('quantity("1.5").isInteger()', False),
    ('quantity("50.703k").asApproximateFloat()', 50703.0),
    ('quantity("50k").sub(20000).asApproximateFloat() == 30000.0', True),
    ('quantity("-1").sign()', -1),
    ('quantity("0").sign()', 0),
]

IP = [
    ('isIP("192.168.0.1")', True),
    ('isIP("2001:db8::abcd")', True),
    ('isIP("::ffff:192.168.0.1")', False),
    ('isIP("fe80::1%eth0")', False),
    ('isIP("192.168.0.01")', False),
    ('ip.isCanonical("127.0.0.1")', True),
    ('ip.isCanonical("2001:db8::abcd")', True),
    ('ip.isCanonical("2001:DB8::ABCD")', False),
    ('ip.isCanonical("2001:db8:0:0:0:0:0:abcd")', False),
    ('ip("192.168.0.1").family()', 4),
    ('ip("::1").family()', 6),
    ('ip("0.0.0.0").isUnspecified()', True),
    ('ip("::").isUnspecified()', True),
    ('ip("127.0.0.1").isLoopback()', True),
    ('ip("192.168.0.1").isLoopback()', False),
    ('ip("::1").isLoopback()', True),
    ('ip("224.0.0.1").isLinkLocalMulticast()', True),
    ('ip("224.0.1.1").isLinkLocalMulticast()', False),
    ('ip("ff02::1").isLinkLocalMulticast()', True),
    ('ip("fd00::1").isLinkLocalMulticast()', False),
    ('ip("169.254.169.254").isLinkLocalUnicast()', True),
    ('ip("192.168.0.1").isLinkLocalUnicast()', False),
    ('ip("fe80::1").isLinkLocalUnicast()', True),
    ('ip("fd80::1").isLinkLocalUnicast()', False),
    ('ip("192.168.0.1").isGlobalUnicast()', True),
    ('ip("255.255.255.255").isGlobalUnicast()', False),
    ('ip("2001:db8::abcd").isGlobalUnicast()', True),
    ('ip("ff00::1").isGlobalUnicast()', False),
    ('ip("127.0.0.1") == ip("127.0.0.1")', True),
]

CIDR = [
    ('cidr(dyn("192.168.0.0/24")) == cidr("192.168.0.0/24")', True),
    ('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
    ('cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', False),
    ('cidr("192.168.0.0/24").containsIP("192.168.0.1")', True),
    ('cidr("192.168.0.0/24").containsIP("192.168.1.1")', False),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', False),
    ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', True),
    ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', False),
    ('cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', True),
    ('cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', True),
    ('cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked()', False),
    ('cidr("192.168.0.0/24").prefixLength()', 24),
    ('cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', True),
    ('cidr("2001:db8::/32").containsIP("2001:dc8::1")', False),
    ('cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', True),
    ('cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', False),
    ('cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', True),
    ('cidr("2001:db8::/32").prefixLength()', 32),
    ('cidr("192.168.0.1/24").ip().family()', 4),
    ('isCIDR("192.168.0.0/24")', True),
    ('isCIDR("192.168.0.0/33")', False),
    ('isCIDR("::ffff:192.168.0.0/120")', False),
]

URL = [
    ('isURL("https://user:pass@example.com:80/path?query=val#fragment")', True),
    ('isURL("/absolute-path")', True),
    ('isURL("https://a:b:c/")', False),
    ('isURL("../relative-path")', False),
    ('url("/path").getScheme()', ""),
    ('url("https://example.com/").getScheme()', "https"),
    ('url("https://example.com:80/").getHost()', "example.com:80"),
    ('url("https://example.com/").getHost()', "example.com"),
    ('url("https://[::1]:80/").getHost()', "[::1]:80"),
    ('url("https://[::1]/").getHost()', "[::1]"),
    ('url("/path").getHost()', ""),
    ('url("https://example.com:80/").getHostname()', "example.com"),
    ('url("https://127.0.0.1:80/").getHostname()', "127.0.0.1"),
    ('url("https://[::1]:80/").getHostname()', "::1"),
    ('url("/path").getHostname()', ""),
    ('url("https://example.com:80/").getPort()', "80"),
    ('url("https://example.com/").getPort()', ""),
    ('url("/path").getPort()', ""),
    ('url("https://example.com/path").getEscapedPath()', "/path"),
    ('url("https://example.com/path with spaces/").getEscapedPath()', "/path%20with%20spaces/"),
    ('url("https://example.com").getEscapedPath()', ""),
    (
        'url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()',
        {"k1": ["a"], "k2": ["b", "c"]},
    ),
    (
        'url("https://example.com/path?key with spaces=value with spaces").getQuery()',
        {"key with spaces": ["value with spaces"]},
    ),
    ('url("https://example.com/path?").getQuery()', {}),
    ('url("https://example.com/path").getQuery()', {}),
]

REGEX = [
    ('"abc 123".find("[0-9]+")', "123"),
    ('"abc 123".find("xyz")', ""),
    ('"123 abc 456".findAll("[0-9]+")', ["123", "456"]),
    ('"123 abc 456".findAll("[0-9]+", 1)', ["123"]),
    ('"123 abc 456".findAll("[0-9]+", 0)', []),
    ('"123 abc 456".findAll("xyz")', []),
]

LISTS = [
    ("[1, 2, 3].isSorted()", True),
    ('["a", "b", "b", "c"].isSorted()', True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[1].min()", 1),
    ('["b", "a", "c"].max()', "c"),
    ("[1, 2, 2, 3].indexOf(2)", 1),
    ('["a", "b", "b", "c"].lastIndexOf("b")', 2),
    ("[1.0].indexOf(1.1)", -1),
    ('[].indexOf("string")', -1),
    ("[true, 1].indexOf(1)", 1),
    # A list's indexOf makes the string functions of the same name trainc's too.
    ('"abcb".indexOf("b") == 1 && "abcb".lastIndexOf("b", 2) == 1 && [1].indexOf(1) == 0', True),
    ('"abcb".lastIndexOf("") == 4 && "abc".indexOf("c", 1) == 2 && [1].lastIndexOf(1) == 0', True),
]

SEMVER = [
    ('isSemver("1.0.0")', True),
    ('isSemver("hello")', False),
    ('isSemver("v1.0")', False),
    ('isSemver("v1.0", true)', True),
    ('isSemver("1.0", true)', True),
    ('isSemver("01.01.01", true)', True),
    ('isSemver("1.0.0-alpha.1+build.5")', True),
    ('isSemver("1.0.0-01")', False),
    ('semver("v1.0.0", true) == semver("1.0.0")', True),
    ('semver("1.0", true) == semver("1.0.0")', True),
    ('semver("01.01.01", true) == semver("1.1.1")', True),
    ('semver("1.2.3").major()', 1),
    ('semver("1.2.3").minor()', 2),
    ('semver("1.2.3").patch()', 3),
    ('semver("1.2.3").compareTo(semver("1.2.3"))', 0),
    ('semver("1.2.3").compareTo(semver("2.0.0"))', -1),
    ('semver("1.2.3").compareTo(semver("0.1.2"))', 1),
    ('semver("1.2.3").isLessThan(semver("1.10.0"))', True),
    ('semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))', True),
    ('semver("1.0.0-alpha.beta").isLessThan(semver("1.0.0-beta"))', True),
    ('semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))', True),
    ('semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))', True),
    ('semver("2.0.0").isGreaterThan(semver("1.99.99"))', True),
    ('semver("1.0.0+a") == semver("1.0.0+b")', True),
]

LABEL_ERROR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)

FORMAT = [
    ('format.dns1123Label().validate("my-label-name").hasValue()', False),
    ('format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', False),
    ('format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', False),
    ('format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', False),
    ('format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-").hasValue()', False),
    ('format.dns1035LabelPrefix().validate("my-label-prefix-").hasValue()', False),
    ('format.uri().validate("http://example.com").hasValue()', False),
    ('format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', False),
    ('format.byte().validate("aGVsbG8=").hasValue()', False),
    ('format.byte().validate("aGVsbG8").value()', ["invalid base64"]),
    ('format.date().validate("2021-01-01").hasValue()', False),
    ('format.date().validate("2020-01-32").value()', ["invalid date"]),
    ('format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', False),
    ('format.datetime().validate("2020-01-32T00:00:00Z").value()', ["invalid datetime"]),
    ('format.dns1123Label().validate("contains a space").value()', [LABEL_ERROR]),
    ('format.dns1123LabelPrefix().validate("contains a space-").value()', [LABEL_ERROR]),
    ('format.labelValue().validate("my-cool-label-Value").hasValue()', False),
    (
        'format.qualifiedName().validate("contains a space").value()',
        [
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ],
    ),
    ('format.named("unknown").hasValue()', False),
    ('format.named("uri").value() == format.uri()', True),
    ("format.uri() == format.uuid()", False),
    ('format.named("dns1123Label").value().validate("Bad_Name").orValue([]).size()', 1),
    ('"%s-%d".format(["a", 1])', "a-1"),
]


@pytest.mark.parametrize(
    ("expression", "expected"), [*QUANTITY, *IP, *CIDR, *URL, *REGEX, *LISTS, *SEMVER, *FORMAT]
)
def test_upstream_results(expression: str, expected: JsonValue) -> None:
    assert value(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            'quantity("10Mo")',
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        ('quantity("10Mm")', "unable to parse quantity's suffix"),
        ('quantity("1.5").asInteger()', "cannot convert value to integer"),
        ('ip("fe80::1%eth0")', 'IP address "fe80::1%eth0" with zone value is not allowed'),
        (
            'ip("192.168.0.1.0")',
            'IP Address "192.168.0.1.0" parse error during conversion from string: '
            'ParseAddr("192.168.0.1.0"): IPv4 address too long',
        ),
        (
            'ip("1.2.3")',
            'IP Address "1.2.3" parse error during conversion from string: '
            'ParseAddr("1.2.3"): IPv4 address too short',
        ),
        (
            'ip("1.2.3.256")',
            'IP Address "1.2.3.256" parse error during conversion from string: '
            'ParseAddr("1.2.3.256"): IPv4 field has value >255',
        ),
        ('ip("::ffff:1.2.3.4")', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
        (
            'cidr("192.168.0.0/")',
            "network address parse error during conversion from string: network address "
            'parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): '
            'bad bits after slash: ""',
        ),
        (
            'url("../relative-path")',
            'URL parse error during conversion from string: parse "../relative-path": '
            "invalid URI for request",
        ),
        (
            'url("https://a:b:c/")',
            'URL parse error during conversion from string: parse "https://a:b:c/": '
            'invalid port ":c" after host',
        ),
        (
            '"abc".find("(?=a)")',
            "Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ),
        ("[].min()", "min called on empty list"),
        ("[].max()", "max called on empty list"),
        ('semver("v1.0.0")', 'Invalid character(s) found in major number "v1"'),
        ('semver("01.0.0")', 'Major number must not contain leading zeroes "01"'),
        ('semver("1.0-alpha", true)', "short version cannot contain PreRelease/Build meta data"),
        ('[1].indexOf(1) == 0 && "abc".indexOf("c", 5) == 2', "index out of range: 5"),
    ],
)
def test_upstream_errors(expression: str, message: str) -> None:
    assert error(expression) == message


def test_mixed_dyn_list_fails_as_upstream_adders_do() -> None:
    program = compile_expression("object.sizes.sum()", ("object",))
    assert program.evaluate({"object": {"sizes": [1, 2]}}) == 3
    mixed = program.evaluate({"object": {"sizes": [1, 2.5]}})
    assert isinstance(mixed, EvalError)
    assert mixed.message == "no such overload"


@pytest.mark.parametrize(
    "expression",
    [
        "isQuantity([1, 2, 3])",
        "cidr(192168)",
        'quantity("1").isLessThan(semver("1.0.0"))',
        'quantity("1")["x"]',
        "[1, 2].sum() + 1.0",
        'url("/x").getHost().getHost()',
        "[1].indexOf(1, 2)",
    ],
)
def test_types_are_checked_as_upstream(expression: str) -> None:
    with pytest.raises(CelCompileError, match="found no matching overload"):
        compile_expression(expression, ())


@pytest.mark.parametrize(
    "expression",
    [
        'string(ip("10.0.0.1"))',
        'string(cidr("10.0.0.0/8"))',
        '[duration("1s")].sum()',
    ],
)
def test_undeclarable_signatures_are_unsupported_not_broken(expression: str) -> None:
    with pytest.raises(CelUnsupportedError):
        compile_expression(expression, ())


def test_re2_syntax_python_reads_otherwise_is_unsupported() -> None:
    result = value('"abc".find("[[:alpha:]]+")')
    assert isinstance(result, EvalError)
    assert result.unsupported
    assert result.message.startswith("trainc cannot evaluate the RE2 syntax `[[:`")


@pytest.mark.parametrize(
    ("expression", "introduced"),
    [
        ('quantity("1")', (1, 28)),
        ('ip("10.0.0.1").family()', (1, 30)),
        ('cidr("10.0.0.0/8").prefixLength()', (1, 30)),
        ('format.dns1123Label().validate("a").hasValue()', (1, 31)),
        ('semver("1.0.0").major()', (1, 33)),
        ('semver("v1", true).major()', (1, 33)),
        ('url("/x").getHost()', (1, 0)),
        ('"a".find("a")', (1, 0)),
        ("[1].isSorted()", (1, 0)),
    ],
)
def test_a_function_compiles_from_the_release_that_introduced_it(
    expression: str, introduced: Release
) -> None:
    compile_expression(expression, (), release=introduced)
    if introduced > (1, 0):
        before = (introduced[0], introduced[1] - 1)
        with pytest.raises(CelCompileError, match="undeclared reference"):
            compile_expression(expression, (), release=before)


def test_releases_offer_libraries_in_base_go_order() -> None:
    assert [lib.name for lib in libraries_at((1, 27))] == ["URL", "regex", "lists"]
    assert libraries_at(None) == LIBRARIES
    assert [lib.introduced for lib in LIBRARIES] == sorted(lib.introduced for lib in LIBRARIES)


def test_names_are_every_library_function_as_an_expression_writes_it() -> None:
    """The words that make the adapter declare the libraries are exactly the names (or
    the first part of a dotted name) of every function the libraries offer, as written
    in an expression (the rewrites' private names given back as upstream's)."""
    written = {
        PUBLIC_NAMES.get(function.name, function.name).split(".")[0]
        for library in LIBRARIES
        for function in library.functions
    }
    assert written == NAMES


def test_an_expression_naming_no_library_function_does_not_import_the_libraries() -> None:
    """The hook path compiles CRD rules that name no library: it must not pay for them."""
    script = (
        "import sys\n"
        "from trainc.schema.cel.engine import compile_expression\n"
        "assert compile_expression('self.limit <= 3 && \"quantity\" != \"\"', ('self',))"
        ".evaluate({'self': {'limit': 1}}) is True\n"
        "print(sorted(m for m in sys.modules if m.startswith('trainc.schema.cel.library')))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    assert found.strip() == "['trainc.schema.cel.library', 'trainc.schema.cel.library.declare']"
