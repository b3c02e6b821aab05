"""The Kubernetes CEL libraries, as the API server offers them, for trainc's one engine.

The API server compiles every CEL expression (CRD validation rules, ValidatingAdmissionPolicies)
in its base environment, which adds Kubernetes' own libraries to CEL's by the release that
introduced them
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go):
URLs, regex and lists always, quantity from 1.28, IP and CIDR from 1.30, format from 1.31,
semver (with its ``normalize`` argument) from 1.33. Each library is one module here, a
:class:`Library` of plain Python functions over plain values; only the adapter,
:mod:`trainc.schema.cel.engine`, turns them into engine declarations, so an expression
calling a function the configured release does not have fails to compile, as it does on
that API server. ``authorizer`` is no library here: only the cluster can answer it.
"""

from __future__ import annotations

#: The words that name a library function in an expression: each function's name, or
#: the first part of a dotted one (``format.dns1123Label``, ``ip.isCanonical``). An
#: expression without any of them compiles and runs in CEL's environment alone, so that
#: the hook path neither imports the libraries nor compiles twice for them
#: (:mod:`trainc.schema.cel.engine`); tests check this set against the libraries.
NAMES = frozenset(
    {
        "add",
        "asApproximateFloat",
        "asInteger",
        "cidr",
        "compareTo",
        "containsCIDR",
        "containsIP",
        "family",
        "find",
        "findAll",
        "format",
        "getEscapedPath",
        "getHost",
        "getHostname",
        "getPort",
        "getQuery",
        "getScheme",
        "indexOf",
        "ip",
        "isCIDR",
        "isGlobalUnicast",
        "isGreaterThan",
        "isIP",
        "isInteger",
        "isLessThan",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isLoopback",
        "isQuantity",
        "isSemver",
        "isSorted",
        "isURL",
        "isUnspecified",
        "lastIndexOf",
        "major",
        "masked",
        "max",
        "min",
        "minor",
        "patch",
        "prefixLength",
        "quantity",
        "semver",
        "sign",
        "sub",
        "sum",
        "url",
        "validate",
    }
)
