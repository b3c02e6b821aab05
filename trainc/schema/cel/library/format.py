"""Kubernetes' format library: ``format.dns1123Label().validate(name)``, ``format.named('uri')``.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/format.go.
The Kubernetes name formats are trainc's own validation (:mod:`trainc.schema.metadata`),
each message with the expression apimachinery's ``RegexError`` appends, as upstream's
list holds it (trainc's own findings leave the expression out); ``uri`` is the URL
library's ``ParseRequestURI``; ``uuid``, ``byte``, ``date`` and ``datetime`` follow
kube-openapi's ``strfmt``.

``validate`` and ``format.named`` return optionals, which a Python function cannot
return to the engine. So :func:`rewrite` turns each call into a private function that
returns a list of zero or one item, followed by ``[?0]`` (CEL's optional indexing), which
is exactly ``optional.none()`` or ``optional.of(item)`` with the type upstream declares.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from collections.abc import Callable

from trainc.model.patterns import (
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    LABEL_VALUE,
    QUALIFIED_NAME,
    TextPattern,
)
from trainc.schema.cel.cost import token_spans
from trainc.schema.cel.library.declare import Function, Library, Overload
from trainc.schema.cel.library.urls import request_uri_error
from trainc.schema.cel.library.values import FORMAT, unwrap, wrap
from trainc.schema.metadata import (
    dns1035_label_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
)

_UUID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}", re.IGNORECASE
)
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
#: strfmt's date-time layouts: RFC 3339 and its ISO 8601 relatives (no seconds, no zone).
_DATETIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?"
)
_HOUR, _MINUTE, _SECOND = 24, 60, 60

#: The private names :func:`rewrite` calls, and the names upstream's messages use for them.
NAMED = "format.__trainc_named__"
VALIDATE = "__trainc_validate__"
PUBLIC_NAMES = {NAMED: "format.named", VALIDATE: "validate"}


def _regex_error(pattern: TextPattern) -> str:
    """apimachinery's ``RegexError``: the rule, its examples and the expression."""
    examples = "".join(
        f"{' or ' if index else ''}'{example}', " for index, example in enumerate(pattern.examples)
    )
    return f"{pattern.rule} (e.g. {examples}regex used for validation is '{pattern.regex}')"


def _with_regex(
    check: Callable[[str], list[str]], *patterns: TextPattern
) -> Callable[[str], list[str]]:
    """``check``'s messages in apimachinery's words, each pattern with its expression."""

    def worded(text: str) -> list[str]:
        errors = check(text)
        for pattern in patterns:
            errors = [error.replace(pattern.explained, _regex_error(pattern)) for error in errors]
        return errors

    return worded


_LABEL = _with_regex(dns1123_label_errors, DNS1123_LABEL)
_SUBDOMAIN = _with_regex(dns1123_subdomain_errors, DNS1123_SUBDOMAIN)
_DNS1035 = _with_regex(dns1035_label_errors, DNS1035_LABEL)


def _prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """apimachinery's ``prefix`` variant: a trailing dash is masked before checking."""

    def masked(text: str) -> list[str]:
        return check(text[:-1] + "a" if len(text) > 1 and text.endswith("-") else text)

    return masked


def _uri(text: str) -> list[str]:
    error = request_uri_error(text)
    return [error] if error else []


def _uuid(text: str) -> list[str]:
    return [] if _UUID.fullmatch(text) else ["does not match the UUID format"]


def _byte(text: str) -> list[str]:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _valid_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        datetime.date(*(int(part) for part in match.groups()))
    except ValueError:
        return False
    return True


def _date(text: str) -> list[str]:
    return [] if _valid_date(text) else ["invalid date"]


def _datetime(text: str) -> list[str]:
    match = _DATETIME.fullmatch(text)
    valid = (
        match is not None
        and _valid_date(match.group(1))
        and int(match.group(2)) < _HOUR
        and int(match.group(3)) < _MINUTE
        and int(match.group(4) or 0) < _SECOND
    )
    return [] if valid else ["invalid datetime"]


#: ``ConstantFormats``: each named format's validation.
FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": _LABEL,
    "dns1123Subdomain": _SUBDOMAIN,
    "dns1035Label": _DNS1035,
    "qualifiedName": _with_regex(qualified_name_errors, QUALIFIED_NAME, DNS1123_SUBDOMAIN),
    "dns1123LabelPrefix": _prefix(_LABEL),
    "dns1123SubdomainPrefix": _prefix(_SUBDOMAIN),
    "dns1035LabelPrefix": _prefix(_DNS1035),
    "labelValue": _with_regex(label_value_errors, LABEL_VALUE),
    "uri": _uri,
    "uuid": _uuid,
    "byte": _byte,
    "date": _date,
    "datetime": _datetime,
}


def _named(name: str) -> list[dict[str, str]]:
    return [wrap(FORMAT, name)] if name in FORMATS else []


def _validate(value: object, text: str) -> list[list[str]]:
    errors = FORMATS[unwrap(value, FORMAT)](text)
    return [errors] if errors else []


def rewrite(expression: str) -> str:
    """``expression`` with ``format.named(…)`` and ``….validate(…)`` calling the private
    list-returning functions, each call followed by ``[?0]``."""
    spans = token_spans(expression)
    edits: list[tuple[int, int, str]] = []
    for index, (kind, text, start) in enumerate(spans):
        if kind != "word" or index + 1 >= len(spans) or spans[index + 1][1] != "(":
            continue
        previous = [token[1] for token in spans[max(0, index - 3) : index]]
        if text == "named" and previous[-2:] == ["format", "."] and previous[:-2] != ["."]:
            name_start = spans[index - 2][2]
            edits.append((name_start, start + len(text), NAMED))
        elif text == "validate" and previous[-1:] == ["."]:
            edits.append((start, start + len(text), VALIDATE))
        else:
            continue
        close = _closing(spans, index + 1)
        if close is None:
            return expression  # unbalanced: let the engine report the syntax error
        edits.append((close + 1, close + 1, "[?0]"))
    for begin, end, replacement in sorted(edits, reverse=True):
        expression = expression[:begin] + replacement + expression[end:]
    return expression


def _closing(spans: tuple[tuple[str, str, int], ...], opening: int) -> int | None:
    """Offset of the parenthesis closing the one at token ``opening``."""
    depth = 0
    for kind, text, start in spans[opening:]:
        if kind != "op":
            continue
        if text in "([{":
            depth += 1
        elif text in ")]}":
            depth -= 1
            if depth == 0:
                return start
    return None


FORMAT_LIBRARY = Library(
    "format",
    (1, 31),
    (
        Function(NAMED, (Overload("format_named_list", ("string",), f"list({FORMAT})", _named),)),
        Function(
            VALIDATE,
            (
                Overload(
                    "format_validate_list",
                    (FORMAT, "string"),
                    "list(list(string))",
                    _validate,
                    member=True,
                ),
            ),
        ),
        *(
            Function(
                f"format.{name}",
                (Overload(f"format.{name}", (), FORMAT, lambda name=name: wrap(FORMAT, name)),),
            )
            for name in FORMATS
        ),
    ),
    rewrite=rewrite,
)
