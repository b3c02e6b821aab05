"""ValidatingAdmissionPolicies: the cluster's own CEL admission rules, evaluated offline.

The API server's ValidatingAdmissionPolicy plugin
(https://github.com/kubernetes/kubernetes/tree/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating)
refuses, warns about or audits any object a policy's bindings select, with CEL
expressions over the object, the request, the binding's parameter object and the
object's Namespace. This package models it as pure functions over the policy, binding,
Namespace and parameter manifests and one request (an object, its operation, who sends
it), with the API server's own refusal and warning texts. CEL runs through trainc's one
engine adapter, with Kubernetes' CEL libraries of the cluster's release; what cannot be
answered offline (``authorizer``, the few library signatures the engine cannot declare,
costs above the limits) is reported as not evaluated, never as admitted.
"""

from __future__ import annotations

from trainc.checks.admission.policies.admission import (
    VALIDATION_FAILURE,
    Cluster,
    Denial,
    NotEvaluated,
    Verdict,
    admit,
    cluster_from_objects,
)
from trainc.checks.admission.policies.model import (
    Binding,
    Policy,
    binding_from_json,
    policy_from_json,
)
from trainc.checks.admission.policies.request import (
    CREATE,
    DELETE,
    UPDATE,
    Request,
    UserInfo,
    request_for,
)
from trainc.checks.admission.policies.resources import RESOURCES, Resource, resource_for

__all__ = [
    "CREATE",
    "DELETE",
    "RESOURCES",
    "UPDATE",
    "VALIDATION_FAILURE",
    "Binding",
    "Cluster",
    "Denial",
    "NotEvaluated",
    "Policy",
    "Request",
    "Resource",
    "UserInfo",
    "Verdict",
    "admit",
    "binding_from_json",
    "cluster_from_objects",
    "policy_from_json",
    "request_for",
    "resource_for",
]
