"""The API server's rules for a pod spec's ``containers`` and ``initContainers``
(``validateContainers``, ``validateInitContainers``, ``validateContainerCommon``, and the
pod-only ``validateContainersOnlyForPod``).

Every container needs a DNS-label name unique across both lists and an image (the runtime
may leave it to the TrainJob's ``trainer.image``; if neither sets it, the Job is refused);
a pod needs at least one regular container. The field groups are judged by the sibling
modules, in upstream's order within each container: name, image, termination message
policy, ports, env, mounts, pull policy, resize policy, security context (the resource
checks, which :mod:`.resources` owns, come between pull policy and resize policy
upstream). Regular containers then get their hooks, probes and restart policy; init
containers their restart policy, and hooks and probes only when they are sidecars.

Errors come in the order the API server produces them: the Job's pod template first
(``ValidatePodTemplateSpec``), then what only a Pod created from it is checked for
(image whitespace, host ports that ``hostNetwork`` fills in).
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.checks.workload.container_context import ContainerContext, context_of
from trainc.checks.workload.container_security import check_security_context
from trainc.checks.workload.env import check_env, check_file_key_ref_volumes
from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
)
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.lifecycle import (
    check_lifecycle,
    check_termination_message_policy,
    effective_lifecycle,
)
from trainc.checks.workload.mounts import check_mounts
from trainc.checks.workload.ports import check_host_port_conflicts, check_ports
from trainc.checks.workload.predicates import trim_space
from trainc.checks.workload.probes import check_probes
from trainc.checks.workload.pull_policy import pull_policy_errors
from trainc.checks.workload.resize_policy import check_init_resize_restart, check_resize_policy
from trainc.checks.workload.restart_rules import (
    check_container_restart,
    check_init_restart,
    check_sidecar_only_fields,
    restart_policy,
)
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list
from trainc.schema.metadata import dns1123_label_errors

POD_CONTAINERS = Rule(
    "pod.containers",
    Severity.ERROR,
    "the pod template has no containers, or ephemeral containers",
    doc=RuleDoc(
        what="no containers; ephemeral containers in a template",
        source="`validateContainers`, `ValidatePodTemplateSpec`",
        versions="all",
    ),
)

POD_CONTAINER_NAME = Rule(
    "pod.container-name",
    Severity.ERROR,
    "a container name is missing, no DNS label, or used twice",
    doc=RuleDoc(
        what=(
            "a name that is missing, not a DNS-1123 label, or used twice across containers "
            "and initContainers"
        ),
        source="`validateContainers`, `validateInitContainers`",
        versions="all",
    ),
)

POD_IMAGE = Rule(
    "pod.image",
    Severity.ERROR,
    "a container has no image, or an unknown imagePullPolicy",
    doc=RuleDoc(
        what=(
            "no image (neither the runtime nor `trainer.image` sets one), an unknown "
            "`imagePullPolicy`, an image with surrounding blanks (on the Pods)"
        ),
        source="`validateContainerCommon`, `validatePullPolicy`, `validateContainerOnlyForPod`",
        versions="all",
    ),
)


CONTAINERS = POD_CONTAINERS.code
CONTAINER_NAME = POD_CONTAINER_NAME.code
IMAGE = POD_IMAGE.code


def check_containers(
    pod_spec: JsonObject,
    path: FieldPath,
    version: KubeVersion,
    *,
    volumes: Mapping[str, JsonObject],
) -> list[FieldError]:
    """containers and initContainers of one pod spec; path is the pod spec's."""
    ctx = context_of(pod_spec, version, volumes)
    errors = _check_regular(pod_spec, path, ctx)
    errors += _check_init(pod_spec, path, ctx)
    errors += check_file_key_ref_volumes(pod_spec, path, ctx)
    if as_list(pod_spec.get("ephemeralContainers")):
        at = (*path, "ephemeralContainers")
        errors.append(forbidden(at, CONTAINERS, "ephemeral containers not allowed in pod template"))
    return errors + _pod_only_errors(pod_spec, path, ctx, errors)


