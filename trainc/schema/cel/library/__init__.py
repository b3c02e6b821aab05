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

from trainc.schema.cel.library.cidr import CIDR_LIBRARY
from trainc.schema.cel.library.declare import (
    UNSUPPORTED,
    Function,
    Library,
    LibraryError,
    Overload,
    Release,
)
from trainc.schema.cel.library.format import FORMAT_LIBRARY
from trainc.schema.cel.library.format import PUBLIC_NAMES as FORMAT_NAMES
from trainc.schema.cel.library.ip import IP_LIBRARY
from trainc.schema.cel.library.lists import LISTS_LIBRARY
from trainc.schema.cel.library.lists import PUBLIC_NAMES as LISTS_NAMES
from trainc.schema.cel.library.quantity import QUANTITY_LIBRARY
from trainc.schema.cel.library.regex import REGEX_LIBRARY
from trainc.schema.cel.library.semver import SEMVER_LIBRARY
from trainc.schema.cel.library.urls import URL_LIBRARY
from trainc.schema.cel.library.values import OPAQUE_TYPES

#: Every library, in the order base.go adds them.
LIBRARIES: tuple[Library, ...] = (
    URL_LIBRARY,
    REGEX_LIBRARY,
    LISTS_LIBRARY,
    QUANTITY_LIBRARY,
    IP_LIBRARY,
    CIDR_LIBRARY,
    FORMAT_LIBRARY,
    SEMVER_LIBRARY,
)

#: Private function names the libraries' rewrites call, and the names upstream uses.
PUBLIC_NAMES = {**FORMAT_NAMES, **LISTS_NAMES}


def libraries_at(release: Release | None) -> tuple[Library, ...]:
    """The libraries the API server of ``release`` offers; ``None``: all of them."""
    return tuple(lib for lib in LIBRARIES if release is None or lib.introduced <= release)


__all__ = [
    "LIBRARIES",
    "OPAQUE_TYPES",
    "PUBLIC_NAMES",
    "UNSUPPORTED",
    "Function",
    "Library",
    "LibraryError",
    "Overload",
    "Release",
    "libraries_at",
]
