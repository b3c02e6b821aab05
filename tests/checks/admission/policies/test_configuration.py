"""Policies and bindings the API server cannot apply as written, said once at their lines."""

from __future__ import annotations

from trainc.checks.admission.policies.configuration import misconfigurations
from trainc.model.json import JsonObject, JsonValue

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
