"""The API server's rules on a pod's resource requirements.

Reproduces ``validateResourceRequirements`` (for containers through
``ValidateContainerResourceRequirements``, for the pod through
``validatePodResourceRequirements``), ``validatePodResources``,
``validatePodResourceConsistency`` and ``validateOverhead`` of
``pkg/apis/core/validation``; the DRA claims a ``resources.claims`` list names are judged
by :mod:`.claims`. A GPU request without a limit, a request above its limit or
half a GPU is accepted by every schema and rejected here, when the Job or its pods are
created: the training never starts.

Requirements are judged as the Job's pod template holds them: ``SetDefaults_Pod`` copies
limits into missing requests only on Pods, never on templates. A limit without a request
is therefore fine (the Pod's request becomes the limit), and a request without a limit of
a resource that cannot be overcommitted (extended resources, hugepages) fails. Go walks
these maps in random order; findings here follow the order the user wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from trainc.checks.workload.claims import (
    DYNAMIC_RESOURCE_ALLOCATION,
    claim_name_errors,
    pod_claim_names,
)
from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    invalid,
    required,
)
from trainc.checks.workload.podresources import (
    POD_RESOURCES_CODE,
    pod_resource_consistency_errors,
)
from trainc.checks.workload.quantities import (
    HUGEPAGES_CODE,
    Amount,
    amount_errors,
    container_resource_name_errors,
    hugepage_amount_errors,
    is_hugepages,
    keyed,
    overcommit_allowed,
    pod_resource_name_errors,
    resource_amounts,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object

POD_RESOURCE_LIMITS = Rule(
    "pod.resource-limits",
    Severity.ERROR,
    "a request exceeds its limit, or an extended resource's request differs from its limit",
    doc=RuleDoc(
        what=(
            "a request above its limit; an extended resource (a GPU) with a request but no "
            "limit, or a request other than its limit"
        ),
        source="`validateResourceRequirements`",
        versions="all",
    ),
)


#: Requests against limits: at most the limit, equal to it where overcommit is impossible.
LIMITS_CODE = POD_RESOURCE_LIMITS.code

#: Pod-level ``resources`` are kept and validated (dropped silently before).
POD_LEVEL_RESOURCES = Gate("PodLevelResources", (1, 34))

_QOS_RESOURCES = frozenset({"cpu", "memory"})

NameCheck = Callable[[str, FieldPath], list[FieldError]]


def check_container_resources(
    resources: JsonValue, path: FieldPath, version: KubeVersion, *, pod_claims: Collection[str]
) -> list[FieldError]:
    """One container's resources; path is the container's `resources` path.

    ``pod_claims`` are the non-empty names of the pod's ``resourceClaims``, which
    ``resources.claims`` entries must name. Usable alone, e.g. for a sweeper container.
    """
    return _requirements_errors(
        as_object(resources), path, version, container_resource_name_errors, pod_claims
    )


def check_pod_resources(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """Pod-level `resources` and `overhead` and pod-wide resource rules; path is the pod spec's.

    Pod-level ``resources`` come first, as ``ValidatePodSpec`` checks them right after the
    containers; ``overhead`` is checked near its end, as a container's limits would be.
    """
    errors: list[FieldError] = []
    resources = pod_spec.get("resources")
    if POD_LEVEL_RESOURCES.enabled(version) and isinstance(resources, dict):
        errors += _pod_level_errors(pod_spec, resources, (*path, "resources"), version)
    overhead = pod_spec.get("overhead")
    if isinstance(overhead, dict):
        errors += _requirements_errors(
            {"limits": overhead}, (*path, "overhead"), version, container_resource_name_errors, ()
        )
    return errors


def _pod_level_errors(
    pod_spec: JsonObject, resources: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodResources``: claims belong to containers; then the usual rules."""
    errors: list[FieldError] = []
    if resources.get("claims") is not None:
        errors.append(
            forbidden(
                (*path, "claims"),
                POD_RESOURCES_CODE,
                "claims cannot be set for Resources at pod-level",
            )
        )
    errors += _requirements_errors(
        resources, path, version, pod_resource_name_errors, pod_claim_names(pod_spec)
    )
    return errors + pod_resource_consistency_errors(pod_spec, resources, path)


def _requirements_errors(
    resources: JsonObject,
    path: FieldPath,
    version: KubeVersion,
    name_errors: NameCheck,
    pod_claims: Collection[str],
) -> list[FieldError]:
    """``validateResourceRequirements``: names and amounts, requests against limits."""
    limits = resource_amounts(resources.get("limits"))
    requests = resource_amounts(resources.get("requests"))
    limits_path, requests_path = (*path, "limits"), (*path, "requests")
    errors: list[FieldError] = []
    for name, amount, at in keyed(limits_path, limits):
        errors += name_errors(name, at)
        errors += amount_errors(name, amount, at)
        errors += hugepage_amount_errors(name, amount, at)
    for name, amount, at in keyed(requests_path, requests):
        errors += name_errors(name, at)
        errors += amount_errors(name, amount, at)
        limit = limits.get(name)
        # Upstream names the whole requests (or the missing limits); the request is
        # the value at fault, and the line a user changes.
        if limit is not None and amount.value != limit.value and not overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {limit}"
            errors.append(invalid(requests_path, LIMITS_CODE, str(amount), detail, cause=at))
        elif limit is not None and amount.value > limit.value:
            detail = f"must be less than or equal to {name} limit of {limit}"
            errors.append(invalid(requests_path, LIMITS_CODE, str(amount), detail, cause=at))
        elif limit is None and not overcommit_allowed(name):
            detail = "Limit must be set for non overcommitable resources"
            hint = _missing_limit_hint(name, amount)
            errors.append(required(limits_path, LIMITS_CODE, detail, hint, cause=at))
        errors += hugepage_amount_errors(name, amount, at)
    names = {*limits, *requests}
    if any(is_hugepages(name) for name in names) and not names & _QOS_RESOURCES:
        # Upstream names the whole resources; the first hugepages amount is at fault.
        first = next(
            at
            for amounts, where in ((limits, limits_path), (requests, requests_path))
            for name, _, at in keyed(where, amounts)
            if is_hugepages(name)
        )
        hugepages = forbidden(path, HUGEPAGES_CODE, "HugePages require cpu or memory")
        errors.append(replace(hugepages, cause=first))
    if DYNAMIC_RESOURCE_ALLOCATION.enabled(version):
        errors += claim_name_errors(as_list(resources.get("claims")), (*path, "claims"), pod_claims)
    return errors


def _missing_limit_hint(name: str, request: Amount) -> str:
    """The fix for a request of a resource that cannot be overcommitted, by name.

    The API server names neither the resource nor the fix. Such a resource (a GPU, a
    hugepage size) is handed out whole to one container, so its request must equal its
    limit; a limit alone is enough, since the request defaults to it
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources).
    """
    return (
        f"{name} is requested ({request}) without a limit, and it cannot be overcommitted: "
        f"set limits: {{{name}: {request}}} beside the request, or the limit alone "
        "(the request defaults to it)"
    )
