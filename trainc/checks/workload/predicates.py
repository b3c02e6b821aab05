"""apimachinery's value predicates that the container rules need and metadata.py lacks.

Each function reproduces one of ``k8s.io/apimachinery/pkg/util/validation`` (or of
``pkg/apis/core/validation``, for the path rules) and returns its error strings (a format
described in words, not by upstream's regular expression), so a finding reads as the API
server words it: port numbers and IANA port names,
environment variable names in their strict and relaxed forms, ConfigMap keys, HTTP header
names, Unix user and group IDs, and the relative-path rules of mounts and files. The
DNS-style name predicates and the wording of apimachinery's ``MaxLenError`` live in
:mod:`trainc.schema.metadata`, and the formats in :mod:`trainc.model.patterns`.
"""

from __future__ import annotations

import re

from trainc.model.patterns import CONFIG_MAP_KEY, ENV_VAR_NAME, HTTP_HEADER_NAME
from trainc.schema.metadata import SUBDOMAIN_MAX, dns1123_subdomain_errors, max_len_error
from trainc.schema.remembered_checks import remembered

#: IANA service names (RFC 6335) are at most 15 characters.
_PORT_NAME_MAX = 15
_PORT_MAX = 65535
#: ``maxUserID``/``maxGroupID``: a pod spec's IDs stay within int32 (``math.MaxInt32``),
#: although Linux IDs are unsigned 32-bit (kubernetes#138574 widened only pod status).
_ID_MAX = 2**31 - 1
_RELAXED_ENV_VAR_NAME_MSG = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)


def port_number_errors(port: int) -> list[str]:
    """Why ``port`` is no port number (1-65535); empty if it is one."""
    return [] if 1 <= port <= _PORT_MAX else [range_error(1, _PORT_MAX)]


@remembered
def port_name_errors(name: str) -> list[str]:
    """Why ``name`` is no IANA service name (``http``, ``metrics``); empty if it is one."""
    errors = [max_len_error(_PORT_NAME_MAX)] if len(name) > _PORT_NAME_MAX else []
    if not re.fullmatch("[-a-z0-9]+", name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        errors.append("must not begin or end with a hyphen")
    return errors


def range_error(low: int, high: int) -> str:
    """apimachinery's ``InclusiveRangeError``."""
    return f"must be between {low} and {high}, inclusive"


def id_errors(value: int) -> list[str]:
    """Why ``value`` is no Unix user or group ID (``IsValidUserID``/``IsValidGroupID``)."""
    return [] if 0 <= value <= _ID_MAX else [range_error(0, _ID_MAX)]


@remembered
def env_var_name_errors(name: str) -> list[str]:
    """Why ``name`` is no environment variable name by the strict rule (before 1.32)."""
    errors = []
    if not ENV_VAR_NAME.matches(name):
        errors.append(ENV_VAR_NAME.explained)
    return errors + dot_prefix_errors(name)


@remembered
def relaxed_env_var_name_errors(name: str) -> list[str]:
    """Why ``name`` is no environment variable name by the relaxed rule: printable ASCII
    without ``=`` (``IsRelaxedEnvVarName``)."""
    errors = ["environment variable name must be non-empty"] if not name else []
    if any(not " " <= char <= "~" or char == "=" for char in name):
        errors.append(_RELAXED_ENV_VAR_NAME_MSG)
    return errors


@remembered
def config_map_key_errors(key: str) -> list[str]:
    """Why ``key`` is no ConfigMap or Secret key (``IsConfigMapKey``); empty if it is one."""
    errors = [max_len_error(SUBDOMAIN_MAX)] if len(key) > SUBDOMAIN_MAX else []
    if not CONFIG_MAP_KEY.matches(key):
        errors.append(CONFIG_MAP_KEY.explained)
    return errors + dot_prefix_errors(key)


def dot_prefix_errors(value: str) -> list[str]:
    """apimachinery's ``hasChDirPrefix``: a name that would walk out of a directory."""
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def http_header_name_errors(name: str) -> list[str]:
    """Why ``name`` is no HTTP header name (``IsHTTPHeaderName``); empty if it is one."""
    return [] if HTTP_HEADER_NAME.matches(name) else [HTTP_HEADER_NAME.explained]


def generated_name_errors(name: str) -> list[str]:
    """``NameIsDNSSubdomain(name, prefix=true)``: a subdomain that may end in ``-``.

    Upstream masks a trailing dash by replacing the last two characters with ``a``
    (``maskTrailingDash``), so ``cfg-`` is checked as ``cfa``.
    """
    if len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return dns1123_subdomain_errors(name)


def relative_path_errors(path: str) -> list[str]:
    """``validateLocalDescendingPath``: a relative path without ``..`` elements."""
    errors = ["must be a relative path"] if path.startswith("/") else []
    return errors + backstep_errors(path)


def backstep_errors(path: str) -> list[str]:
    """``validatePathNoBacksteps``: no ``..`` element (one error however many)."""
    return ["must not contain '..'"] if ".." in path.split("/") else []


#: What Go's ``strings.TrimSpace`` trims: Unicode White_Space (Python's ``str.strip``
#: also strips the ASCII separators U+001C..U+001F, which Go keeps).
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim_space(value: str) -> str:
    """``value`` without leading and trailing whitespace, as Go's ``strings.TrimSpace``."""
    return value.strip(_GO_SPACE)
