"""A pod template's own rules: its annotations and the pod-level fields of its spec.

Every Job the JobSet controller creates carries a pod template, and the API server judges
it with ``ValidatePodTemplateSpec`` before the Job exists; the Job controller's pods are
then judged again by ``ValidatePodCreate``. This module reproduces the pod-level part of
both, in ``ValidatePodSpec``'s order: restart and DNS policy, security context, gates,
names of referenced objects, deadlines, priority, operating system. Containers, volumes
and resources, and placement (:mod:`.scheduling`), are composed next to it by the caller.
Labels and annotation keys of the template are ObjectMeta rules, checked where the
template is written (:mod:`trainc.schema.metadata`).
"""

from __future__ import annotations

from trainc.checks.workload.claims import DYNAMIC_RESOURCE_ALLOCATION, pod_claims_errors
from trainc.checks.workload.dns import (
    dns_config_errors,
    dns_policy_errors,
    host_aliases_errors,
    hostname_errors,
)
from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import integer, objects, present, text
from trainc.checks.workload.pod_annotations import annotation_errors, annotation_field_errors
from trainc.checks.workload.pod_os import host_process_errors, os_errors
from trainc.checks.workload.pod_security import (
    host_network_port_errors,
    host_users_errors,
    security_context_errors,
)
from trainc.checks.workload.predicates import range_error
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object
from trainc.schema.metadata import (
    dns1123_subdomain_errors,
    qualified_name_errors,
)

POD_RESTART_POLICY = Rule(
    "pod.restart-policy",
    Severity.ERROR,
    "the pod restartPolicy is not a valid value",
    doc=RuleDoc(
        what="a pod `restartPolicy` that is none of `Always`, `OnFailure`, `Never`",
        source="`validateRestartPolicy`",
        versions="all",
    ),
)

POD_OBJECT_NAME = Rule(
    "pod.object-name",
    Severity.ERROR,
    "a service account, node or runtime class name is invalid",
    doc=RuleDoc(
        what="`serviceAccountName`, `nodeName`, `runtimeClassName` that are no DNS subdomains",
        source="`ValidatePodSpec`",
        versions="all",
    ),
)

POD_DEADLINE = Rule(
    "pod.deadline",
    Severity.ERROR,
    "the pod activeDeadlineSeconds is out of range",
    doc=RuleDoc(
        what="a pod `activeDeadlineSeconds` outside 1 to 2147483647",
        source="`ValidatePodSpec`",
        versions="all",
    ),
)

POD_PRIORITY = Rule(
    "pod.priority",
    Severity.ERROR,
    "priorityClassName or preemptionPolicy is invalid",
    doc=RuleDoc(
        what="`priorityClassName`, `preemptionPolicy`",
        source="`ValidatePodSpec`, `ValidatePreemptionPolicy`",
        versions="all",
    ),
)

POD_GATES = Rule(
    "pod.gates",
    Severity.ERROR,
    "a readiness or scheduling gate is invalid or repeated",
    doc=RuleDoc(
        what=(
            "readiness and scheduling gate names, duplicate scheduling gates, `nodeName` "
            "with scheduling gates"
        ),
        source="`validateReadinessGates`, `validateSchedulingGates`",
        versions="all",
    ),
)


RESTART_POLICY = POD_RESTART_POLICY.code
OBJECT_NAME = POD_OBJECT_NAME.code
DEADLINE = POD_DEADLINE.code
PRIORITY = POD_PRIORITY.code
GATES = POD_GATES.code

_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_INT32_MAX = 2**31 - 1


