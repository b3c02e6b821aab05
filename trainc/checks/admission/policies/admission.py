"""The ValidatingAdmissionPolicy plugin's verdict on one request, in the API server's words.

``dispatcher.Dispatch`` in
https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go:
for each policy whose ``matchConstraints`` select the request (a policy without them
selects nothing), for each of its bindings whose ``matchResources`` select it too (none:
everything), for each parameter object the binding names, the policy is evaluated
(:mod:`.evaluation`). A denying decision goes where the binding's ``validationActions``
send it: ``Deny`` refuses the request, ``Warn`` returns ``Validation failed for
ValidatingAdmissionPolicy 'P' with binding 'B': MESSAGE`` to the client, ``Audit`` records
a ``validation.policy.admission.k8s.io/validation_failure`` audit annotation. Parameters
that cannot be collected are a configuration error (``failed to configure binding: …``),
which refuses under ``failurePolicy: Fail`` whatever the validationActions. The first
refusal is the one the client reads: ``ValidatingAdmissionPolicy 'P' with binding 'B'
denied request: MESSAGE``, inside ``admission.NewForbidden``'s ``pods "x" is forbidden:``,
with the validation's reason as the status reason.

The API server takes policies and bindings from its informers in no specified order;
trainc takes them by name, so that which refusal is printed first does not move between
runs. A policy that cannot be evaluated offline (``authorizer``, a CEL library signature
trainc cannot declare, a
cost estimate over the limits, a Namespace the repository does not hold) is listed in
:attr:`Verdict.not_evaluated`, never counted as admitting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trainc.checks.admission.policies.evaluation import (
    DENY,
    ERROR,
    INVALID,
    PUBLISH,
    AuditAnnotation,
    Inputs,
    unevaluable,
    validate,
)
from trainc.checks.admission.policies.matching import Unknown, matches
from trainc.checks.admission.policies.model import (
    AUDIT,
    FAIL,
    WARN,
    Binding,
    Policy,
    binding_from_json,
    policy_from_json,
)
from trainc.checks.admission.policies.model import DENY as DENY_ACTION
from trainc.checks.admission.policies.params import ParamError, collect_params, param_kind_error
from trainc.checks.admission.policies.request import (
    Request,
    namespace_object,
    request_json,
)
from trainc.checks.admission.resource_lists import forbidden
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject, as_object
from trainc.schema.cel.library.declare import Release

POLICY_API_VERSION = "admissionregistration.k8s.io/v1"
POLICY_KIND = "ValidatingAdmissionPolicy"
BINDING_KIND = "ValidatingAdmissionPolicyBinding"

#: The audit annotation of a validation failure under the ``Audit`` action.
VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure"

#: ``reasonToCode``: the HTTP status of a refusal, by status reason.
_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, INVALID: 422}


@dataclass(frozen=True, slots=True)
class Cluster:
    """What the cluster holds that the plugin reads: policies, bindings, Namespaces by
    name, and every object a binding may take as parameter."""

    policies: Sequence[Policy]
    bindings: Sequence[Binding]
    namespaces: Mapping[str, JsonObject] = field(default_factory=dict)
    objects: Sequence[JsonObject] = ()
    release: Release | None = None
    """The API server's release: which Kubernetes CEL libraries policies may call."""
    unserved: frozenset[tuple[str, str]] = frozenset()
    """The (apiVersion, kind) of the paramKinds the cluster does not serve."""


def cluster_from_objects(
    objects: Sequence[JsonObject],
    release: Release | None = None,
    *,
    unserved: frozenset[tuple[str, str]] = frozenset(),
) -> Cluster:
    """The cluster the manifests describe: its policies, bindings and Namespaces, judged
    as the API server of ``release`` (None: the newest trainc knows) judges them;
    ``unserved`` the paramKinds it does not serve."""
    policies: list[Policy] = []
    bindings: list[Binding] = []
    namespaces: dict[str, JsonObject] = {}
    for obj in objects:
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if api_version == POLICY_API_VERSION and kind == POLICY_KIND:
            policies.append(policy_from_json(obj))
        elif api_version == POLICY_API_VERSION and kind == BINDING_KIND:
            bindings.append(binding_from_json(obj))
        elif api_version == "v1" and kind == "Namespace":
            name = text(as_object(obj.get("metadata")).get("name"))
            if name:
                namespaces[name] = obj
    return Cluster(policies, bindings, namespaces, list(objects), release, unserved)


@dataclass(frozen=True, slots=True)
class Denial:
    """A refusal: the policy, the binding (None for a policy configuration error), why."""

    policy: str
    binding: str | None
    message: str
    reason: str = INVALID

    @property
    def text(self) -> str:
        """The refusal as the API server words it."""
        if self.binding is None:
            return f"ValidatingAdmissionPolicy '{self.policy}' denied request: {self.message}"
        return (
            f"ValidatingAdmissionPolicy '{self.policy}' with binding '{self.binding}' "
            f"denied request: {self.message}"
        )


@dataclass(frozen=True, slots=True)
class NotEvaluated:
    """A policy (through a binding, when known) that could not be evaluated offline."""

    policy: str
    binding: str | None
    reason: str


@dataclass(slots=True)
class Verdict:
    """The plugin's answer: refusals in order, warnings, audit annotations, and the
    policies left unevaluated."""

    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)
    not_evaluated: list[NotEvaluated] = field(default_factory=list)

    @property
    def refusal(self) -> Denial | None:
        """The refusal the client reads, if any."""
        return self.denials[0] if self.denials else None

    @property
    def code(self) -> int:
        """HTTP status of the refusal (``reasonToCode``); 0 when admitted."""
        refusal = self.refusal
        if refusal is None:
            return 0
        return _CODES.get(refusal.reason, 422)

    def forbidden(self, request: Request) -> str | None:
        """The whole error the creator receives: ``jobs.batch "x" is forbidden: …``."""
        refusal = self.refusal
        if refusal is None:
            return None
        return forbidden(request.resource.group_resource, request.name or None, refusal.text)


