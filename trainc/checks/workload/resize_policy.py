"""A container's ``resizePolicy`` (``validateResizePolicy`` and the init-container rule of
``validateInitContainers``).

In-place resize (``InPlacePodVerticalScaling``, on by default from 1.33; before, the API
server drops ``resizePolicy``) can change only CPU and memory, each named once, with
``NotRequired`` or ``RestartContainer``. A pod that never restarts its containers
(``restartPolicy: Never``) cannot restart one to resize it, and from 1.36 neither can a
plain init container, which has already finished.
"""

from __future__ import annotations

from trainc.checks.workload.container_context import ContainerContext
from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue

POD_RESIZE_POLICY = Rule(
    "pod.resize-policy",
    Severity.ERROR,
    "a container resizePolicy is invalid",
    doc=RuleDoc(
        what="resources other than cpu and memory, duplicates, policies",
        source="`validateResizePolicy`",
        versions="from 1.33 (`InPlacePodVerticalScaling`)",
    ),
)


RESIZE_POLICY = POD_RESIZE_POLICY.code

#: ``resizePolicy`` itself.
IN_PLACE_RESIZE = Gate("InPlacePodVerticalScaling", (1, 33))
#: From here the message says "pod `restartPolicy`" (containers have one of their own).
_POD_RESTART_WORDING_SINCE: KubeVersion = (1, 34)
#: From here a plain init container may not ask for ``RestartContainer``.
_INIT_RESTART_CONTAINER_SINCE: KubeVersion = (1, 36)

_RESOURCES = ("cpu", "memory")
_POLICIES = ("NotRequired", "RestartContainer")


def check_resize_policy(
    policies: JsonValue, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    """One container's ``resizePolicy``; ``path`` is the list's (where upstream reports)."""
    if not IN_PLACE_RESIZE.enabled(ctx.version):
        return []
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, policy in objects(policies):
        resource, restart = text(policy.get("resourceName")), text(policy.get("restartPolicy"))
        if resource is None or restart is None:
            continue
        if resource in seen:
            errors.append(duplicate((*path, index), RESIZE_POLICY, resource))
        seen.add(resource)
        errors += _enum_errors(resource, _RESOURCES, path) + _enum_errors(restart, _POLICIES, path)
        if ctx.restart_never and restart != "NotRequired":
            errors.append(invalid(path, RESIZE_POLICY, restart, _never_detail(ctx.version)))
    return errors


def _enum_errors(value: str, allowed: tuple[str, ...], path: FieldPath) -> list[FieldError]:
    if value in allowed:
        return []
    if not value:
        return [required(path, RESIZE_POLICY)]
    return [not_supported(path, RESIZE_POLICY, value, allowed)]


def _never_detail(version: KubeVersion) -> str:
    subject = "pod `restartPolicy`" if version >= _POD_RESTART_WORDING_SINCE else "`restartPolicy`"
    return f"must be 'NotRequired' when {subject} is 'Never'"


def check_init_resize_restart(
    container: JsonObject, path: FieldPath, ctx: ContainerContext, *, sidecar: bool
) -> list[FieldError]:
    """``RestartContainer`` on a plain init container; ``path`` is the container's."""
    if sidecar or ctx.version < _INIT_RESTART_CONTAINER_SINCE:
        return []
    detail = "must not be set to 'RestartContainer' for non-sidecar initContainers"
    return [
        invalid(
            (*path, "resizePolicy", index, "restartPolicy"),
            RESIZE_POLICY,
            "RestartContainer",
            detail,
        )
        for index, policy in objects(container.get("resizePolicy"))
        if policy.get("restartPolicy") == "RestartContainer"
    ]
