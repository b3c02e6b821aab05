"""The downward API's selectors: what a pod may read of itself, and in which units.

An environment variable's ``valueFrom`` and a ``downwardAPI`` volume file (plain or
projected) name the same two selectors, and the API server judges both with the same
functions of ``pkg/apis/core/validation``: ``validateObjectFieldSelector`` (a ``fieldRef``,
through ``ConvertDownwardAPIFieldLabel``), ``validateContainerResourceFieldSelector`` (a
``resourceFieldRef``) and ``validateContainerResourceDivisor``. Only the pod fields each
caller may expose differ, so this module holds the rules and the tables once, and the
callers (:mod:`.env_sources`, :mod:`.volume_files`) say which fields they allow and under
which rule code they report.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from trainc.checks.workload.fielderrors import FieldError, invalid, not_supported, required
from trainc.checks.workload.jsonfields import text
from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.resolve.quantity import (
    QuantityError,
    format_quantity,
    is_binary_quantity,
    parse_quantity,
)
from trainc.schema.metadata import qualified_name_errors

#: Labels ``ConvertDownwardAPIFieldLabel`` accepts for a v1 pod, and what it maps them to.
_FIELD_LABELS = {
    label: label
    for label in (
        "metadata.annotations",
        "metadata.labels",
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "spec.schedulerName",
        "status.phase",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    )
} | {"spec.host": "spec.nodeName"}
#: The only fields a label may be subscripted in (``metadata.labels['app']``).
_SUBSCRIPTED = ("metadata.annotations", "metadata.labels")

#: ``validEnvDownwardAPIFieldPathExpressions``, sorted as upstream lists them.
ENV_FIELD_PATHS = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)
#: ``validVolumeDownwardAPIFieldPathExpressions``: a volume may expose fewer fields.
VOLUME_FIELD_PATHS = (
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
)

#: ``validContainerResourceFieldPathExpressions``, sorted.
_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
#: ``validContainerResourceFieldPathPrefixesWithDownwardAPIHugePages``.
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_BYTE_DIVISORS = frozenset(
    {"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)
_BYTE_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
#: Per resource (after ``limits.`` or ``requests.``): the divisors it accepts, as the
#: message lists them, and the name the message gives the resource.
_DIVISORS = {
    "cpu": (frozenset({"1m", "1"}), "1m and 1", "cpu"),
    "memory": (_BYTE_DIVISORS, _BYTE_DIVISORS_TEXT, "memory"),
    "ephemeral-storage": (_BYTE_DIVISORS, _BYTE_DIVISORS_TEXT, "local ephemeral storage"),
}
_HUGEPAGES_DIVISORS = (_BYTE_DIVISORS, _BYTE_DIVISORS_TEXT, "hugepages")


def field_selector_errors(
    selector: JsonObject, path: FieldPath, code: str, allowed: Sequence[str]
) -> list[FieldError]:
    """``validateObjectFieldSelector``: a ``fieldRef`` naming one of ``allowed``, or a
    well-formed key of the pod's labels or annotations; ``path`` is the ``fieldRef``'s.

    ``apiVersion`` defaults to ``v1`` (``SetDefaults_ObjectFieldSelector``).
    """
    api_version, field_path = text(selector.get("apiVersion")), text(selector.get("fieldPath"))
    if api_version is None or field_path is None:
        return []
    at: FieldPath = (*path, "fieldPath")
    if not field_path:
        return [required(at, code)]
    converted, problem = _convert_field_label(api_version or "v1", field_path)
    if problem:
        return [invalid(at, code, field_path, f"error converting fieldPath: {problem}")]
    base, subscript = _split_subscript(converted)
    if subscript is None:
        return [] if base in allowed else [not_supported(at, code, base, allowed)]
    key = subscript.lower() if base == "metadata.annotations" else subscript
    return [invalid(path, code, key, message) for message in qualified_name_errors(key)]


def _convert_field_label(api_version: str, label: str) -> tuple[str, str]:
    """``ConvertDownwardAPIFieldLabel``: the internal label, or why there is none."""
    if api_version != "v1":
        return "", f"unsupported pod version: {api_version}"
    base, subscript = _split_subscript(label)
    if subscript is not None:
        if base in _SUBSCRIPTED:
            return label, ""
        return "", f"field label does not support subscript: {label}"
    if label in _FIELD_LABELS:
        return _FIELD_LABELS[label], ""
    return "", f"field label not supported: {label}"


def _split_subscript(field_path: str) -> tuple[str, str | None]:
    """``SplitMaybeSubscriptedPath``: ``metadata.labels['app']`` → ``metadata.labels``, ``app``."""
    if not field_path.endswith("']"):
        return field_path, None
    base, found, subscript = field_path.removesuffix("']").partition("['")
    if not found or not base:
        return field_path, None
    return base, subscript


def resource_selector_errors(
    selector: JsonObject, path: FieldPath, code: str, *, volume: bool
) -> list[FieldError]:
    """``validateContainerResourceFieldSelector``: a resource of the container, in a unit
    it can be expressed in; ``path`` is the ``resourceFieldRef``'s.

    A volume file must name the container (``volume``); an env variable reads its own.
    """
    resource = text(selector.get("resource"))
    if resource is None:
        return []
    errors: list[FieldError] = []
    if volume and not text(selector.get("containerName")):
        errors.append(required((*path, "containerName"), code))
    elif not resource:
        errors.append(required((*path, "resource"), code))
    elif resource not in _RESOURCE_FIELDS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errors.append(not_supported((*path, "resource"), code, resource, _RESOURCE_FIELDS))
    return errors + _divisor_errors(resource, selector.get("divisor"), path, code)


def _divisor_errors(
    resource: str, divisor: JsonValue, path: FieldPath, code: str
) -> list[FieldError]:
    """``validateContainerResourceDivisor``: a divisor in the units the resource allows.

    The error's value is the resource, not the divisor, as upstream reports it.
    """
    try:
        amount = Decimal(0) if divisor is None else parse_quantity(divisor)
    except QuantityError:
        return []  # not a quantity: the schema layer's finding
    if amount.is_zero():
        return []  # unset
    scope, _, name = resource.partition(".")
    if scope in ("limits", "requests") and name in _DIVISORS:
        allowed, listed, what = _DIVISORS[name]
    elif resource.startswith(_HUGEPAGES_PREFIXES):
        allowed, listed, what = _HUGEPAGES_DIVISORS
    else:
        return []
    if format_quantity(amount, binary=is_binary_quantity(divisor)) in allowed:
        return []
    detail = f"only divisor's values {listed} are supported with the {what} resource"
    return [invalid((*path, "divisor"), code, resource, detail)]
