"""ValidatingAdmissionPolicy and its binding, read from manifests as the API server stores them.

The fields and their defaults are those of ``admissionregistration.k8s.io/v1``
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/api/admissionregistration/v1/types.go
and ``pkg/apis/admissionregistration/v1/defaults.go``): ``failurePolicy`` defaults to
``Fail``, ``matchPolicy`` to ``Equivalent``, empty namespace and object selectors to
"everything", a rule's ``scope`` to ``*``. The manifests are expected to be
schema-checked already; a field of the wrong type reads as absent here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainc.checks.workload.jsonfields import objects, strings, text
from trainc.model.json import JsonObject, JsonValue, as_object

FAIL = "Fail"
IGNORE = "Ignore"
EQUIVALENT = "Equivalent"
EXACT = "Exact"
DENY = "Deny"
WARN = "Warn"
AUDIT = "Audit"
ALLOW = "Allow"


@dataclass(frozen=True, slots=True)
class Rule:
    """A ``NamedRuleWithOperations``: operations, groups, versions, resources, scope, names."""

    operations: tuple[str, ...]
    api_groups: tuple[str, ...]
    api_versions: tuple[str, ...]
    resources: tuple[str, ...]
    scope: str = "*"
    resource_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchResources:
    """``matchConstraints`` of a policy or ``matchResources`` of a binding."""

    namespace_selector: JsonObject = field(default_factory=dict)
    object_selector: JsonObject = field(default_factory=dict)
    resource_rules: tuple[Rule, ...] = ()
    exclude_resource_rules: tuple[Rule, ...] = ()
    match_policy: str = EQUIVALENT


@dataclass(frozen=True, slots=True)
class Expression:
    """A named CEL expression: a matchCondition, a variable, or an audit annotation."""

    name: str
    expression: str


@dataclass(frozen=True, slots=True)
class Validation:
    """One ``validations[]`` entry."""

    expression: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ParamKind:
    """The kind of a policy's parameters: ``apiVersion`` and ``kind``."""

    api_version: str
    kind: str


@dataclass(frozen=True, slots=True)
class Policy:
    """A ValidatingAdmissionPolicy."""

    name: str
    match_constraints: MatchResources | None
    validations: tuple[Validation, ...] = ()
    param_kind: ParamKind | None = None
    failure_policy: str = FAIL
    match_conditions: tuple[Expression, ...] = ()
    variables: tuple[Expression, ...] = ()
    audit_annotations: tuple[Expression, ...] = ()
    """Each an annotation key (``name``) and its ``valueExpression``."""


@dataclass(frozen=True, slots=True)
class ParamRef:
    """A binding's ``paramRef``: one object by name, or those a label selector selects."""

    name: str = ""
    namespace: str = ""
    selector: JsonObject | None = None
    parameter_not_found_action: str = ALLOW


@dataclass(frozen=True, slots=True)
class Binding:
    """A ValidatingAdmissionPolicyBinding."""

    name: str
    policy_name: str
    validation_actions: tuple[str, ...]
    param_ref: ParamRef | None = None
    match_resources: MatchResources | None = None


def _name(obj: JsonObject) -> str:
    return text(as_object(obj.get("metadata")).get("name")) or ""


def _rules(value: JsonValue) -> tuple[Rule, ...]:
    return tuple(
        Rule(
            operations=tuple(strings(raw.get("operations"))),
            api_groups=tuple(strings(raw.get("apiGroups"))),
            api_versions=tuple(strings(raw.get("apiVersions"))),
            resources=tuple(strings(raw.get("resources"))),
            scope=text(raw.get("scope")) or "*",
            resource_names=tuple(strings(raw.get("resourceNames"))),
        )
        for _, raw in objects(value)
    )


def match_resources_from_json(value: JsonValue) -> MatchResources | None:
    """``matchConstraints``/``matchResources``; None when absent."""
    if not isinstance(value, dict):
        return None
    return MatchResources(
        namespace_selector=as_object(value.get("namespaceSelector")),
        object_selector=as_object(value.get("objectSelector")),
        resource_rules=_rules(value.get("resourceRules")),
        exclude_resource_rules=_rules(value.get("excludeResourceRules")),
        match_policy=text(value.get("matchPolicy")) or EQUIVALENT,
    )


def _expressions(value: JsonValue, name_key: str, expression_key: str) -> tuple[Expression, ...]:
    return tuple(
        Expression(text(raw.get(name_key)) or "", text(raw.get(expression_key)) or "")
        for _, raw in objects(value)
    )


def policy_from_json(obj: JsonObject) -> Policy:
    """A ValidatingAdmissionPolicy manifest, with the API server's defaults."""
    spec = as_object(obj.get("spec"))
    param_kind = spec.get("paramKind")
    return Policy(
        name=_name(obj),
        match_constraints=match_resources_from_json(spec.get("matchConstraints")),
        validations=tuple(
            Validation(
                expression=text(raw.get("expression")) or "",
                message=text(raw.get("message")) or "",
                message_expression=text(raw.get("messageExpression")) or "",
                reason=text(raw.get("reason")) or "",
            )
            for _, raw in objects(spec.get("validations"))
        ),
        param_kind=(
            ParamKind(
                text(param_kind.get("apiVersion")) or "",
                text(param_kind.get("kind")) or "",
            )
            if isinstance(param_kind, dict)
            else None
        ),
        failure_policy=text(spec.get("failurePolicy")) or FAIL,
        match_conditions=_expressions(spec.get("matchConditions"), "name", "expression"),
        variables=_expressions(spec.get("variables"), "name", "expression"),
        audit_annotations=_expressions(spec.get("auditAnnotations"), "key", "valueExpression"),
    )


def binding_from_json(obj: JsonObject) -> Binding:
    """A ValidatingAdmissionPolicyBinding manifest."""
    spec = as_object(obj.get("spec"))
    raw_ref = spec.get("paramRef")
    param_ref = None
    if isinstance(raw_ref, dict):
        selector = raw_ref.get("selector")
        param_ref = ParamRef(
            name=text(raw_ref.get("name")) or "",
            namespace=text(raw_ref.get("namespace")) or "",
            selector=selector if isinstance(selector, dict) else None,
            parameter_not_found_action=text(raw_ref.get("parameterNotFoundAction")) or ALLOW,
        )
    return Binding(
        name=_name(obj),
        policy_name=text(spec.get("policyName")) or "",
        validation_actions=tuple(strings(spec.get("validationActions"))),
        param_ref=param_ref,
        match_resources=match_resources_from_json(spec.get("matchResources")),
    )
