"""Per-container restart policies, and what makes an init container a sidecar
(``validateContainerRestartPolicy``, ``validateInitContainerRestartPolicy`` and the
restart-policy branches of ``validateContainers``/``validateInitContainers``).

An init container with ``restartPolicy: Always`` is a sidecar: it keeps running beside the
main containers and may have probes and lifecycle hooks, which a plain init container may
not (a metrics or log shipper declared as an init container without ``Always`` is refused
for its probe). Per-container restart rules (``restartPolicyRules``, a policy on a regular
container, ``OnFailure``/``Never`` on an init container) came in 1.34 behind
``ContainerRestartRules``: off in 1.34, where the API server silently drops them, and on
from 1.35. Before 1.34 a policy on a regular container is forbidden and an init container
only accepts ``Always``.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    not_supported,
    required,
    too_many,
)
from trainc.checks.workload.jsonfields import objects, present, text
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list

POD_CONTAINER_RESTART = Rule(
    "pod.container-restart",
    Severity.ERROR,
    "a container restartPolicy, or a sidecar rule, is broken",
    doc=RuleDoc(
        what=(
            "a container `restartPolicy`; probes or lifecycle on an init container that is "
            "not a sidecar"
        ),
        source="`validateInitContainers`, `validateContainerRestartPolicy`",
        versions=(
            "sidecars (`restartPolicy: Always`) in every release; container restart "
            "rules from 1.35 (`ContainerRestartRules`)"
        ),
    ),
)


CONTAINER_RESTART = POD_CONTAINER_RESTART.code

#: ``restartPolicyRules`` and any container ``restartPolicy`` other than a sidecar's.
CONTAINER_RESTART_RULES = Gate("ContainerRestartRules", (1, 35))
#: The release that added the fields (gate off): the API server drops them there.
_RULES_FIELD_SINCE: KubeVersion = (1, 34)

#: Sorted, as ``sets.List`` prints them.
_POLICIES = ("Always", "Never", "OnFailure")
_OPERATORS = ("In", "NotIn")
#: ``RestartAllContainers`` needs a gate that is off in every release modelled here.
_ACTIONS = ("Restart",)
_MAX_RULES = 20
_MAX_EXIT_CODES = 255

_SIDECAR_ONLY = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def restart_policy(container: JsonObject, version: KubeVersion, *, init: bool) -> str | None:
    """The container's ``restartPolicy`` once the API server dropped what its gate disables.

    In 1.34 only a sidecar's ``Always`` survives; elsewhere the field is kept as written.
    """
    policy = container.get("restartPolicy")
    if not isinstance(policy, str):
        return None
    if version >= _RULES_FIELD_SINCE and not CONTAINER_RESTART_RULES.enabled(version):
        return policy if init and policy == "Always" else None
    return policy


def check_container_restart(
    container: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """A regular container's restart policy and rules; ``path`` is the container's."""
    if CONTAINER_RESTART_RULES.enabled(version):
        return _rules_errors(
            restart_policy(container, version, init=False),
            container.get("restartPolicyRules"),
            path,
        )
    if restart_policy(container, version, init=False) is None:
        return []
    return [
        forbidden(
            (*path, "restartPolicy"), CONTAINER_RESTART, "may not be set for non-init containers"
        )
    ]


def check_init_restart(
    container: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """An init container's restart policy and rules; ``path`` is the container's."""
    policy = restart_policy(container, version, init=True)
    if not CONTAINER_RESTART_RULES.enabled(version):
        if policy is None or policy == "Always":
            return []
        return [not_supported((*path, "restartPolicy"), CONTAINER_RESTART, policy, ("Always",))]
    rules = container.get("restartPolicyRules")
    if policy is None:
        detail = "must specify restartPolicy when restart rules are used"
        return (
            [required((*path, "restartPolicy"), CONTAINER_RESTART, detail)]
            if as_list(rules)
            else []
        )
    if policy == "Always":
        detail = "restartPolicyRules are not allowed for init containers with restart policy Always"
        at = (*path, "restartPolicyRules")
        return [forbidden(at, CONTAINER_RESTART, detail)] if as_list(rules) else []
    return _rules_errors(policy, rules, path)


def _rules_errors(policy: str | None, rules: JsonValue, path: FieldPath) -> list[FieldError]:
    """``validateContainerRestartPolicy``: a known policy, and at most 20 well-formed rules."""
    errors: list[FieldError] = []
    count = len(as_list(rules))
    if policy is None:
        if not count:
            return []
        detail = "must specify restartPolicy when restart rules are used"
        errors.append(required((*path, "restartPolicy"), CONTAINER_RESTART, detail))
    elif policy not in _POLICIES:
        errors.append(not_supported((*path, "restartPolicy"), CONTAINER_RESTART, policy, _POLICIES))
    if count > _MAX_RULES:
        errors.append(too_many((*path, "restartPolicyRules"), CONTAINER_RESTART, count, _MAX_RULES))
    for index, rule in objects(rules):
        at = (*path, "restartPolicyRules", index)
        action = text(rule.get("action"))
        if action is not None and action not in _ACTIONS:
            errors.append(not_supported((*at, "action"), CONTAINER_RESTART, action, _ACTIONS))
        exit_codes = rule.get("exitCodes")
        if not isinstance(exit_codes, dict):
            errors.append(required((*at, "exitCodes"), CONTAINER_RESTART, "must be specified"))
            continue
        operator = text(exit_codes.get("operator"))
        if operator is not None and operator not in _OPERATORS:
            at_operator = (*at, "exitCodes", "operator")
            errors.append(not_supported(at_operator, CONTAINER_RESTART, operator, _OPERATORS))
        values = len(as_list(exit_codes.get("values")))
        if values > _MAX_EXIT_CODES:
            at_values = (*at, "exitCodes", "values")
            errors.append(too_many(at_values, CONTAINER_RESTART, values, _MAX_EXIT_CODES))
    return errors


def check_sidecar_only_fields(
    container: JsonObject, lifecycle: JsonObject | None, path: FieldPath
) -> list[FieldError]:
    """Hooks and probes on an init container that is no sidecar; ``lifecycle`` is the
    container's effective lifecycle (see :func:`~.lifecycle.effective_lifecycle`)."""
    detail = "may not be set for init containers without restartPolicy=Always"
    return [
        forbidden((*path, field), CONTAINER_RESTART, detail)
        for field in _SIDECAR_ONLY
        if (lifecycle is not None if field == "lifecycle" else present(container, field))
    ]