def check_pod_fields(
    template: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """A pod template's own rules (metadata annotations and pod-level spec fields);
    path is the pod template's path (its `spec` is at path + ("spec",))."""
    spec = as_object(template.get("spec"))
    at = (*path, "spec")
    annotations = as_object(as_object(template.get("metadata")).get("annotations"))
    # ValidatePodTemplateSpec reports the template's annotations as ``<path>.annotations``.
    errors = annotation_errors(annotations, spec, (*path, "annotations"))
    if DYNAMIC_RESOURCE_ALLOCATION.enabled(version):
        errors += pod_claims_errors(spec, at)
    errors += host_network_port_errors(spec, at)
    errors += _restart_policy_errors(spec, at)
    errors += dns_policy_errors(spec, at)
    errors += security_context_errors(spec, at, version)
    errors += dns_config_errors(spec, at, version)
    errors += _gates_errors(spec, at)
    errors += host_process_errors(spec, at)
    errors += host_users_errors(spec, at, version)
    errors += _object_name_errors(spec, at, ("serviceAccountName", "nodeName"))
    errors += _deadline_errors(spec, at)
    errors += hostname_errors(spec, at)
    errors += host_aliases_errors(spec.get("hostAliases"), (*at, "hostAliases"))
    errors += _priority_errors(spec, at)
    errors += _object_name_errors(spec, at, ("runtimeClassName",))
    errors += _preemption_errors(spec, at)
    errors += os_errors(spec, at, version)
    errors += annotation_field_errors(annotations, spec, at, version)
    if text(spec.get("nodeName")) and as_list(spec.get("schedulingGates")):
        # ValidatePodCreate: the Job controller's pods would carry both.
        detail = "cannot be set until all schedulingGates have been cleared"
        errors.append(forbidden((*at, "nodeName"), GATES, detail))
    return errors


def _restart_policy_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateRestartPolicy``. An unset policy is defaulted before (to ``OnFailure`` by
    the JobSet webhook), so only a value outside the three is refused."""
    policy = text(spec.get("restartPolicy"))
    if not policy or policy in _RESTART_POLICIES:
        return []
    return [not_supported((*path, "restartPolicy"), RESTART_POLICY, policy, _RESTART_POLICIES)]


def _gates_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateReadinessGates`` and ``validateSchedulingGates``: qualified names, and
    scheduling gates unique (reported at the gate's index, not its name)."""
    errors: list[FieldError] = []
    for index, gate in objects(spec.get("readinessGates")):
        condition = text(gate.get("conditionType"))
        if condition is not None:
            at = (*path, "readinessGates", index, "conditionType")
            errors += [invalid(at, GATES, condition, m) for m in qualified_name_errors(condition)]
    seen: set[str] = set()
    for index, gate in objects(spec.get("schedulingGates")):
        name = text(gate.get("name"))
        if name is None:
            continue
        at = (*path, "schedulingGates", index)
        errors += [invalid(at, GATES, name, message) for message in qualified_name_errors(name)]
        if name in seen:
            errors.append(duplicate(at, GATES, name))
        seen.add(name)
    return errors


def _object_name_errors(
    spec: JsonObject, path: FieldPath, fields: tuple[str, ...]
) -> list[FieldError]:
    """Names of other objects (service account, node, runtime class) are DNS subdomains.

    ``serviceAccountName`` and ``nodeName`` are checked when non-empty (an empty
    ``serviceAccountName`` takes the deprecated ``serviceAccount``'s value); a
    ``runtimeClassName`` is checked whenever it is set, even to ``""``.
    """
    errors: list[FieldError] = []
    for field in fields:
        name = text(spec.get(field))
        if field == "serviceAccountName" and name == "":
            name = text(spec.get("serviceAccount"))
        if name is None or (
            name == "" and not (field == "runtimeClassName" and present(spec, field))
        ):
            continue
        errors += [
            invalid((*path, field), OBJECT_NAME, name, message)
            for message in dns1123_subdomain_errors(name)
        ]
    return errors


def _deadline_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``activeDeadlineSeconds``, when set, is between 1 and 2^31-1 seconds."""
    if not present(spec, "activeDeadlineSeconds"):
        return []
    seconds = integer(spec.get("activeDeadlineSeconds"))
    if seconds is None or 1 <= seconds <= _INT32_MAX:
        return []
    detail = range_error(1, _INT32_MAX)
    return [invalid((*path, "activeDeadlineSeconds"), DEADLINE, seconds, detail)]


def _priority_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``priorityClassName``, when set, names a PriorityClass: a DNS subdomain."""
    name = text(spec.get("priorityClassName"))
    if not name:
        return []
    return [
        invalid((*path, "priorityClassName"), PRIORITY, name, message)
        for message in dns1123_subdomain_errors(name)
    ]


def _preemption_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``ValidatePreemptionPolicy``: set, it is ``PreemptLowerPriority`` or ``Never``."""
    if not present(spec, "preemptionPolicy"):
        return []
    policy = text(spec.get("preemptionPolicy"))
    at = (*path, "preemptionPolicy")
    if policy == "":
        return [required(at, PRIORITY)]
    if policy is None or policy in _PREEMPTION_POLICIES:
        return []
    return [not_supported(at, PRIORITY, policy, _PREEMPTION_POLICIES)]
