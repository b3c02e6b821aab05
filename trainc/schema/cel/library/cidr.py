"""Kubernetes' CIDR library: ``cidr('10.0.0.0/8')``, ``containsIP``, ``containsCIDR``, ``masked``.

https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/library/cidr.go,
on Go's ``netip.ParsePrefix``: the address keeps its host bits (``cidr('192.168.0.1/24')``
is not ``cidr('192.168.0.0/24')`` until ``masked()``), the length is decimal digits
without leading zeros, and an IPv4-mapped IPv6 address is refused. As for IPs,
``string(cidr)`` cannot be declared next to the engine's own ``string()``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import TypeVar

from trainc.schema.cel.library.declare import (
    Function,
    Library,
    LibraryError,
    Overload,
    member,
    succeeds,
)
from trainc.schema.cel.library.declare import global_function as function
from trainc.schema.cel.library.ip import Address, address_of, go_quote, ip_value, parse_address
from trainc.schema.cel.library.values import CIDR, IP, unwrap, wrap

_Argument = TypeVar("_Argument")

_PREFIX_ERROR = "network address parse error during conversion from string: "


def _parse(text: str) -> tuple[Address, int]:
    """``parseCIDR``, with upstream's (doubled) error prefix."""
    address_text, slash, bits_text = text.partition("/")
    reason = _prefix_problem(address_text, slash, bits_text)
    if reason:
        raise LibraryError(
            f"{_PREFIX_ERROR}{_PREFIX_ERROR}netip.ParsePrefix({go_quote(text)}): {reason}"
        )
    address = ipaddress.ip_address(address_text)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise LibraryError(
            f"{_PREFIX_ERROR}IPv4-mapped IPv6 address {go_quote(text)} is not allowed"
        )
    return address, int(bits_text)


def _prefix_problem(address_text: str, slash: str, bits_text: str) -> str:
    if not slash:
        return "no '/'"
    if "%" in address_text:
        return "IPv6 zones cannot be present in a prefix"
    try:
        address = ipaddress.ip_address(address_text)
    except ValueError:
        return f"ParseAddr({go_quote(address_text)}): unable to parse IP"
    if not bits_text.isdigit() or (len(bits_text) > 1 and bits_text[0] == "0"):
        return f"bad bits after slash: {go_quote(bits_text)}"
    if int(bits_text) > address.max_prefixlen:
        return "prefix length out of range"
    return ""


def _value(address: Address, bits: int) -> dict[str, str]:
    return wrap(CIDR, f"{address}/{bits}")


def _prefix(value: object) -> tuple[Address, int]:
    address_text, _, bits = unwrap(value, CIDR).partition("/")
    return ipaddress.ip_address(address_text), int(bits)


def _network(address: Address, bits: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(f"{address}/{bits}", strict=False)


def _contains_address(value: object, address: Address) -> bool:
    prefix, bits = _prefix(value)
    return address.version == prefix.version and address in _network(prefix, bits)


def _contains_prefix(value: object, other: tuple[Address, int]) -> bool:
    """``Masked() == PrefixFrom(other's address, bits)`` and no longer than ``other``."""
    prefix, bits = _prefix(value)
    address, other_bits = other
    if address.version != prefix.version:
        return False
    return _network(prefix, bits) == _network(address, bits) and bits <= other_bits


def _masked(value: object) -> dict[str, str]:
    prefix, bits = _prefix(value)
    return _value(_network(prefix, bits).network_address, bits)


def _ip_of(value: object) -> Address:
    return parse_address(value) if isinstance(value, str) else address_of(value)


def _prefix_of(value: object) -> tuple[Address, int]:
    return _parse(value) if isinstance(value, str) else _prefix(value)


def _containment(
    name: str,
    overload_id: str,
    other: str,
    test: Callable[[object, _Argument], bool],
    argument: Callable[[object], _Argument],
) -> Function:
    """``name`` with its argument as a string or as a value of type ``other``."""
    return Function(
        name,
        tuple(
            Overload(
                f"{overload_id}{suffix}",
                (CIDR, kind),
                "bool",
                lambda value, arg: test(value, argument(arg)),
                member=True,
            )
            for kind, suffix in (("string", "_string"), (other, ""))
        ),
    )


CIDR_LIBRARY = Library(
    "CIDR",
    (1, 30),
    (
        function("cidr", "string_to_cidr", ("string",), CIDR, lambda text: _value(*_parse(text))),
        _containment("containsIP", "cidr_contains_ip", IP, _contains_address, _ip_of),
        _containment("containsCIDR", "cidr_contains_cidr", CIDR, _contains_prefix, _prefix_of),
        member("ip", "cidr_ip", (CIDR,), IP, lambda value: ip_value(_prefix(value)[0])),
        member(
            "prefixLength", "cidr_prefix_length", (CIDR,), "int", lambda value: _prefix(value)[1]
        ),
        member("masked", "cidr_masked", (CIDR,), CIDR, _masked),
        function("isCIDR", "is_cidr", ("string",), "bool", succeeds(_parse)),
    ),
)
