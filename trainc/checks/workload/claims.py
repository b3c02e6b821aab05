"""Dynamic resource allocation: the claims a pod declares and its containers use.

A training pod asks for GPUs or NICs through DRA by listing ``spec.resourceClaims`` and
naming them in each container's (or the pod's) ``resources.claims``; a claim named twice,
or one the pod does not declare, makes the API server refuse every pod of the Job.
Reproduces ``validatePodResourceClaims``, ``gatherPodResourceClaimNames`` and
``validateResourceClaimNames`` of ``pkg/apis/core/validation``. Before 1.34 the
``DynamicResourceAllocation`` gate is off and the API server drops all of these fields,
so the callers check them only when :data:`DYNAMIC_RESOURCE_ALLOCATION` is on.
"""

from __future__ import annotations

from collections.abc import Collection

from trainc.checks.workload.fielderrors import (
    ErrorType,
    FieldError,
    duplicate,
    invalid,
    required,
)
from trainc.checks.workload.jsonfields import objects, present, text
from trainc.checks.workload.version import Gate
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object
from trainc.schema.metadata import dns1123_label_errors, dns1123_subdomain_errors

POD_RESOURCE_CLAIMS = Rule(
    "pod.resource-claims",
    Severity.ERROR,
    "a resource claim is invalid or names no pod claim",
    doc=RuleDoc(
        what=(
            "`resources.claims` naming no pod claim, pod `resourceClaims` without exactly "
            "one source"
        ),
        source="`validateResourceClaimNames`, `validatePodResourceClaims`",
        versions="from 1.34 (`DynamicResourceAllocation`)",
    ),
)


#: The pod's ``resourceClaims`` and the containers' references to them.
CLAIMS_CODE = POD_RESOURCE_CLAIMS.code

#: ``spec.resourceClaims`` and ``resources.claims``; before 1.34 (off by default) the API
#: server drops them.
DYNAMIC_RESOURCE_ALLOCATION = Gate("DynamicResourceAllocation", (1, 34))


def pod_claims_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validatePodResourceClaims``: unique DNS-label names, exactly one claim source;
    ``path`` is the pod spec's."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, claim in objects(spec.get("resourceClaims")):
        at = (*path, "resourceClaims", index)
        name = text(claim.get("name"))
        if name == "":
            errors.append(required((*at, "name"), CLAIMS_CODE))
        elif name in names:
            errors.append(duplicate((*at, "name"), CLAIMS_CODE, name))
        elif name is not None:
            errors += [
                invalid((*at, "name"), CLAIMS_CODE, name, message)
                for message in dns1123_label_errors(name)
            ]
            names.add(name)
        sources = [
            field
            for field in ("resourceClaimName", "resourceClaimTemplateName")
            if present(claim, field)
        ]
        if len(sources) > 1:
            detail = (
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
            )
            errors.append(invalid(at, CLAIMS_CODE, claim, detail))
        if not sources:
            detail = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
            errors.append(invalid(at, CLAIMS_CODE, claim, detail))
        for field in sources:
            source = claim.get(field)
            if isinstance(source, str):
                errors += [
                    invalid((*at, field), CLAIMS_CODE, source, message)
                    for message in dns1123_subdomain_errors(source)
                ]
    return errors


def pod_claim_names(pod_spec: JsonObject) -> frozenset[str]:
    """``gatherPodResourceClaimNames``: the set of non-empty names of
    ``spec.resourceClaims``, which the containers' (and the pod's) ``resources.claims``
    must name. A set, as upstream's: a repeated name is listed once in the message."""
    names = (text(claim.get("name")) for _, claim in objects(pod_spec.get("resourceClaims")))
    return frozenset(name for name in names if name)


def claim_name_errors(
    claims: list[JsonValue], path: FieldPath, pod_claims: Collection[str]
) -> list[FieldError]:
    """``validateResourceClaimNames``: each claim (or claim request) named once, and known;
    ``path`` is the ``resources.claims`` list's.

    Entries are ``name`` or ``name/request``; naming a whole claim after one of its
    requests, or the same entry twice, is a duplicate.
    """
    errors: list[FieldError] = []
    seen: list[str] = []
    for index, claim in enumerate(claims):
        entry = as_object(claim)
        name, request = text(entry.get("name")) or "", text(entry.get("request")) or ""
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
