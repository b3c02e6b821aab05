"""Upstream's ValidatingAdmissionPolicy plugin tests, replayed on trainc's model.

Each test names the upstream test (``admission_test.go``, ``validator_test.go`` of
``staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating``) whose case and
expected text it carries over.
"""

from __future__ import annotations

import json

from tests.checks.admission.policies.corpus import (
    BINDING,
    PARAMS,
    POLICY,
    binding,
    config_map,
    create,
    namespace,
    pod,
    policy,
)
from trainc.checks.admission.policies import (
    VALIDATION_FAILURE,
    Verdict,
    admit,
    cluster_from_objects,
)
from trainc.model.json import JsonObject

SORRY: JsonObject = {"expression": "false", "message": "I'm sorry Dave"}


def verdict_of(*objects: JsonObject, obj: JsonObject | None = None) -> Verdict:
    return admit(cluster_from_objects(list(objects)), create(obj or pod()))


def test_deny_refuses_with_policy_and_binding_named() -> None:
    """``TestBasicPolicyDefinitionFailure``: the refusal names both."""
    verdict = verdict_of(policy(SORRY), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.text == (
        f"ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}' denied request: "
        "I'm sorry Dave"
    )
    assert verdict.forbidden(create(pod())) == (
        'pods "train-node-0-0-x7k2p" is forbidden: ' + verdict.refusal.text
    )
    assert verdict.code == 422


def test_warn_validation_action() -> None:
    """``TestWarnValidationAction``: a warning, no refusal, no annotation."""
    verdict = verdict_of(policy(SORRY), binding(("Warn",)))
    assert verdict.refusal is None
    assert verdict.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' "
        "with binding 'denybinding.example.com': I'm sorry Dave"
    ]
    assert verdict.annotations == {}


def test_audit_validation_action() -> None:
    """``TestAuditValidationAction``: the validation_failure annotation only."""
    verdict = verdict_of(policy(SORRY), binding(("Audit",)))
    assert verdict.refusal is None
    assert verdict.warnings == []
    assert json.loads(verdict.annotations[VALIDATION_FAILURE]) == [
        {
            "message": "I'm sorry Dave",
            "policy": POLICY,
            "binding": BINDING,
            "expressionIndex": 0,
            "validationActions": ["Audit"],
        }
    ]


def test_all_validation_actions() -> None:
    """``TestAllValidationActions``: Deny, Warn and Audit together."""
    verdict = verdict_of(policy(SORRY), binding(("Deny", "Warn", "Audit")))
    assert verdict.refusal is not None
    assert "I'm sorry Dave" in verdict.refusal.text
    assert len(verdict.warnings) == 1
    failure = json.loads(verdict.annotations[VALIDATION_FAILURE])
    assert failure[0]["validationActions"] == ["Deny", "Warn", "Audit"]


