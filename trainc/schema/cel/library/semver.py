"""Kubernetes' semver library: ``semver('1.2.3')``, ``isSemver``, parts and comparisons.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/semverlib.go,
on ``github.com/blang/semver/v4``'s strict ``Parse`` (``MAJOR.MINOR.PATCH``, optional
``-prerelease`` and ``+build``, no leading zeros) and its precedence, where build
metadata does not count; so a value is carried without it and ``==`` agrees with
upstream's ``Equal``. The ``normalize`` argument (leading ``v`` dropped, missing minor
and patch added, leading zeros removed) comes with the library in 1.33 (its version 1).
"""

from __future__ import annotations

import re

from trainc.schema.cel.library.declare import (
    Function,
    Library,
    LibraryError,
    Overload,
    member,
    succeeds,
)
from trainc.schema.cel.library.ip import go_quote
from trainc.schema.cel.library.values import SEMVER, unwrap, wrap

_IDENTIFIER = re.compile(r"[0-9A-Za-z-]+")
_Version = tuple[int, int, int, tuple[str, ...]]


def parse(text: str) -> _Version:
    """blang/semver's ``Parse``, with its error texts."""
    if not text:
        raise LibraryError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:  # noqa: PLR2004 - major, minor, patch
        raise LibraryError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "Major")
    minor = _number(parts[1], "Minor")
    rest, _, build = parts[2].partition("+")
    patch_text, dash, pre_text = rest.partition("-")
    patch = _number(patch_text, "Patch")
    pre: tuple[str, ...] = ()
    if dash:
        pre = tuple(pre_text.split("."))
        for part in pre:
            _identifier(part, prerelease=True)
    if build or parts[2].endswith("+"):
        for part in build.split("."):
            _identifier(part, prerelease=False)
    return major, minor, patch, pre


def _number(text: str, name: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise LibraryError(f"Invalid character(s) found in {name.lower()} number {go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise LibraryError(f"{name} number must not contain leading zeroes {go_quote(text)}")
    return int(text)


def _identifier(part: str, *, prerelease: bool) -> None:
    if not part:
        raise LibraryError("Prerelease is empty" if prerelease else "Build meta data is empty")
    if not _IDENTIFIER.fullmatch(part):
        kind = "prerelease" if prerelease else "buildmeta"
        raise LibraryError(f"Invalid character(s) found in {kind} {go_quote(part)}")
    if prerelease and part.isdigit() and len(part) > 1 and part[0] == "0":
        raise LibraryError(
            f"Numeric PreRelease version must not contain leading zeroes {go_quote(part)}"
        )


def normalize(text: str) -> str:
    """``normalizeAndParse``'s rewriting: no ``v``, three parts, no leading zeros."""
    parts = text.removeprefix("v").split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            trimmed = part.lstrip("0")
            if not trimmed or not trimmed[0].isdigit():
                trimmed = "0" + trimmed
            parts[index] = trimmed
    if len(parts) < 3:  # noqa: PLR2004 - major, minor, patch
        if any(mark in parts[-1] for mark in "+-"):
            raise LibraryError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def _text(version: _Version) -> str:
    major, minor, patch, pre = version
    return f"{major}.{minor}.{patch}" + (f"-{'.'.join(pre)}" if pre else "")


def _semver(text: str, normalized: bool = False) -> dict[str, str]:  # noqa: FBT001, FBT002 - CEL's argument
    return wrap(SEMVER, _text(parse(normalize(text) if normalized else text)))


def _version(value: object) -> _Version:
    return parse(unwrap(value, SEMVER))


def compare(left: object, right: object) -> int:
    """Semantic-version precedence of two Semver values: -1, 0 or 1."""
    a, b = _version(left), _version(right)
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    return _compare_prerelease(a[3], b[3])


def _compare_prerelease(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    if not a or not b:
        return (not a) - (not b)  # a release ranks above its prereleases
    for x, y in zip(a, b, strict=False):
        if x == y:
            continue
        if x.isdigit() and y.isdigit():
            return -1 if int(x) < int(y) else 1
        if x.isdigit() != y.isdigit():
            return -1 if x.isdigit() else 1
        return -1 if x < y else 1
    return (len(a) > len(b)) - (len(a) < len(b))


_S = (SEMVER,)
_SS = (SEMVER, SEMVER)

SEMVER_LIBRARY = Library(
    "semver",
    (1, 33),
    (
        Function(
            "semver",
            (
                Overload("string_to_semver", ("string",), SEMVER, _semver),
                Overload("string_bool_to_semver", ("string", "bool"), SEMVER, _semver),
            ),
        ),
        Function(
            "isSemver",
            (
                Overload("is_semver_string", ("string",), "bool", succeeds(_semver)),
                Overload("is_semver_string_bool", ("string", "bool"), "bool", succeeds(_semver)),
            ),
        ),
        member(
            "isGreaterThan", "semver_is_greater_than", _SS, "bool", lambda a, b: compare(a, b) == 1
        ),
        member("isLessThan", "semver_is_less_than", _SS, "bool", lambda a, b: compare(a, b) == -1),
        member("compareTo", "semver_compare_to", _SS, "int", compare),
        member("major", "semver_major", _S, "int", lambda v: _version(v)[0]),
        member("minor", "semver_minor", _S, "int", lambda v: _version(v)[1]),
        member("patch", "semver_patch", _S, "int", lambda v: _version(v)[2]),
    ),
)
