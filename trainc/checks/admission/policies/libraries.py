"""What of the API server's CEL environment an offline evaluation cannot offer.

The API server compiles policy expressions with Kubernetes' own libraries on top of CEL's
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go
and ``k8s.io/apiserver/pkg/cel/library``). trainc's engine
(:mod:`trainc.schema.cel.engine`, cel-expr-python) offers the standard library with
``matches``, optionals, sets, strings v2 (including the string method ``format``) and
two-variable comprehensions. It lacks the libraries listed in :data:`MISSING_LIBRARIES`
(the ``format`` library's functions are called as ``format.dns1123Label()``); an
expression calling one of them does not compile here although it does in the cluster, so
it is reported as not evaluated, never as broken nor as passing. Which release introduced
which library is not checked: trainc reports such an expression as not evaluated whatever
the cluster's release.

``authorizer`` asks the cluster's authorizer whether the requester may do something: no
offline answer exists, so a policy whose expressions read it is not evaluated either.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.schema.cel.cost import tokens

#: Kubernetes CEL library functions the engine does not provide, by library.
MISSING_LIBRARIES: dict[str, tuple[str, ...]] = {
    "quantity": ("quantity", "isQuantity"),
    "IP": ("ip", "isIP"),
    "CIDR": ("cidr", "isCIDR"),
    "URL": ("url", "isURL"),
    "regex": ("find", "findAll"),
    "lists": ("isSorted", "sum", "min", "max", "indexOf", "lastIndexOf"),
    "semver": ("semver", "isSemver"),
    "format": ("format.*",),
    "authz": ("authorizer",),
}

#: Libraries whose functions live under a name (``format.dns1123Label()``).
_NAMESPACES = frozenset({"format"})

MISSING_FUNCTIONS: frozenset[str] = frozenset(
    name for names in MISSING_LIBRARIES.values() for name in names
)


def uses_authorizer(expressions: Iterable[str]) -> bool:
    """True when an expression reads the ``authorizer`` variable."""
    return any(_names(expression) & {"authorizer"} for expression in expressions)


def missing_functions(expression: str) -> list[str]:
    """The library functions ``expression`` calls that trainc's engine lacks, sorted."""
    found = tokens(expression)
    called = {
        word
        for index, (kind, word) in enumerate(found)
        if kind == "word" and index + 1 < len(found) and found[index + 1] == ("op", "(")
    }
    namespaced = {
        f"{word}.*"
        for index, (kind, word) in enumerate(found[:-1])
        if kind == "word"
        and word in _NAMESPACES
        and found[index + 1] == ("op", ".")
        and (index == 0 or found[index - 1] != ("op", "."))
    }
    return sorted((called | namespaced) & (MISSING_FUNCTIONS - {"authorizer"}))


def _names(expression: str) -> set[str]:
    """Identifiers not reached through a dot (variables and global functions)."""
    found = tokens(expression)
    return {
        word
        for index, (kind, word) in enumerate(found)
        if kind == "word" and (index == 0 or found[index - 1] != ("op", "."))
    }