def _check_regular(
    pod_spec: JsonObject, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    containers = pod_spec.get("containers")
    list_path = (*path, "containers")
    if containers is None or containers == []:
        return [required(list_path, CONTAINERS)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, container in objects(containers):
        at = (*list_path, index)
        errors += _check_common(container, at, ctx)
        name = text(container.get("name"))
        if name is not None:
            if name in names:
                errors.append(duplicate((*at, "name"), CONTAINER_NAME, name))
            names.add(name)
        lifecycle = effective_lifecycle(container.get("lifecycle"), ctx.version)
        if lifecycle is not None:
            errors += check_lifecycle(lifecycle, (*at, "lifecycle"), ctx)
        errors += check_probes(container, at)
        errors += check_container_restart(container, at, ctx.version)
    return errors + check_host_port_conflicts(as_list(containers), list_path)


def _check_init(pod_spec: JsonObject, path: FieldPath, ctx: ContainerContext) -> list[FieldError]:
    list_path = (*path, "initContainers")
    names = {text(container.get("name")) for _, container in objects(pod_spec.get("containers"))}
    errors: list[FieldError] = []
    for index, container in objects(pod_spec.get("initContainers")):
        at = (*list_path, index)
        errors += _check_common(container, at, ctx)
        errors += check_init_restart(container, at, ctx.version)
        name = text(container.get("name"))
        if name is not None and name in names:
            errors.append(duplicate((*at, "name"), CONTAINER_NAME, name))
        elif name:
            names.add(name)
        # Init containers run one at a time: each one's host ports are checked alone, and
        # upstream numbers it 0 in the path whatever its place in the list.
        errors += check_host_port_conflicts([container], list_path)
        lifecycle = effective_lifecycle(container.get("lifecycle"), ctx.version)
        sidecar = restart_policy(container, ctx.version, init=True) == "Always"
        if sidecar:
            if lifecycle is not None:
                errors += check_lifecycle(lifecycle, (*at, "lifecycle"), ctx)
            errors += check_probes(container, at)
        else:
            errors += check_sidecar_only_fields(container, lifecycle, at)
        errors += check_init_resize_restart(container, at, ctx, sidecar=sidecar)
    return errors


def _check_common(
    container: JsonObject, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    """What every container is checked for (``validateContainerCommon``), in its order."""
    errors = _name_errors(container, path)
    if text(container.get("image")) == "":
        errors.append(required((*path, "image"), IMAGE))
    errors += check_termination_message_policy(container, path)
    errors += check_ports(container.get("ports"), (*path, "ports"))
    errors += check_env(container, path, ctx.version)
    errors += check_mounts(container, path, ctx)
    errors += pull_policy_errors(
        container.get("imagePullPolicy"), (*path, "imagePullPolicy"), IMAGE
    )
    errors += check_resize_policy(container.get("resizePolicy"), (*path, "resizePolicy"), ctx)
    return errors + check_security_context(
        container.get("securityContext"), (*path, "securityContext"), ctx
    )


def _name_errors(container: JsonObject, path: FieldPath) -> list[FieldError]:
    name = text(container.get("name"))
    if name == "":
        return [required((*path, "name"), CONTAINER_NAME)]
    if name is None:
        return []
    return [invalid((*path, "name"), CONTAINER_NAME, name, e) for e in dns1123_label_errors(name)]


def _pod_only_errors(
    pod_spec: JsonObject, path: FieldPath, ctx: ContainerContext, template_errors: list[FieldError]
) -> list[FieldError]:
    """What a Pod is refused for although its template passed.

    With ``hostNetwork`` a Pod's ports default their ``hostPort`` to the container port,
    so two containers on one port collide on the host; and a Pod's image may not carry
    leading or trailing whitespace, which a template may (``validateContainerOnlyForPod``).
    """
    errors: list[FieldError] = []
    if ctx.host_network:
        conflicts = check_host_port_conflicts(
            as_list(pod_spec.get("containers")), (*path, "containers"), host_network=True
        )
        for _, container in objects(pod_spec.get("initContainers")):
            conflicts += check_host_port_conflicts(
                [container], (*path, "initContainers"), host_network=True
            )
        errors += [error for error in conflicts if error not in template_errors]
    for kind in ("containers", "initContainers"):
        for index, container in objects(pod_spec.get(kind)):
            image = text(container.get("image"))
            if image and trim_space(image) != image:
                at = (*path, kind, index, "image")
                detail = "must not have leading or trailing whitespace"
                errors.append(invalid(at, IMAGE, image, detail))
    return errors
