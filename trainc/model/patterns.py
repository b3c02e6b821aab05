"""The text formats checked by a regular expression, each with the words messages use.

A user who wrote ``cpu: 4 cores`` needs to read "a Kubernetes quantity such as 500m, 4Gi
or 2", not the expression that refused it. Every format trainc's schemas, CEL rules and
name checks test by a regular expression is defined here once: the expression (for the
generated schemas, the CEL rules and the checks) and its description (for the messages).
:func:`described` finds the description of an expression as a schema's ``pattern`` or a
CEL ``matches()`` writes it, so a finding about a generated schema says what the value
must look like; an expression not listed here (a user CRD's) is shown as it is.

The name formats are apimachinery's (https://github.com/kubernetes/apimachinery/blob/master/pkg/util/validation/validation.go),
worded as the API server words them, without the expression its messages append.
Each expression reads the same in Python's ``re`` and in ECMA 262, which JSON Schema
and CEL's RE2 use.
"""

from __future__ import annotations

import re

from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class TextPattern:
    """A text format: its regular expression and how a message describes it."""

    regex: str
    """The expression without anchors, as apimachinery writes it."""

    noun: str
    """What a matching value is, for "must be ...": ``a lowercase RFC 1123 label``."""

    rule: str
    """Which characters are allowed where, as one sentence or a clause after a noun."""

    examples: tuple[str, ...] = ()
    """Values that match, shown after the rule."""

    @property
    def anchored(self) -> str:
        """The expression matching whole values only, as schemas and CEL rules write it."""
        return f"^{self.regex}$"

    def matches(self, value: str) -> bool:
        """Whether all of ``value`` has this format."""
        return re.fullmatch(self.regex, value) is not None

    @property
    def explained(self) -> str:
        """The rule followed by the examples, e.g. ``... character (e.g. 'a', 'b' or 'c')``."""
        if not self.examples:
            return self.rule
        shown = [f"'{example}'" for example in self.examples]
        listed = ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]
        return f"{self.rule} (e.g. {listed})"


_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"

DNS1123_LABEL = TextPattern(
    _LABEL,
    "a lowercase RFC 1123 label",
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
    ("my-name", "123-abc"),
)
DNS1123_SUBDOMAIN = TextPattern(
    rf"{_LABEL}(\.{_LABEL})*",
    "a lowercase RFC 1123 subdomain",
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character",
    ("example.com",),
)
DNS1035_LABEL = TextPattern(
    "[a-z]([-a-z0-9]*[a-z0-9])?",
    "a DNS-1035 label",
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character",
    ("my-name", "abc-123"),
)
_LABEL_WITH_UNDERSCORE = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_WITH_UNDERSCORE = TextPattern(
    rf"{_LABEL_WITH_UNDERSCORE}(\.{_LABEL_WITH_UNDERSCORE})*",
    "a lowercase RFC 1123 subdomain",
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', "
    "'-' or '.', and must start and end with an alphanumeric character",
    ("example.com",),
)
_NAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME = TextPattern(
    _NAME_PART,
    "a qualified name",
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character",
    ("MyName", "my.name", "123-abc"),
)
LABEL_VALUE = TextPattern(
    f"({_NAME_PART})?",
    "a label value",
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character",
    ("MyValue", "my_value", "12345"),
)
HTTP_PATH = TextPattern(
    "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+",
    "an HTTP path",
    "must be a valid HTTP path: letters, digits and the characters / - . _ ~ % ! $ & ' ( ) "
    "* + , ; = :",
)
ENV_VAR_NAME = TextPattern(
    "[-._a-zA-Z][-._a-zA-Z0-9]*",
    "an environment variable name",
    "a valid environment variable name must consist of alphabetic characters, digits, '_', "
    "'-', or '.', and must not start with a digit",
    ("my.env-name", "MY_ENV.NAME", "MyEnvName1"),
)
CONFIG_MAP_KEY = TextPattern(
    "[-._a-zA-Z0-9]+",
    "a config key",
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
    ("key.name", "KEY_NAME", "key-name"),
)
HTTP_HEADER_NAME = TextPattern(
    "[-A-Za-z0-9]+",
    "an HTTP header name",
    "a valid HTTP header must consist of alphanumeric characters or '-'",
    ("X-Header-Name",),
)
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
SYSCTL_NAME = TextPattern(
    rf"({_SYSCTL_SEGMENT}[\./])*{_SYSCTL_SEGMENT}",
    "a sysctl name",
    "a sysctl name must consist of segments of lower case alphanumeric characters, '-' or "
    "'_', each starting and ending with an alphanumeric character, separated by '.' or '/'",
    ("kernel.shm_rmid_forced", "net/ipv4/ip_local_port_range"),
)

