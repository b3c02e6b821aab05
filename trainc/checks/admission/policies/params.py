"""The parameter objects a binding hands its policy, found among the cluster's objects.

``CollectParams`` in
https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go:
without ``paramKind`` on the policy or ``paramRef`` on the binding the policy runs once
with null ``params``; otherwise with each object of ``paramKind`` that ``paramRef`` names
(by name, or all that its label selector selects), looked up in ``paramRef.namespace``, or
in the request's namespace when the kind is namespaced and none is given. A policy is
evaluated once per parameter object; none found admits the request, unless
``parameterNotFoundAction`` is ``Deny``. The errors are the API server's words; the
dispatcher prefixes them with ``failed to configure binding:``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainc.checks.admission.policies.model import DENY, ParamKind, ParamRef
from trainc.checks.admission.policies.request import labels_of
from trainc.checks.admission.policies.resources import resource_for
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.selectors import selector_matches
from trainc.model.json import JsonObject, as_object

NAMESPACED_FOR_CLUSTER = (
    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
)
NAMESPACE_FOR_CLUSTER_KIND = (
    "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
)
NOT_FOUND = "no params found for policy binding with `Deny` parameterNotFoundAction"


@dataclass(frozen=True, slots=True)
class ParamError:
    """A binding whose parameters cannot be collected: a configuration error."""

    message: str


def param_kind_error(api_version: str, kind: str) -> str:
    """The policy's configuration error for a paramKind the cluster does not serve, as
    ``ensureParamsForPolicyLocked`` words it (the GroupVersionKind printed as
    ``group/version, Kind=kind``)."""
    group, _, version = api_version.rpartition("/")
    return f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'"


def _metadata(obj: JsonObject) -> JsonObject:
    return as_object(obj.get("metadata"))


def _of_kind(obj: JsonObject, kind: ParamKind) -> bool:
    return obj.get("apiVersion") == kind.api_version and obj.get("kind") == kind.kind


def _namespaced(kind: ParamKind, candidates: Sequence[JsonObject]) -> bool:
    """The kind's scope: from the REST mapping, else from the objects supplied (a CRD)."""
    known = resource_for(kind.api_version, kind.kind)
    if known is not None:
        return known.namespaced
    return any(text(_metadata(obj).get("namespace")) for obj in candidates)


def collect_params(
    kind: ParamKind | None,
    ref: ParamRef | None,
    request_namespace: str,
    objects: Sequence[JsonObject],
) -> list[JsonObject | None] | ParamError:
    """The params to evaluate a policy with: ``[None]`` when it takes none; ``[]`` when
    none are found and the binding allows that (the policy is then not evaluated)."""
    if kind is None or ref is None:
        return [None]
    candidates = [obj for obj in objects if _of_kind(obj, kind)]
    namespaced = _namespaced(kind, candidates)
    if ref.namespace and not namespaced:
        return ParamError(NAMESPACE_FOR_CLUSTER_KIND)
    if namespaced:
        namespace = ref.namespace or request_namespace
        if not namespace:
            return ParamError(NAMESPACED_FOR_CLUSTER)
        candidates = [o for o in candidates if text(_metadata(o).get("namespace")) == namespace]
    if ref.name:
        found = [o for o in candidates if text(_metadata(o).get("name")) == ref.name][:1]
    elif ref.selector is not None:
        found = [o for o in candidates if selector_matches(ref.selector, labels_of(o)) is True]
    else:
        return ParamError("one of name or selector must be provided")
    if not found and ref.parameter_not_found_action == DENY:
        return ParamError(NOT_FOUND)
    return list[JsonObject | None](found)
