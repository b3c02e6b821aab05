"""Amounts as Kueue counts and prints them: whole numbers per resource.

Kueue turns every quantity into an ``int64`` before it compares anything
(``ResourceValue`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/resources/requests.go): cpu in
millicores, everything else in units, both rounded up. Its messages print such a number
back as a quantity (``ResourceFormatter`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/resources/resource_formatter.go):
cpu as millicores in decimal (``16``, ``1500m``), memory, ephemeral storage and hugepages in
canonical binary form (``10Mi``; an amount no power of 1024 divides prints in decimal,
``1M``), every other resource as a plain decimal count (``16``). A resource the Kueue
configuration registers as binary-formatted prints like memory; ``binary`` names them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import ROUND_CEILING, Decimal

from trainc.checks.workload.quantities import Amount, is_hugepages
from trainc.resolve.quantity import format_quantity, is_binary_quantity, parse_quantity

CPU = "cpu"
_BINARY = frozenset({"memory", "ephemeral-storage"})
_THOUSAND = Decimal(1000)

#: A request or quota per resource, in Kueue's whole units.
Values = dict[str, int]


def value(resource: str, amount: Amount) -> int:
    """``ResourceValue``: millicores for cpu, units otherwise, rounded up."""
    scaled = amount.value * _THOUSAND if resource == CPU else amount.value
    return int(scaled.to_integral_value(rounding=ROUND_CEILING))


def values(amounts: Mapping[str, Amount]) -> Values:
    """A resource list in Kueue's units."""
    return {name: value(name, amount) for name, amount in amounts.items()}


def show(resource: str, number: int, binary: Collection[str] = ()) -> str:
    """``ResourceQuantityString``: how a Kueue message prints ``number`` of ``resource``."""
    if resource == CPU:
        return format_quantity(Decimal(number) / _THOUSAND)
    if resource in _BINARY or is_hugepages(resource) or resource in binary:
        # newCanonicalQuantity: printed in BinarySI, then parsed and printed again.
        first = format_quantity(Decimal(number), binary=True)
        return format_quantity(parse_quantity(first), binary=is_binary_quantity(first))
    return format_quantity(Decimal(number))
