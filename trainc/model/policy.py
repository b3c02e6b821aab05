"""Organisation policies: CEL checks shaped like a Kubernetes ValidatingAdmissionPolicy.

Admins who know ``admissionregistration.k8s.io/v1`` recognise every field: match
constraints, match conditions, variables, validations with message and
messageExpression, and validation actions. trainc adds ``params`` defaults (a VAP
takes them from a bound params object) and evaluates each TrainJob with its runtime.
"""

from __future__ import annotations

from typing import Annotated, Literal

from trainc.model import patterns
from trainc.model.json import JsonObject
from trainc.model.k8s import ObjectMeta
from trainc.model.markers import FreeForm, MaxLength, MinItems, MinLength, Pattern, list_map
from trainc.records import dataclass

_CEL_NAME = Pattern(patterns.CEL_IDENTIFIER.anchored)

PolicyResource = Literal["trainjobs", "trainingruntimes", "clustertrainingruntimes"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceRule:
    """Which kinds a policy applies to, as in a VAP's ``resourceRules``."""

    api_groups: list[Literal["trainer.kubeflow.org", "*"]] | None = None
    """API groups; only ``trainer.kubeflow.org`` objects are ever checked."""

    api_versions: list[Literal["v1alpha1", "*"]] | None = None
    """API versions."""

    resources: Annotated[list[Literal[PolicyResource, "*"]], MinItems(1)]
    """Plural resource names: ``trainjobs``, ``trainingruntimes``, ``clustertrainingruntimes``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResources:
    """Objects a policy applies to; TrainJobs when unset."""

    resource_rules: Annotated[list[ResourceRule], MinItems(1)]
    """Matching resources."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchCondition:
    """A CEL condition an object must meet for the policy to apply."""

    name: Annotated[str, MinLength(1), MaxLength(63)]
    """Name of the condition, unique in the policy."""

    expression: Annotated[str, MinLength(1)]
    """CEL expression returning a bool."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Variable:
    """A named CEL expression, available to later variables and validations."""

    name: Annotated[str, _CEL_NAME]
    """Name, referenced as ``variables.<name>``."""

    expression: Annotated[str, MinLength(1)]
    """CEL expression."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Validation:
    """A CEL check; the object violates the policy when it returns false."""

    expression: Annotated[str, MinLength(1)]
    """CEL expression returning a bool."""

    message: str | None = None
    """Message shown on failure."""

    message_expression: str | None = None
    """CEL expression returning the message; wins over ``message`` when it evaluates."""

    reason: str | None = None
    """Machine-readable reason, as in a VAP (``Invalid``, ``Forbidden``, ...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationPolicySpec:
    """What the policy checks and how a violation is reported."""

    match_constraints: MatchResources | None = None
    """Kinds checked; TrainJobs when unset."""

    match_conditions: Annotated[list[MatchCondition] | None, list_map("name")] = None
    """Conditions that must all hold for the policy to apply."""

    variables: Annotated[list[Variable] | None, list_map("name")] = None
    """Named expressions, evaluated in order."""

    validations: Annotated[list[Validation], MinItems(1)]
    """Checks; every failing one is reported."""

    validation_actions: list[Literal["Deny", "Warn"]] | None = None
    """``Deny`` reports an error (the default), ``Warn`` a warning."""

    params: Annotated[JsonObject | None, FreeForm()] = None
    """Default parameters, available as ``params``; trainc.yaml may override them."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationPolicy:
    """An organisation policy kept in ``policies/``."""

    api_version: Literal["trainc.dev/v1alpha1"]
    """``trainc.dev/v1alpha1``."""

    kind: Literal["ValidationPolicy"]
    """``ValidationPolicy``."""

    metadata: ObjectMeta
    """``name`` identifies the policy; diagnostics report ``policy.<name>``."""

    spec: ValidationPolicySpec
    """The checks."""
