"""Where an environment variable's value comes from (``validateEnvVarValueFrom``).

``valueFrom`` names exactly one source: a field of the pod (``fieldRef``), a resource of
the container (``resourceFieldRef``), a ConfigMap or Secret key, or (1.35 on) a key of a
file written into an ``emptyDir`` (``fileKeyRef``). A malformed selector makes the API
server refuse the pod; a missing ConfigMap or Secret is the kubelet's problem, out of
scope here. The downward-API field list and the divisor sets are upstream's.
"""

from __future__ import annotations

from decimal import Decimal

from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.resolve.quantity import (
    QuantityError,
    format_quantity,
    is_binary_quantity,
    parse_quantity,
)
from trainc.validate.metadata import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    qualified_name_errors,
)
from trainc.validate.workload.container_context import text
from trainc.validate.workload.fielderrors import FieldError, invalid, not_supported, required
from trainc.validate.workload.predicates import (
    backstep_errors,
    config_map_key_errors,
    relaxed_env_var_name_errors,
)
from trainc.validate.workload.version import Gate, KubeVersion

ENV = "pod.env"

#: ``fileKeyRef``; before 1.35 the API server drops it (unknown field before 1.34).
ENV_FILES = Gate("EnvFiles", (1, 35))

#: Labels ``ConvertDownwardAPIFieldLabel`` accepts for a pod, and what it maps them to.
_DOWNWARD_LABELS = {
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
#: ``validEnvDownwardAPIFieldPathExpressions``, sorted as upstream lists them.
_ENV_FIELD_PATHS = (
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
#: ``validContainerResourceFieldPathExpressions``, sorted.
_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
_HUGEPAGES_PREFIXES = ("requests.hugepages-", "limits.hugepages-")
_BYTE_DIVISORS = frozenset(
    {"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)
_BYTE_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def check_value_from(
    value_from: JsonValue, value: str, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """One variable's ``valueFrom``; ``path`` is the ``valueFrom`` path."""
    if not isinstance(value_from, dict):
        return []
    files = ENV_FILES.enabled(version)
    checks = {
        "fieldRef": _field_ref_errors,
        "resourceFieldRef": _resource_field_ref_errors,
        "configMapKeyRef": _key_ref_errors,
        "secretKeyRef": _key_ref_errors,
        **({"fileKeyRef": _file_key_ref_errors} if files else {}),
    }
    errors: list[FieldError] = []
    sources = 0
    for key, check in checks.items():
        source = value_from.get(key)
        if isinstance(source, dict):
            sources += 1
            errors += check(source, (*path, key))
    if sources == 0:
        listed = (
            "`fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"
            if files
            else "`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        )
        errors.append(invalid(path, ENV, "", f"must specify one of: {listed}"))
    elif value:
        errors.append(invalid(path, ENV, "", "may not be specified when `value` is not empty"))
    elif sources > 1:
        errors.append(
            invalid(path, ENV, "", "may not have more than one field specified at a time")
        )
    return errors


def _field_ref_errors(selector: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateObjectFieldSelector`` with the fields env variables may read."""
    api_version = text(selector.get("apiVersion"))
    field_path = text(selector.get("fieldPath"))
    if api_version is None or field_path is None:
        return []
    if not field_path:
        return [required((*path, "fieldPath"), ENV)]
    converted, problem = _convert_field_label(api_version or "v1", field_path)  # "v1" default
    if problem:
        detail = f"error converting fieldPath: {problem}"
        return [invalid((*path, "fieldPath"), ENV, field_path, detail)]
    base, subscript = _split_subscript(converted)
    if subscript is None:
        if base in _ENV_FIELD_PATHS:
            return []
        return [not_supported((*path, "fieldPath"), ENV, base, _ENV_FIELD_PATHS)]
    key = subscript.lower() if base == "metadata.annotations" else subscript
    return [invalid(path, ENV, key, error) for error in qualified_name_errors(key)]


def _convert_field_label(api_version: str, label: str) -> tuple[str, str]:
    """``ConvertDownwardAPIFieldLabel``: the internal label, or why there is none."""
    if api_version != "v1":
        return "", f"unsupported pod version: {api_version}"
    base, subscript = _split_subscript(label)
    if subscript is not None:
        if base in ("metadata.annotations", "metadata.labels"):
            return label, ""
        return "", f"field label does not support subscript: {label}"
    if label in _DOWNWARD_LABELS:
        return _DOWNWARD_LABELS[label], ""
    return "", f"field label not supported: {label}"


def _split_subscript(field_path: str) -> tuple[str, str | None]:
    """``SplitMaybeSubscriptedPath``: ``metadata.labels['app']`` → ``metadata.labels``, ``app``."""
    if not field_path.endswith("']"):
        return field_path, None
    base, found, subscript = field_path[: -len("']")].partition("['")
    if not found or not base:
        return field_path, None
    return base, subscript


def _resource_field_ref_errors(selector: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateContainerResourceFieldSelector`` for an env variable (no container name)."""
    resource = text(selector.get("resource"))
    if resource is None:
        return []
    errors: list[FieldError] = []
    if not resource:
        errors.append(required((*path, "resource"), ENV))
    elif resource not in _RESOURCE_FIELDS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errors.append(not_supported((*path, "resource"), ENV, resource, _RESOURCE_FIELDS))
    return errors + _divisor_errors(resource, selector.get("divisor"), path)


def _divisor_errors(resource: str, divisor: JsonValue, path: FieldPath) -> list[FieldError]:
    """``validateContainerResourceDivisor``: a divisor in the units the resource allows.

    The error's value is the resource, not the divisor, as upstream reports it.
    """
    try:
        amount = Decimal(0) if divisor is None else parse_quantity(divisor)
    except QuantityError:
        return []  # not a quantity: the schema layer's finding
    if amount.is_zero():
        return []
    shown = format_quantity(amount, binary=is_binary_quantity(divisor))
    kind = _divisor_kind(resource)
    if kind == "cpu":
        allowed, detail = frozenset({"1m", "1"}), "only divisor's values 1m and 1 are supported"
    elif kind:
        allowed, detail = (
            _BYTE_DIVISORS,
            f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported",
        )
    else:
        return []
    if shown in allowed:
        return []
    return [invalid((*path, "divisor"), ENV, resource, f"{detail} with the {kind} resource")]


def _divisor_kind(resource: str) -> str:
    """Which divisor set ``resource`` takes, named as upstream's message names it."""
    if resource in ("limits.cpu", "requests.cpu"):
        return "cpu"
    if resource in ("limits.memory", "requests.memory"):
        return "memory"
    if resource in ("limits.ephemeral-storage", "requests.ephemeral-storage"):
        return "local ephemeral storage"
    return "hugepages" if resource.startswith(_HUGEPAGES_PREFIXES) else ""


def _key_ref_errors(selector: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateConfigMapKeySelector``/``validateSecretKeySelector``."""
    errors: list[FieldError] = []
    name = text(selector.get("name"))
    if name is not None:
        errors += [invalid((*path, "name"), ENV, name, e) for e in dns1123_subdomain_errors(name)]
    key = text(selector.get("key"))
    if key == "":
        errors.append(required((*path, "key"), ENV))
    elif key is not None:
        errors += [invalid((*path, "key"), ENV, key, e) for e in config_map_key_errors(key)]
    return errors


def _file_key_ref_errors(selector: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateFileKeySelector``: a variable name, a volume name and a relative path."""
    errors: list[FieldError] = []
    for field, rule in (
        ("key", relaxed_env_var_name_errors),
        ("volumeName", dns1123_label_errors),
        ("path", backstep_errors),
    ):
        value = text(selector.get(field))
        if value == "":
            errors.append(required((*path, field), ENV))
        elif value is not None:
            errors += [invalid((*path, field), ENV, value, e) for e in rule(value)]
    return errors