def admit(cluster: Cluster, request: Request) -> Verdict:
    """The ValidatingAdmissionPolicy plugin's verdict on ``request`` in ``cluster``."""
    verdict = Verdict()
    by_policy: dict[str, list[Binding]] = {}
    for binding in sorted(cluster.bindings, key=lambda b: b.name):
        by_policy.setdefault(binding.policy_name, []).append(binding)
    for policy in sorted(cluster.policies, key=lambda p: p.name):
        bindings = by_policy.get(policy.name, [])
        if policy.match_constraints is None or not bindings:
            continue
        selected = matches(policy.match_constraints, request, cluster.namespaces)
        if isinstance(selected, Unknown):
            verdict.not_evaluated.append(NotEvaluated(policy.name, None, selected.reason))
            continue
        if not selected:
            continue
        kind = policy.param_kind
        if kind is not None and (kind.api_version, kind.kind) in cluster.unserved:
            # The hook's configuration error, before any binding (``Dispatch``).
            if policy.failure_policy == FAIL:
                message = param_kind_error(kind.api_version, kind.kind)
                verdict.denials.append(
                    Denial(policy.name, None, f"failed to configure policy: {message}")
                )
            continue
        _dispatch(cluster, request, policy, bindings, verdict)
    return verdict


def _dispatch(
    cluster: Cluster, request: Request, policy: Policy, bindings: list[Binding], verdict: Verdict
) -> None:
    published: dict[str, list[str]] = {}
    for binding in bindings:
        if binding.match_resources is not None:
            selected = matches(binding.match_resources, request, cluster.namespaces)
            if isinstance(selected, Unknown):
                verdict.not_evaluated.append(
                    NotEvaluated(policy.name, binding.name, selected.reason)
                )
                continue
            if not selected:
                continue
        params = collect_params(
            policy.param_kind, binding.param_ref, request.namespace, cluster.objects
        )
        if isinstance(params, ParamError):
            if policy.failure_policy == FAIL:
                message = f"failed to configure binding: {params.message}"
                verdict.denials.append(Denial(policy.name, binding.name, message))
            continue
        _evaluate(cluster, request, _Invocation(policy, binding, params), verdict, published)
    for key, values in published.items():
        verdict.annotations[f"{policy.name}/{key}"] = ", ".join(values)


@dataclass(frozen=True, slots=True)
class _Invocation:
    """A policy through one binding, with the parameter objects to evaluate it with."""

    policy: Policy
    binding: Binding
    params: list[JsonObject | None]


def _evaluate(
    cluster: Cluster,
    request: Request,
    invocation: _Invocation,
    verdict: Verdict,
    published: dict[str, list[str]],
) -> None:
    policy, binding = invocation.policy, invocation.binding
    if not invocation.params:
        return
    unusable = unevaluable(policy, cluster.release)
    if unusable:
        verdict.not_evaluated.append(NotEvaluated(policy.name, binding.name, unusable))
        return
    namespace = cluster.namespaces.get(request.namespace) if request.namespace else None
    for param in invocation.params:
        inputs = Inputs(
            obj=request.obj,
            old=request.old,
            request=request_json(request),
            params=param,
            namespace=namespace_object(namespace),
            release=cluster.release,
        )
        result = validate(policy, inputs)
        if result.not_evaluated:
            verdict.not_evaluated.append(
                NotEvaluated(policy.name, binding.name, result.not_evaluated)
            )
            continue
        for index, decision in enumerate(result.decisions):
            if decision.action == DENY:
                _act(verdict, invocation, index, decision.message, decision.reason)
        _collect_annotations(verdict, policy, binding, result.annotations, published)


def _act(verdict: Verdict, invocation: _Invocation, index: int, message: str, reason: str) -> None:
    policy, binding = invocation.policy, invocation.binding
    for action in binding.validation_actions:
        if action == DENY_ACTION:
            verdict.denials.append(Denial(policy.name, binding.name, message, reason or INVALID))
        elif action == WARN:
            verdict.warnings.append(
                f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' "
                f"with binding '{binding.name}': {message}"
            )
        elif action == AUDIT:
            verdict.annotations[VALIDATION_FAILURE] = _failure_value(binding, index, message)


def _failure_value(binding: Binding, index: int, message: str) -> str:
    """The audit annotation's JSON, fields in Go's order, HTML characters escaped as Go does."""
    value = [
        {
            "message": message,
            "policy": binding.policy_name,
            "binding": binding.name,
            "expressionIndex": index,
            "validationActions": list(binding.validation_actions),
        }
    ]
    encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        encoded = encoded.replace(char, escape)
    return encoded


#: Longest audit annotation value the API server keeps (``maxAuditAnnotationValueLength``).
_MAX_ANNOTATION = 10 * 1024


def _collect_annotations(
    verdict: Verdict,
    policy: Policy,
    binding: Binding,
    annotations: Sequence[AuditAnnotation],
    published: dict[str, list[str]],
) -> None:
    for annotation in annotations:
        if annotation.action == PUBLISH:
            values = published.setdefault(annotation.key, [])
            value = annotation.value[:_MAX_ANNOTATION]
            if value not in values:
                values.append(value)
        elif annotation.action == ERROR:
            verdict.denials.append(Denial(policy.name, binding.name, annotation.error))
