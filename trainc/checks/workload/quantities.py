"""Resource names and amounts as the API server judges them in a ``ResourceList``.

A container's ``requests`` and ``limits``, a pod's ``resources`` and ``overhead`` are all
``ResourceList`` maps, and the API server's rules on their keys and values are the same
wherever they appear (``validateResourceName``, ``validateContainerResourceName``,
``validatePodResourceName``, ``ValidateResourceQuantityValue`` and the hugepage checks
in ``pkg/apis/core/validation``, with the name predicates of ``pkg/apis/core/helper``).
This module holds those rules; :mod:`~trainc.checks.workload.resources` applies them to
the maps a pod spec carries.

Amounts are judged after defaulting: ``SetDefaults_ResourceList`` rounds every amount up
(away from zero) to a thousandth, so ``0.0001`` CPU is validated, and printed, as ``1m``.
An amount is printed the way the API server prints it, in canonical form (``1500m``,
``1536Mi``): the text it validates is the canonical text the controllers sent it.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_UP, Decimal

from trainc.checks.workload.fielderrors import FieldError, Key, invalid, not_supported
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonValue
from trainc.records import dataclass
from trainc.resolve.quantity import (
    QuantityError,
    format_quantity,
    is_binary_quantity,
    parse_quantity,
    quantity_value,
)
from trainc.schema.metadata import qualified_name_errors

POD_RESOURCE_NAME = Rule(
    "pod.resource-name",
    Severity.ERROR,
    "a resource name is not a standard or qualified one",
    doc=RuleDoc(
        what=(
            "a resource name that is not standard or fully qualified (`gpu` instead of "
            "`nvidia.com/gpu`)"
        ),
        source="`validateContainerResourceName`, `validateResourceName`",
        versions="all",
    ),
)

POD_RESOURCE_QUANTITY = Rule(
    "pod.resource-quantity",
    Severity.ERROR,
    "a resource quantity is negative or not a whole number",
    doc=RuleDoc(
        what="a negative amount, a fraction of an extended resource (`0.5` GPUs)",
        source="`ValidateResourceQuantityValue`, `ValidateNonnegativeQuantity`",
        versions=(
            'all; the amount is named by its text (`"500m"`), where the API server '
            "before 1.34 prints Go's dump of the quantity"
        ),
    ),
)

POD_HUGEPAGES = Rule(
    "pod.hugepages",
    Severity.ERROR,
    "hugepages requests break the hugepages rules",
    doc=RuleDoc(
        what="hugepages that are no whole number of pages, or without cpu or memory",
        source="`validateResourceRequirements`",
        versions="all",
    ),
)


#: Rule codes of the checks on one resource name or amount.
NAME_CODE = POD_RESOURCE_NAME.code
QUANTITY_CODE = POD_RESOURCE_QUANTITY.code
HUGEPAGES_CODE = POD_HUGEPAGES.code

HUGEPAGES_PREFIX = "hugepages-"
_REQUESTS_HUGEPAGES_PREFIX = "requests.hugepages-"
_MILLI = Decimal("0.001")

#: ``integerResources``: object counts, which (like extended resources) are whole numbers.
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
#: ``standardResources`` of ``pkg/apis/core/helper``: names that need no domain prefix,
#: the object counts among them.
_STANDARD_RESOURCES = _INTEGER_RESOURCES | {
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "storage",
    "requests.storage",
}
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_POD_LEVEL_RESOURCES = frozenset({"cpu", "memory"})


@dataclass(frozen=True, slots=True)
class Amount:
    """A defaulted quantity, and whether it was written with a binary suffix (``Gi``)."""

    value: Decimal
    binary: bool

    def __str__(self) -> str:
        """``Quantity.String()``: the canonical text the API server prints."""
        return format_quantity(self.value, binary=self.binary)


def defaulted_amount(raw: JsonValue) -> Amount | None:
    """``raw`` after ``SetDefaults_ResourceList`` (rounded up to 1m); None if no quantity.

    Text that is no quantity never reaches validation (the API server cannot decode the
    object), so callers skip it: the schema layer reports it.
    """
    try:
        amount = parse_quantity(raw)
    except QuantityError:
        return None
    rounded = amount.quantize(_MILLI, rounding=ROUND_UP)
    return Amount(rounded, is_binary_quantity(raw))


def resource_amounts(value: JsonValue) -> dict[str, Amount]:
    """The decodable entries of a ``ResourceList`` mapping, in the order written."""
    if not isinstance(value, dict):
        return {}
    amounts = ((name, defaulted_amount(raw)) for name, raw in value.items())
    return {name: amount for name, amount in amounts if amount is not None}


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: unprefixed, or in a ``kubernetes.io/`` domain."""
    return "/" not in name or "kubernetes.io/" in name


def is_hugepages(name: str) -> bool:
    """Whether ``name`` is a hugepage size (``hugepages-2Mi``)."""
    return name.startswith(HUGEPAGES_PREFIX)


def overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: requests may undercut limits (not extended, not hugepages)."""
    return is_native_resource(name) and not is_hugepages(name)


def _is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: a vendor resource whose quota name would be valid."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def _is_standard(name: str) -> bool:
    prefixes = (HUGEPAGES_PREFIX, _REQUESTS_HUGEPAGES_PREFIX)
    return name in _STANDARD_RESOURCES or name.startswith(prefixes)


def _resource_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    """``validateResourceName``: a qualified name; standard unless domain-prefixed."""
    errors = [invalid(path, NAME_CODE, name, msg) for msg in qualified_name_errors(name)]
    if not errors and "/" not in name and not _is_standard(name):
        errors.append(
            invalid(path, NAME_CODE, name, "must be a standard resource type or fully qualified")
        )
    return errors


def container_resource_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    """``validateContainerResourceName``: what a container (or overhead) may list.

    Unprefixed names must be cpu, memory, ephemeral-storage or a hugepage size (so a bare
    ``gpu`` fails twice, as upstream reports it); prefixed names outside
    ``kubernetes.io`` must be valid extended resource names (``nvidia.com/gpu``).
    """
    errors = _resource_name_errors(name, path)
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not is_hugepages(name):
            errors.append(
                invalid(path, NAME_CODE, name, "must be a standard resource for containers")
            )
    elif not is_native_resource(name) and not _is_extended(name):
        errors.append(
            invalid(path, NAME_CODE, name, "doesn't follow extended resource name standard")
        )
    return errors


def pod_resource_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    """``validatePodResourceName``: pod-level resources are cpu, memory and hugepages only."""
    errors = _resource_name_errors(name, path)
    if not errors and name not in _POD_LEVEL_RESOURCES and not is_hugepages(name):
        supported = sorted({*_POD_LEVEL_RESOURCES, HUGEPAGES_PREFIX})
        errors.append(not_supported(path, NAME_CODE, name, supported))
    return errors


def amount_errors(name: str, amount: Amount, path: FieldPath) -> list[FieldError]:
    """``ValidateResourceQuantityValue``: never negative; whole for extended resources.

    The API server prints the quantity itself for the whole-number rule, which releases
    before 1.34 render as Go's dump of the struct (``resource.Quantity{i:...}``): the
    finding names the quantity by its text (``"500m"``), as 1.34 on prints it, since a
    struct dump tells nobody which value to change.
    """
    errors: list[FieldError] = []
    if amount.value < 0:
        errors.append(
            invalid(path, QUANTITY_CODE, str(amount), "must be greater than or equal to 0")
        )
    if is_whole_resource(name) and amount.value != amount.value.to_integral_value():
        hint = whole_units_hint(name, amount.value)
        errors.append(invalid(path, QUANTITY_CODE, str(amount), "must be an integer", hint))
    return errors


def is_whole_resource(name: str) -> bool:
    """Whether amounts of ``name`` must be whole: an object count or an extended resource
    (``nvidia.com/gpu``), which devices are handed out in."""
    return name in _INTEGER_RESOURCES or _is_extended(name)


def whole_units_hint(name: str, value: Decimal) -> str:
    """What to write instead of a fraction of a whole-number resource.

    Quoting ``0.5`` makes it a quantity (``500m``) but not a whole one, so the advice is
    the next whole number; a share of a GPU is a resource of its own that the device
    plugin offers (MIG slices, time-slicing replicas), never a fraction of the device.
    """
    whole = max(1, int(value.to_integral_value(rounding=ROUND_UP)))
    written = format_quantity(value, binary=False)
    hint = (
        f"{name} is counted in whole units, and {written} is {value.normalize():f}: "
        f"write a whole number such as {whole}"
    )
    if _is_extended(name):
        hint += (
            "; a share of a device is a resource name of its own that the device plugin "
            "offers (MIG, time-slicing)"
        )
    return hint


def hugepage_amount_errors(name: str, amount: Amount, path: FieldPath) -> list[FieldError]:
    """``validateResourceQuantityHugePageValue``: a whole number of pages of the named size.

    The page size is the name's suffix (``hugepages-2Mi``); a suffix that is no positive
    whole quantity divides nothing, so every amount of it fails.
    """
    if not is_hugepages(name) or _divides(name.removeprefix(HUGEPAGES_PREFIX), amount.value):
        return []
    return [
        invalid(
            path,
            HUGEPAGES_CODE,
            str(amount),
            f"{amount} is not positive integer multiple of {name}",
        )
    ]


def _divides(page_text: str, amount: Decimal) -> bool:
    try:
        page = parse_quantity(page_text)
    except QuantityError:
        return False
    if page <= 0 or page != page.to_integral_value():
        return False
    return quantity_value(amount) % quantity_value(page) == 0


def keyed(path: FieldPath, names: dict[str, Amount]) -> Iterator[tuple[str, Amount, FieldPath]]:
    """Each entry of ``names`` with its path ``path[name]``."""
    for name, amount in names.items():
        yield name, amount, (*path, Key(name))
