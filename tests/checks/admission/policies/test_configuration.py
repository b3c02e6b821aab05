"""Policies and bindings the API server cannot apply as written, said once at their lines."""

from __future__ import annotations

from trainc.checks.admission.policies import UserInfo, admit, cluster_from_objects, request_for
from trainc.checks.admission.policies.configuration import (
    misconfigurations,
    unserved_param_kinds,
)
from trainc.model.json import JsonObject, JsonValue, as_object

V1 = "admissionregistration.k8s.io/v1"


def _policy(expression: str = "true", **spec: JsonValue) -> JsonObject:
    return {
        "apiVersion": V1,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "approved-registry"},
        "spec": {"validations": [{"expression": expression}], **spec},
    }


def _binding(policy: str = "approved-registry", **spec: JsonValue) -> JsonObject:
    return {
        "apiVersion": V1,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": policy, "validationActions": ["Deny"], **spec},
    }


def test_a_binding_naming_no_policy_is_applied_to_nothing() -> None:
    [problem] = misconfigurations([_policy(), _binding("approved-registy")])
    assert problem.path == ("spec", "policyName")
    assert problem.message == (
        "ValidatingAdmissionPolicyBinding 'b' names policy 'approved-registy', which the "
        "cluster's objects do not hold: the API server applies this binding to nothing"
    )
    assert problem.hint.startswith("did you mean 'approved-registry'?")


def test_a_binding_without_param_ref_for_a_policy_with_a_param_kind() -> None:
    kind: JsonObject = {"apiVersion": "v1", "kind": "ConfigMap"}
    [problem] = misconfigurations([_policy(paramKind=kind), _binding()])
    assert problem.path == ("spec",)
    assert "evaluates the policy with null params" in problem.message


def test_a_policy_with_a_param_kind_and_a_param_ref_is_well_configured() -> None:
    kind: JsonObject = {"apiVersion": "v1", "kind": "ConfigMap"}
    assert (
        list(misconfigurations([_policy(paramKind=kind), _binding(paramRef={"name": "x"})])) == []
    )


def test_an_expression_that_does_not_compile_at_its_line() -> None:
    [problem] = misconfigurations([_policy("object.spec.containers.all(c, true"), _binding()])
    assert problem.path == ("spec", "validations", 0, "expression")
    assert problem.message.startswith(
        "ValidatingAdmissionPolicy 'approved-registry': spec.validations[0].expression: "
        "compilation error: "
    )
    assert "the API server refuses to store the policy" in problem.message


def test_a_library_trainc_lacks_or_authorizer_is_no_compilation_error() -> None:
    policies = [
        _policy("authorizer.group('').resource('pods').check('create').allowed()"),
        _binding(),
    ]
    assert list(misconfigurations(policies)) == []


def test_a_param_kind_of_a_built_in_group_the_release_does_not_serve() -> None:
    typo: JsonObject = {"apiVersion": "v1", "kind": "ConfigMaps"}
    crd: JsonObject = {"apiVersion": "example.com/v1", "kind": "Limits"}
    other: JsonObject = {**_policy(paramKind=crd), "metadata": {"name": "crd"}}
    found: list[JsonObject] = [_policy(paramKind=typo), other]
    served = {("v1", "ConfigMap")}
    unserved = unserved_param_kinds(found, lambda api, kind: (api, kind) in served)
    # A custom resource's kind is taken as served: its CRD is not among the objects read.
    assert unserved == {("v1", "ConfigMaps")}
    [problem] = misconfigurations([found[0], _binding(paramRef={"name": "x"})], unserved)
    assert problem.path == ("spec", "paramKind")
    assert problem.message.startswith(
        "ValidatingAdmissionPolicy 'approved-registry': failed to configure policy: failed to "
        "find resource referenced by paramKind: '/v1, Kind=ConfigMaps'"
    )


def test_an_unserved_param_kind_refuses_what_the_policy_matches_under_fail_only() -> None:
    policy = _policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMaps"},
        matchConstraints={
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["configmaps"],
                }
            ]
        },
    )
    request = request_for(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}},
        UserInfo("someone"),
    )
    assert request is not None
    unserved = frozenset({("v1", "ConfigMaps")})
    binding = _binding(paramRef={"name": "x"})
    refusal = admit(cluster_from_objects([policy, binding], unserved=unserved), request).refusal
    assert refusal is not None
    assert refusal.text == (
        "ValidatingAdmissionPolicy 'approved-registry' denied request: failed to configure "
        "policy: failed to find resource referenced by paramKind: '/v1, Kind=ConfigMaps'"
    )
    ignored = {**policy, "spec": {**as_object(policy["spec"]), "failurePolicy": "Ignore"}}
    assert (
        admit(cluster_from_objects([ignored, binding], unserved=unserved), request).refusal is None
    )
