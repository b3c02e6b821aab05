"""The API server's rules on a pod's resource requirements.

Reproduces ``validateResourceRequirements`` (for containers through
``ValidateContainerResourceRequirements``, for the pod through
``validatePodResourceRequirements``), ``validateResourceClaimNames``,
``validatePodResources``, ``validatePodResourceConsistency`` and ``validateOverhead`` of
``pkg/apis/core/validation``. A GPU request without a limit, a request above its limit or
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

from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.validate.metadata import dns1123_label_errors
from trainc.validate.workload.fielderrors import (
    ErrorType,
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
)
from trainc.validate.workload.podresources import (
    POD_RESOURCES_CODE,
    pod_resource_consistency_errors,
)
from trainc.validate.workload.quantities import (
    HUGEPAGES_CODE,
    amount_errors,
    container_resource_name_errors,
    hugepage_amount_errors,
    is_hugepages,
    keyed,
    overcommit_allowed,
    pod_resource_name_errors,
    resource_amounts,
)
from trainc.validate.workload.version import Gate, KubeVersion

#: Requests against limits: at most the limit, equal to it where overcommit is impossible.
LIMITS_CODE = "pod.resource-limits"
#: ``resources.claims`` entries, which name the pod's ``resourceClaims``.
CLAIMS_CODE = "pod.resource-claims"

#: ``resources.claims`` and ``resourceClaims`` exist (are not dropped) once DRA is on.
DYNAMIC_RESOURCE_ALLOCATION = Gate("DynamicResourceAllocation", (1, 34))
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


def pod_claim_names(pod_spec: JsonObject) -> list[str]:
    """``gatherPodResourceClaimNames``: the non-empty names of ``spec.resourceClaims``."""
    names = (as_object(claim).get("name") for claim in as_list(pod_spec.get("resourceClaims")))
    return [name for name in names if isinstance(name, str) and name]


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
        errors += amount_errors(name, amount, at, version)
        errors += hugepage_amount_errors(name, amount, at)
    for name, amount, at in keyed(requests_path, requests):
        errors += name_errors(name, at)
        errors += amount_errors(name, amount, at, version)
        limit = limits.get(name)
        if limit is not None and amount.value != limit.value and not overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {limit}"
            errors.append(invalid(requests_path, LIMITS_CODE, str(amount), detail))
        elif limit is not None and amount.value > limit.value:
            detail = f"must be less than or equal to {name} limit of {limit}"
            errors.append(invalid(requests_path, LIMITS_CODE, str(amount), detail))
        elif limit is None and not overcommit_allowed(name):
            detail = "Limit must be set for non overcommitable resources"
            errors.append(required(limits_path, LIMITS_CODE, detail))
        errors += hugepage_amount_errors(name, amount, at)
    names = {*limits, *requests}
    if any(is_hugepages(name) for name in names) and not names & _QOS_RESOURCES:
        errors.append(forbidden(path, HUGEPAGES_CODE, "HugePages require cpu or memory"))
    if DYNAMIC_RESOURCE_ALLOCATION.enabled(version):
        errors += _claim_errors(as_list(resources.get("claims")), (*path, "claims"), pod_claims)
    return errors


def _claim_errors(
    claims: list[JsonValue], path: FieldPath, pod_claims: Collection[str]
) -> list[FieldError]:
    """``validateResourceClaimNames``: each claim (or claim request) named once, and known.

    Entries are ``name`` or ``name/request``; naming a whole claim after one of its
    requests, or the same entry twice, is a duplicate.
    """
    errors: list[FieldError] = []
    seen: list[str] = []
    for index, claim in enumerate(claims):
        entry = as_object(claim)
        name, request = _text(entry.get("name")), _text(entry.get("request"))
        at: FieldPath = (*path, index)
        if not name:
            errors.append(required(at, CLAIMS_CODE))
            continue
        if name in seen:
            errors.append(duplicate(at, CLAIMS_CODE, name))
        else:
            errors += _claim_entry_errors(name, request, at, seen)
        if name not in pod_claims:
            errors.append(_unknown_claim(at, name, pod_claims))
    return errors


def _claim_entry_errors(
    name: str, request: str, at: FieldPath, seen: list[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    key = name
    if request:
        errors += [
            invalid((*at, "request"), CLAIMS_CODE, request, msg)
            for msg in dns1123_label_errors(request)
        ]
        key = f"{name}/{request}"
    if key in seen:
        errors.append(duplicate(at, CLAIMS_CODE, key))
    elif not request:
        errors += [
            duplicate(at, CLAIMS_CODE, name) for other in seen if other.startswith(f"{name}/")
        ]
    seen.append(key)
    return errors


def _unknown_claim(at: FieldPath, name: str, pod_claims: Collection[str]) -> FieldError:
    detail = "must be one of the names in pod.spec.resourceClaims"
    detail += ": " + ", ".join(sorted(pod_claims)) if pod_claims else " which is empty"
    return FieldError(ErrorType.NOT_FOUND, at, CLAIMS_CODE, name, detail)


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""
