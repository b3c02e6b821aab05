"""Kubernetes' URL library: ``url('https://example.com:80/p')``, ``isURL`` and the getters.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/urls.go,
on Go's ``net/url``: a URL must be absolute (``scheme:``) or an absolute path
(``url.ParseRequestURI``); the host's port must be digits; the scheme is lower-cased;
``getQuery`` splits on ``&`` and unescapes (``+`` is a space), ``getEscapedPath`` keeps
the path as written when it is validly escaped, else escapes it as Go does.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote

from trainc.schema.cel.library.declare import Library, LibraryError, member
from trainc.schema.cel.library.declare import global_function as function
from trainc.schema.cel.library.ip import go_quote
from trainc.schema.cel.library.values import URL, unwrap, wrap

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_PORT = re.compile(r":[0-9]*")
_VALID_ENCODED = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/\[\]]|%[0-9A-Fa-f]{2})*")
#: Characters Go's ``escape(path, encodePath)`` leaves as they are.
_PATH_SAFE = "-_.~$&+,/:;=@"


class _ParseError(LibraryError):
    """``net/url``'s error, ``parse "TEXT": REASON``."""


def _error(text: str, reason: str) -> _ParseError:
    return _ParseError(f"parse {go_quote(text)}: {reason}")


def request_uri_error(text: str) -> str:
    """``url.ParseRequestURI``'s error for ``text``, or empty when it is a URL."""
    try:
        _parse(text)
    except _ParseError as error:
        return str(error)
    return ""


def _parse(text: str) -> dict[str, str]:
    """``ParseRequestURI`` then ``Parse``: the URL's parts, or upstream's error."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):  # noqa: PLR2004 - ASCII controls
        raise _error(text, "net/url: invalid control character in URL")
    rest, _, _fragment = text.partition("#")
    scheme_match = _SCHEME.match(rest)
    scheme = ""
    if scheme_match:
        scheme = scheme_match.group(1).lower()
        rest = rest[scheme_match.end() :]
    elif not rest.startswith("/"):
        raise _error(text, "invalid URI for request")
    rest, question, query = rest.partition("?")
    host = ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        path = slash + path
        host = authority.rpartition("@")[2]
        _check_host(text, host)
    elif scheme and not rest.startswith("/"):
        path = ""  # an opaque URL (mailto:x) has no path
    else:
        path = rest
    return {"scheme": scheme, "host": host, "path": path, "query": query if question else ""}


def _check_host(text: str, host: str) -> None:
    if host.startswith("["):
        close = host.find("]")
        if close < 0:
            raise _error(text, "missing ']' in host")
        port = host[close + 1 :]
        if port and not _PORT.fullmatch(port):
            raise _error(text, f"invalid port {go_quote(port)} after host")
        return
    colon = host.rfind(":")
    if colon >= 0 and not _PORT.fullmatch(host[colon:]):
        raise _error(text, f"invalid port {go_quote(host[colon:])} after host")


def _url(text: str) -> dict[str, str]:
    error = request_uri_error(text)
    if error:
        raise LibraryError(f"URL parse error during conversion from string: {error}")
    return wrap(URL, text)


def _parts(value: object) -> dict[str, str]:
    return _parse(unwrap(value, URL))


def _is_url(text: str) -> bool:
    return not request_uri_error(text)


def _hostname(host: str) -> str:
    """``URL.Hostname``: the host without port, an IPv6 address without brackets."""
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.rpartition(":")[0] if ":" in host else host


def _port(host: str) -> str:
    """``URL.Port``: the digits after the host's last colon, if any."""
    tail = host[host.find("]") + 1 :] if host.startswith("[") else host
    return tail.rpartition(":")[2] if ":" in tail else ""


def _escaped_path(path: str) -> str:
    """``URL.EscapedPath``: the path as written when validly escaped, else Go's escaping."""
    if _VALID_ENCODED.fullmatch(path):
        return path
    return quote(unquote(path), safe=_PATH_SAFE)


def _query(value: object) -> dict[str, list[str]]:
    """``URL.Query``: each key's values in order; pairs with ``;`` are dropped, as in Go."""
    result: dict[str, list[str]] = {}
    for pair in _parts(value)["query"].split("&"):
        if not pair or ";" in pair:
            continue
        for key, item in parse_qsl(pair, keep_blank_values=True):
            result.setdefault(key, []).append(item)
    return result


URL_LIBRARY = Library(
    "URL",
    (1, 0),
    (
        function("url", "string_to_url", ("string",), URL, _url),
        member("getScheme", "url_get_scheme", (URL,), "string", lambda u: _parts(u)["scheme"]),
        member("getHost", "url_get_host", (URL,), "string", lambda u: _parts(u)["host"]),
        member(
            "getHostname",
            "url_get_hostname",
            (URL,),
            "string",
            lambda u: _hostname(_parts(u)["host"]),
        ),
        member("getPort", "url_get_port", (URL,), "string", lambda u: _port(_parts(u)["host"])),
        member(
            "getEscapedPath",
            "url_get_escaped_path",
            (URL,),
            "string",
            lambda u: _escaped_path(_parts(u)["path"]),
        ),
        member("getQuery", "url_get_query", (URL,), "map(string, list(string))", _query),
        function("isURL", "is_url_string", ("string",), "bool", _is_url),
    ),
)
