"""Where an environment variable's value comes from (``validateEnvVarValueFrom``).

``valueFrom`` names exactly one source: a field of the pod (``fieldRef``), a resource of
the container (``resourceFieldRef``), a ConfigMap or Secret key, or (1.35 on) a key of a
file written into an ``emptyDir`` (``fileKeyRef``). A malformed selector makes the API
server refuse the pod; a missing ConfigMap or Secret is the kubelet's problem, out of
scope here. The two downward-API selectors are judged as in a volume
(:mod:`.downward`), against the fields an env variable may read.
"""

from __future__ import annotations

from trainc.checks.workload.downward import (
    ENV_FIELD_PATHS,
    field_selector_errors,
    resource_selector_errors,
)
from trainc.checks.workload.fielderrors import FieldError, invalid, required
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.predicates import (
    backstep_errors,
    config_map_key_errors,
    relaxed_env_var_name_errors,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.schema.metadata import dns1123_label_errors, dns1123_subdomain_errors

POD_ENV = Rule(
    "pod.env",
    Severity.ERROR,
    "an environment variable or envFrom source is invalid",
    doc=RuleDoc(
        what=(
            "variable names, `value` with `valueFrom`, the source of `valueFrom` (field "
            "paths the downward API supports, resource fields, key selectors, `fileKeyRef`), "
            "`envFrom`"
        ),
        source=(
            "`ValidateEnv`, `validateEnvVarValueFrom`, `validateObjectFieldSelector`, "
            "`validateContainerResourceFieldSelector`, `ValidateEnvFrom`"
        ),
        versions=(
            "names relaxed from 1.32 (`RelaxedEnvironmentVariableValidation`); "
            "`fileKeyRef` from 1.35 (`EnvFiles`)"
        ),
    ),
)


ENV = POD_ENV.code

#: ``fileKeyRef``; before 1.35 the API server drops it (unknown field before 1.34).
ENV_FILES = Gate("EnvFiles", (1, 35))


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
    """A ``fieldRef``: one of the pod fields an env variable may read."""
    return field_selector_errors(selector, path, ENV, ENV_FIELD_PATHS)


def _resource_field_ref_errors(selector: JsonObject, path: FieldPath) -> list[FieldError]:
    """A ``resourceFieldRef``: a resource of the variable's own container."""
    return resource_selector_errors(selector, path, ENV, volume=False)


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