def test_failed_expression_message_when_none_given() -> None:
    """``validator_test.go``: no message → ``failed expression: E``, reason Invalid."""
    verdict = verdict_of(policy({"expression": " 1 < 0 "}), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == "failed expression: 1 < 0"
    assert verdict.refusal.reason == "Invalid"


def test_reason_is_kept() -> None:
    verdict = verdict_of(policy({"expression": "false", "reason": "Forbidden"}), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.reason == "Forbidden"
    assert verdict.code == 403


def test_message_expression_wins_and_falls_back() -> None:
    """``validator_test.go``: messageExpression, then message, when it is unusable."""
    used = {
        "expression": "false",
        "message": "static",
        "messageExpression": "'pod ' + object.metadata.name + ' refused'",
    }
    verdict = verdict_of(policy(used), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == "pod train-node-0-0-x7k2p refused"
    too_long = "'" + "x" * (5 * 1024 + 1) + "'"
    for unusable in ("''", "'  '", "'a\\nb'", "1", "null", "object.metadata.missing", too_long):
        fallback = {"expression": "false", "message": "static", "messageExpression": unusable}
        verdict = verdict_of(policy(fallback), binding())
        assert verdict.refusal is not None
        assert verdict.refusal.message == "static", unusable


def test_runtime_error_follows_failure_policy() -> None:
    """``validator_test.go``: an error denies under Fail, admits under Ignore."""
    broken = {"expression": "object.spec.missing == 1"}
    verdict = verdict_of(policy(broken), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == (
        "expression 'object.spec.missing == 1' resulted in error: no such key: missing"
    )
    assert verdict_of(policy(broken, failurePolicy="Ignore"), binding()).refusal is None


def test_match_conditions() -> None:
    """``validator_test.go``: a false condition skips; an error follows failurePolicy."""
    skip = [{"name": "never", "expression": "false"}, {"name": "broken", "expression": "1/0 == 1"}]
    assert verdict_of(policy(SORRY, matchConditions=skip), binding()).refusal is None
    broken = [{"name": "broken", "expression": "1/0 == 1"}]
    verdict = verdict_of(policy(SORRY, matchConditions=broken), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == "expression '1/0 == 1' resulted in error: division by zero"
    ignored = verdict_of(policy(SORRY, matchConditions=broken, failurePolicy="Ignore"), binding())
    assert ignored.refusal is None
    holds = [{"name": "always", "expression": "true"}]
    assert verdict_of(policy(SORRY, matchConditions=holds), binding()).refusal is not None


def test_variables_and_a_failing_variable() -> None:
    """Variables are read as ``variables.name``; one that fails fails its readers."""
    spec: dict[str, object] = {
        "variables": [
            {"name": "image", "expression": "object.spec.containers[0].image"},
            {"name": "broken", "expression": "object.spec.nothing"},
        ]
    }
    good = {"expression": "variables.image.startsWith('registry.internal/')"}
    assert verdict_of(policy(good, **spec), binding()).refusal is None
    bad = {"expression": "variables.broken == 1"}
    verdict = verdict_of(policy(bad, **spec), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == (
        "expression 'variables.broken == 1' resulted in error: "
        'composited variable "broken" fails to evaluate: no such key: nothing'
    )


def test_params_not_found() -> None:
    """``TestParamRef``: a missing param with Deny is a configuration error."""
    needs = policy(
        {"expression": "params.data.coolkey == 'x'"},
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    deny = binding(paramRef={"name": PARAMS, "parameterNotFoundAction": "Deny"})
    verdict = verdict_of(needs, deny)
    assert verdict.refusal is not None
    assert verdict.refusal.text == (
        f"ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}' denied request: "
        "failed to configure binding: no params found for policy binding with `Deny` "
        "parameterNotFoundAction"
    )
    allow = binding(paramRef={"name": PARAMS, "parameterNotFoundAction": "Allow"})
    assert verdict_of(needs, allow).refusal is None
    ignoring = policy(
        {"expression": "false"},
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        failurePolicy="Ignore",
    )
    assert verdict_of(ignoring, deny).refusal is None


def test_namespace_param_ref_name() -> None:
    """``TestNamespaceParamRefName``: a paramRef without namespace reads the request's."""
    needs = policy(
        {"expression": "params.data.coolkey == 'ok'", "messageExpression": "params.data.coolkey"},
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    bound = binding(paramRef={"name": PARAMS, "parameterNotFoundAction": "Deny"})
    maps = [
        config_map(PARAMS, "default", coolkey="default"),
        config_map(PARAMS, "ml", coolkey="ml"),
    ]
    verdict = verdict_of(needs, bound, *maps)
    assert verdict.refusal is not None
    assert verdict.refusal.message == "ml"
    verdict = verdict_of(needs, bound, *maps, obj=pod(namespace_name="default"))
    assert verdict.refusal is not None
    assert verdict.refusal.message == "default"


def test_param_selector_evaluates_once_per_param() -> None:
    """``TestParamSelector…``: each selected object is a separate evaluation."""
    needs = policy(
        {"expression": "false", "messageExpression": "params.metadata.name"},
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    bound = binding(
        paramRef={
            "namespace": "platform",
            "selector": {"matchLabels": {"policy": "yes"}},
            "parameterNotFoundAction": "Deny",
        }
    )
    maps = [
        config_map("a", "platform", {"policy": "yes"}),
        config_map("b", "platform", {"policy": "no"}),
        config_map("c", "platform", {"policy": "yes"}),
    ]
    verdict = verdict_of(needs, bound, *maps)
    assert [d.message for d in verdict.denials] == ["a", "c"]


def test_cluster_scoped_request_with_namespaced_params() -> None:
    needs = policy(
        {"expression": "true"},
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        match={
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["*"],
                    "resources": ["namespaces"],
                }
            ]
        },
    )
    bound = binding(paramRef={"name": PARAMS, "parameterNotFoundAction": "Deny"})
    verdict = verdict_of(needs, bound, obj=namespace("ml"))
    assert verdict.refusal is not None
    assert verdict.refusal.message == (
        "failed to configure binding: cannot use namespaced paramRef in policy binding that "
        "matches cluster-scoped resources"
    )


def test_policy_without_match_constraints_matches_nothing() -> None:
    bare = policy(SORRY)
    spec = bare["spec"]
    assert isinstance(spec, dict)
    del spec["matchConstraints"]
    assert verdict_of(bare, binding()).refusal is None


def test_binding_for_another_policy_is_ignored() -> None:
    assert verdict_of(policy(SORRY), binding(policy_name="other")).refusal is None


def test_audit_annotations() -> None:
    """``validator_test.go``: strings published, null excluded, other types an error."""
    spec: dict[str, object] = {
        "auditAnnotations": [
            {"key": "image", "valueExpression": "object.spec.containers[0].image"},
            {"key": "none", "valueExpression": "null"},
        ]
    }
    verdict = verdict_of(policy({"expression": "true"}, **spec), binding())
    assert verdict.annotations == {f"{POLICY}/image": "registry.internal/trainer:1.0"}
    wrong: dict[str, object] = {"auditAnnotations": [{"key": "n", "valueExpression": "1"}]}
    verdict = verdict_of(policy({"expression": "true"}, **wrong), binding())
    assert verdict.refusal is not None
    assert verdict.refusal.message == (
        "valueExpression '1' resulted in unsupported return type: int. "
        "Return type must be either string or null."
    )


def test_variables_are_computed_only_when_read() -> None:
    """An unread variable that would fail does not make the policy fail."""
    spec: dict[str, object] = {
        "variables": [
            {"name": "unused", "expression": "1/0 == 1"},
            {"name": "first", "expression": "object.metadata.name"},
            {"name": "second", "expression": "variables.first + '-x'"},
        ]
    }
    chained = {"expression": "variables.second == 'train-node-0-0-x7k2p-x'"}
    verdict = verdict_of(policy(chained, **spec), binding())
    assert verdict.denials == []
    assert verdict.not_evaluated == []
