"""Manifests the ValidatingAdmissionPolicy tests share, shaped as upstream's fixtures.

Upstream's ``admission_test.go`` binds a ``denypolicy.example.com`` to a
``denybinding.example.com`` and takes ``replicas-test.example.com`` ConfigMaps as params
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/admission_test.go).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from trainc.checks.admission.policies import (
    CREATE,
    Request,
    UserInfo,
    resource_for,
)
from trainc.model.json import JsonObject, JsonValue

POLICY = "denypolicy.example.com"
BINDING = "denybinding.example.com"
PARAMS = "replicas-test.example.com"

VAP_VERSION = "admissionregistration.k8s.io/v1"

ALL_PODS: JsonObject = {
    "resourceRules": [
        {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
    ]
}

JOB_CONTROLLER = UserInfo(
    "system:serviceaccount:kube-system:job-controller",
    groups=("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"),
)


def policy(
    *validations: Mapping[str, object],
    name: object = POLICY,
    match: object = None,
    **spec: object,
) -> JsonObject:
    body = cast(
        "JsonObject",
        {
            "matchConstraints": match if match is not None else ALL_PODS,
            "validations": list(validations),
            **spec,
        },
    )
    return {
        "apiVersion": VAP_VERSION,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": str(name)},
        "spec": body,
    }


def binding(
    actions: tuple[str, ...] = ("Deny",),
    *,
    name: str = BINDING,
    policy_name: str = POLICY,
    **spec: object,
) -> JsonObject:
    body = cast(
        "JsonObject",
        {"policyName": policy_name, "validationActions": list(actions), **spec},
    )
    return {
        "apiVersion": VAP_VERSION,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": body,
    }


def namespace(name: str, **labels: str) -> JsonObject:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": dict[str, JsonValue](labels)},
    }


def config_map(
    name: str, namespace_name: str, labels: JsonObject | None = None, **data: str
) -> JsonObject:
    metadata: JsonObject = {"name": name, "namespace": namespace_name}
    if labels:
        metadata["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": dict[str, JsonValue](data),
    }


def pod(
    name: str = "train-node-0-0-x7k2p",
    namespace_name: str = "ml",
    *,
    image: str = "registry.internal/trainer:1.0",
    labels: JsonObject | None = None,
    resources: JsonObject | None = None,
) -> JsonObject:
    container: JsonObject = {"name": "node", "image": image}
    if resources is not None:
        container["resources"] = resources
    metadata: JsonObject = {"name": name, "namespace": namespace_name}
    if labels is not None:
        metadata["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [container]},
    }


def create(obj: JsonObject, user: UserInfo = JOB_CONTROLLER) -> Request:
    api_version, kind = obj["apiVersion"], obj["kind"]
    assert isinstance(api_version, str)
    assert isinstance(kind, str)
    resource = resource_for(api_version, kind)
    assert resource is not None
    return Request(resource, CREATE, user, obj)
