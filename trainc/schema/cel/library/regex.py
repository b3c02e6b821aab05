"""Kubernetes' regex library: ``'abc 123'.find('[0-9]+')``, ``findAll`` with and without a limit.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/regex.go,
on Go's ``regexp`` (RE2 syntax, leftmost-first matches, which Python's ``re`` shares).
trainc evaluates with Python's ``re`` rather than adding an RE2 binding: the two agree on
the patterns policies write, and where they part a pattern is refused, never matched
differently. Syntax RE2 rejects (lookaround, backreferences, possessive and atomic
groups, conditionals, ``\\Z``) fails with Go's ``error parsing regexp``, as upstream;
RE2 syntax Python reads otherwise (POSIX classes ``[[:alpha:]]``, Unicode classes
``\\pL``, ``\\z``, ``\\C``, ``\\Q…\\E``, the ``U`` flag) is an evaluation error saying
trainc cannot evaluate it. The engine's own ``matches`` is cel-cpp's RE2.
"""

from __future__ import annotations

import functools
import re

from trainc.schema.cel.library.declare import UNSUPPORTED, Function, Library, LibraryError, Overload

#: Perl syntax Go's regexp refuses, and how it names each.
_PERL_ONLY = re.compile(r"\(\?(?:[=!]|<[=!]|>|P=|\()|\\[1-9]|[*+?}]\+|\\Z")
#: RE2 syntax Python's ``re`` reads with another meaning.
_RE2_ONLY = re.compile(r"\[\[:|\\[pP]|\\[zCQE]|\(\?[a-zA-Z]*U")


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``regexp.Compile``; the refusals above as upstream's and trainc's errors."""
    perl = _PERL_ONLY.search(pattern)
    if perl:
        raise LibraryError(
            "Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: "
            f"`{perl.group()}`"
        )
    unsupported = _RE2_ONLY.search(pattern)
    if unsupported:
        raise LibraryError(
            f"{UNSUPPORTED} the RE2 syntax `{unsupported.group()}` of regex {pattern!r}"
        )
    try:
        return re.compile(pattern)
    except re.error as error:
        raise LibraryError(f"Illegal regex: error parsing regexp: {error}") from None


def _find(text: str, pattern: str) -> str:
    match = compile_pattern(pattern).search(text)
    return match.group() if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    """``FindAllString(text, n)``: at most ``n`` matches (all when negative, none at 0)."""
    found: list[str] = []
    for match in compile_pattern(pattern).finditer(text):
        if 0 <= limit <= len(found):
            break
        found.append(match.group())
    return found


REGEX_LIBRARY = Library(
    "regex",
    (1, 0),
    (
        Function(
            "find",
            (Overload("string_find_string", ("string", "string"), "string", _find, member=True),),
        ),
        Function(
            "findAll",
            (
                Overload(
                    "string_find_all_string",
                    ("string", "string"),
                    "list(string)",
                    _find_all,
                    member=True,
                ),
                Overload(
                    "string_find_all_string_int",
                    ("string", "string", "int"),
                    "list(string)",
                    _find_all,
                    member=True,
                ),
            ),
        ),
    ),
)