QUANTITY = TextPattern(
    r"(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?",
    "a Kubernetes quantity such as 500m, 4Gi or 2",
    "a quantity is a number with an optional suffix: a decimal SI suffix (n, u, m, k, M, G, "
    "T, P, E), a binary one (Ki, Mi, Gi, Ti, Pi, Ei) or an exponent (1e3); no spaces or units "
    "such as 'cores' or 'GB'",
)
CONDITION_REASON = TextPattern(
    "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?",
    "a condition reason in CamelCase",
    "a condition reason must start with a letter, may hold letters, digits, '_', ',' and ':', "
    "and must end with a letter, digit or '_'",
    ("JobsCreated", "DeadlineExceeded"),
)
CONDITION_TYPE = TextPattern(
    rf"({DNS1123_SUBDOMAIN.regex}/)?({_NAME_PART})",
    "a condition type",
    "a condition type is an optional DNS subdomain prefix and '/', then alphanumeric "
    "characters, '-', '_' or '.', starting and ending with an alphanumeric character",
    ("Complete", "example.com/Ready"),
)
CEL_IDENTIFIER = TextPattern(
    "[A-Za-z_][A-Za-z0-9_]*",
    "a CEL identifier",
    "a CEL identifier must consist of letters, digits and '_', and must not start with a digit",
    ("maxGPUs", "allowed_registries"),
)
# What the CronJob controller's parser (robfig/cron, standard mode) reads: five fields, or
# one of the macros. A ``TZ=`` prefix, which the API server rejects in ``spec.schedule``,
# fails the field alphabet. The API server has the final word on ranges.
_CRON_FIELD = "[0-9A-Za-z*/,?-]+"
_CRON_MACRO = "@(yearly|annually|monthly|weekly|daily|midnight|hourly)"
CRON_SCHEDULE = TextPattern(
    rf"({_CRON_MACRO}|{_CRON_FIELD}( +{_CRON_FIELD}){{4}})",
    "a cron schedule",
    "a cron schedule is five fields separated by spaces (minute, hour, day of month, month, "
    "day of week) or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly; "
    "no TZ= prefix",
    ("*/10 * * * *", "@hourly"),
)
NO_WHITESPACE = TextPattern(
    r"\S+",
    "a value without whitespace",
    "the value must not be empty or hold spaces, tabs or line breaks",
)
KUBERNETES_MINOR = TextPattern(
    r"1\.[0-9]+",
    "a Kubernetes minor version such as 1.33",
    "write the major and minor version only, as 1.<minor>",
    ("1.33",),
)
POD_SECURITY_VERSION = TextPattern(
    r"(latest|v1\.(0|[1-9][0-9]*))",
    "a Pod Security version such as v1.33 or latest",
    "write latest, or v1.<minor> without leading zeros, as the PodSecurity plugin reads it",
    ("latest", "v1.33"),
)
STORAGE_URI = TextPattern(
    "[A-Za-z][A-Za-z0-9+.-]*://.+",
    "a URI",
    "a URI is a scheme (a letter, then letters, digits, '+', '.' or '-'), '://' and the rest",
    ("hf://meta-llama/Llama-3.2-1B", "s3://bucket/path"),
)

_BY_EXPRESSION = {
    text_pattern.anchored: text_pattern
    for text_pattern in (
        DNS1123_LABEL,
        DNS1123_SUBDOMAIN,
        DNS1035_LABEL,
        DNS1123_SUBDOMAIN_WITH_UNDERSCORE,
        QUALIFIED_NAME,
        LABEL_VALUE,
        HTTP_PATH,
        ENV_VAR_NAME,
        CONFIG_MAP_KEY,
        HTTP_HEADER_NAME,
        SYSCTL_NAME,
        QUANTITY,
        CONDITION_REASON,
        CONDITION_TYPE,
        CEL_IDENTIFIER,
        CRON_SCHEDULE,
        NO_WHITESPACE,
        KUBERNETES_MINOR,
        POD_SECURITY_VERSION,
        STORAGE_URI,
    )
}


def described(expression: str) -> TextPattern | None:
    """The format an anchored expression (``^...$``, as schemas write it) tests, if listed."""
    return _BY_EXPRESSION.get(expression)


def described_in_rule(rule: str) -> tuple[TextPattern, ...]:
    """The listed formats a CEL rule tests with ``matches('^...$')``, in the rule's order."""
    found = {
        rule.find(f".matches('{expression}')"): text_pattern
        for expression, text_pattern in _BY_EXPRESSION.items()
    }
    return tuple(found[at] for at in sorted(found) if at >= 0)
