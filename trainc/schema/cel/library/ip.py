"""Kubernetes' IP library: ``ip('10.0.0.1')``, ``isIP``, ``ip.isCanonical``, families, scopes.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/ip.go,
on Go's ``net/netip``: as upstream, an address with a zone (``fe80::1%eth0``) and an
IPv4-mapped IPv6 address (``::ffff:1.2.3.4``) are refused. The scope tests are Go's
definitions (``Addr.IsGlobalUnicast`` counts private addresses as global), not Python's.
``string(ip)`` cannot be declared next to the engine's own ``string()``; an expression
using it is reported as not evaluated (:mod:`trainc.schema.cel.engine`).
"""

from __future__ import annotations

import ipaddress

from trainc.schema.cel.library.declare import Library, LibraryError, member, succeeds
from trainc.schema.cel.library.declare import global_function as function
from trainc.schema.cel.library.values import IP, unwrap, wrap

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_IPV4_LINK_LOCAL_MULTICAST = ipaddress.ip_network("224.0.0.0/24")
_IPV6_LINK_LOCAL_MULTICAST = ipaddress.ip_network("ff02::/16")
_IPV4_LINK_LOCAL_UNICAST = ipaddress.ip_network("169.254.0.0/16")
_IPV6_LINK_LOCAL_UNICAST = ipaddress.ip_network("fe80::/10")
_BROADCAST = ipaddress.ip_address("255.255.255.255")
_OCTET_MAX = 255


def parse_address(text: str) -> Address:
    """``parseIPAddr``: a netip address without zone, not IPv4-mapped; upstream's errors."""
    if "%" in text:
        try:
            ipaddress.ip_address(text)
        except ValueError:
            pass
        else:
            raise LibraryError(f"IP address {go_quote(text)} with zone value is not allowed")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise LibraryError(
            f"IP Address {go_quote(text)} parse error during conversion from string: "
            f"ParseAddr({go_quote(text)}): {_parse_problem(text)}"
        ) from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise LibraryError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return address


def _parse_problem(text: str) -> str:
    """Why ``netip.ParseAddr`` refuses ``text``: its IPv4 reasons exactly (what a policy
    parses is mostly IPv4); an IPv6 address only as ``unable to parse IP``."""
    family = next((char for char in text if char in ".:%"), "")
    if family != ".":
        return "missing IPv6 address" if family == "%" else "unable to parse IP"
    return _ipv4_problem(text)


def _ipv4_problem(text: str) -> str:
    """``parseIPv4``'s error for ``text``."""
    fields, value, digits = 0, 0, 0
    for index, char in enumerate(text):
        if char.isascii() and char.isdigit():
            if digits == 1 and value == 0:
                return "IPv4 field has octet with leading zero"
            value, digits = value * 10 + int(char), digits + 1
            if value > _OCTET_MAX:
                return "IPv4 field has value >255"
        elif char == ".":
            if index in (0, len(text) - 1) or text[index - 1] == ".":
                return f"IPv4 field must have at least one digit (at {go_quote(text[index:])})"
            if fields == 3:  # noqa: PLR2004 - the fourth field
                return "IPv4 address too long"
            fields, value, digits = fields + 1, 0, 0
        else:
            return f"unexpected character (at {go_quote(text[index:])})"
    return "IPv4 address too short" if fields < 3 else "unable to parse IP"  # noqa: PLR2004


def go_quote(text: str) -> str:
    """``text`` as Go's ``%q`` prints it (for the texts a library quotes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ip_value(address: Address) -> dict[str, str]:
    """The IP value of ``address`` (its canonical text, as ``Addr.String``)."""
    return wrap(IP, str(address))


def address_of(value: object) -> Address:
    """The address an IP value holds."""
    return ipaddress.ip_address(unwrap(value, IP))


def _is_canonical(text: str) -> bool:
    return str(parse_address(text)) == text


def _link_local_multicast(address: Address) -> bool:
    if address.version == 4:  # noqa: PLR2004 - the IP family
        return address in _IPV4_LINK_LOCAL_MULTICAST
    return address in _IPV6_LINK_LOCAL_MULTICAST


def _link_local_unicast(address: Address) -> bool:
    if address.version == 4:  # noqa: PLR2004 - the IP family
        return address in _IPV4_LINK_LOCAL_UNICAST
    return address in _IPV6_LINK_LOCAL_UNICAST


def _global_unicast(address: Address) -> bool:
    """Go's ``IsGlobalUnicast``: none of unspecified, loopback, multicast, link-local, broadcast."""
    return not (
        address.is_unspecified
        or address.is_loopback
        or address.is_multicast
        or _link_local_unicast(address)
        or address == _BROADCAST
    )


IP_LIBRARY = Library(
    "IP",
    (1, 30),
    (
        function("ip", "string_to_ip", ("string",), IP, lambda text: ip_value(parse_address(text))),
        member("family", "ip_family", (IP,), "int", lambda value: address_of(value).version),
        function("ip.isCanonical", "ip_is_canonical", ("string",), "bool", _is_canonical),
        member(
            "isUnspecified",
            "ip_is_unspecified",
            (IP,),
            "bool",
            lambda value: address_of(value).is_unspecified,
        ),
        member(
            "isLoopback",
            "ip_is_loopback",
            (IP,),
            "bool",
            lambda value: address_of(value).is_loopback,
        ),
        member(
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            (IP,),
            "bool",
            lambda value: _link_local_multicast(address_of(value)),
        ),
        member(
            "isLinkLocalUnicast",
            "ip_is_link_local_unicast",
            (IP,),
            "bool",
            lambda value: _link_local_unicast(address_of(value)),
        ),
        member(
            "isGlobalUnicast",
            "ip_is_global_unicast",
            (IP,),
            "bool",
            lambda value: _global_unicast(address_of(value)),
        ),
        function("isIP", "is_ip", ("string",), "bool", succeeds(parse_address)),
    ),
)
