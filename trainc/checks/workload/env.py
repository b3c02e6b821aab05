"""A container's environment: ``env`` and ``envFrom`` (``ValidateEnv``, ``ValidateEnvFrom``),
and the volumes ``fileKeyRef`` reads (``validateFileKeyRefVolumes``).

Variable names are where most mistakes land: ``NCCL_DEBUG=INFO`` written as a name, a
name with a space. Which names pass changed in 1.32, when the
``RelaxedEnvironmentVariableValidation`` gate turned on by default: before, a name had
to look like a shell identifier (``[-._a-zA-Z][-._a-zA-Z0-9]*``); since, any printable
ASCII without ``=`` is accepted. The same rule applies to ``envFrom`` prefixes.
"""

from __future__ import annotations

from trainc.checks.workload.container_context import ContainerContext
from trainc.checks.workload.env_sources import ENV, ENV_FILES, check_value_from
from trainc.checks.workload.fielderrors import FieldError, invalid, not_found, required
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.predicates import (
    env_var_name_errors,
    generated_name_errors,
    relaxed_env_var_name_errors,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.model.json import FieldPath, JsonObject, JsonValue

#: Any printable ASCII but ``=`` in variable names and ``envFrom`` prefixes.
RELAXED_ENV_NAMES = Gate("RelaxedEnvironmentVariableValidation", (1, 32))


def check_env(container: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """A container's ``env`` then ``envFrom``; ``path`` is the container's."""
    return _check_vars(container.get("env"), (*path, "env"), version) + _check_env_from(
        container.get("envFrom"), (*path, "envFrom"), version
    )


def _name_errors(name: str, version: KubeVersion) -> list[str]:
    if RELAXED_ENV_NAMES.enabled(version):
        return relaxed_env_var_name_errors(name)
    return env_var_name_errors(name)


def _check_vars(variables: JsonValue, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, variable in objects(variables):
        at = (*path, index)
        name = text(variable.get("name"))
        if name == "":
            errors.append(required((*at, "name"), ENV))
        elif name is not None:
            errors += [invalid((*at, "name"), ENV, name, e) for e in _name_errors(name, version)]
        value = text(variable.get("value")) or ""
        errors += check_value_from(variable.get("valueFrom"), value, (*at, "valueFrom"), version)
    return errors


def _check_env_from(sources: JsonValue, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, source in objects(sources):
        at = (*path, index)
        prefix = text(source.get("prefix"))
        if prefix:
            errors += [
                invalid((*at, "prefix"), ENV, prefix, e) for e in _name_errors(prefix, version)
            ]
        count = 0
        for key in ("configMapRef", "secretRef"):
            reference = source.get(key)
            if isinstance(reference, dict):
                count += 1
                errors += _reference_name_errors(reference, (*at, key))
        if count == 0:
            detail = "must specify one of: `configMapRef` or `secretRef`"
            errors.append(invalid(path, ENV, "", detail))
        elif count > 1:
            detail = "may not have more than one field specified at a time"
            errors.append(invalid(path, ENV, "", detail))
    return errors


def _reference_name_errors(reference: JsonObject, path: FieldPath) -> list[FieldError]:
    """The ConfigMap or Secret an ``envFrom`` entry reads: a name, which may end in ``-``."""
    name = text(reference.get("name"))
    if name == "":
        return [required((*path, "name"), ENV)]
    if name is None:
        return []
    return [invalid((*path, "name"), ENV, name, e) for e in generated_name_errors(name)]


def check_file_key_ref_volumes(
    pod_spec: JsonObject, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    """``fileKeyRef`` variables whose volume is missing or no ``emptyDir``.

    Upstream runs this last in ``ValidatePodSpec``, over init containers then
    containers, against every volume of the pod (valid or not); a volume with no source
    is an ``emptyDir`` by default. ``path`` is the pod spec's.
    """
    if not ENV_FILES.enabled(ctx.version):
        return []
    errors: list[FieldError] = []
    for kind in ("initContainers", "containers"):
        for index, container in objects(pod_spec.get(kind)):
            for env_index, variable in objects(container.get("env")):
                selector = variable.get("valueFrom")
                reference = selector.get("fileKeyRef") if isinstance(selector, dict) else None
                if not isinstance(reference, dict):
                    continue
                name = text(reference.get("volumeName"))
                if name is None:
                    continue
                at = (*path, kind, index, "env", env_index, "valueFrom", "fileKeyRef", "volumeName")
                volume = ctx.declared_volumes.get(name)
                if volume is None:
                    errors.append(not_found(at, ENV, name))
                elif not _is_empty_dir(volume):
                    detail = "referenced volume must be of type emptyDir"
                    errors.append(invalid(at, ENV, name, detail))
    return errors


def _is_empty_dir(volume: JsonObject) -> bool:
    """Whether ``volume`` is an ``emptyDir``, as ``SetDefaults_Volume`` leaves it."""
    sources = [key for key, value in volume.items() if key != "name" and value is not None]
    return not sources or "emptyDir" in sources
