"""Policies and bindings the API server cannot apply as they are written.

The ValidatingAdmissionPolicy plugin keeps one hook per policy with the bindings that name
it (``policySource`` in
https://github.com/kubernetes/kubernetes/tree/v1.36.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic):

- a binding whose ``policyName`` names no policy belongs to no hook, so it is applied to
  nothing, without a word;
- a binding without ``paramRef`` for a policy with a ``paramKind`` is evaluated with null
  ``params`` (``CollectParams``: "Policy ParamKind is set, but binding does not use it"),
  so every expression that reads ``params`` errors at runtime and ``failurePolicy``
  decides the request;
- a ``paramKind`` the cluster does not serve (``failed to configure policy: failed to find
  resource referenced by paramKind: '/v1, Kind=ConfigMaps'``) fails every request the
  policy matches, and ``failurePolicy`` decides;
- an expression that does not compile is refused when the policy is stored
  (``compilation failed``); a policy stored all the same (by a release whose CEL
  environment differed) fails every request it matches with ``compilation error: …``,
  and ``failurePolicy`` decides.

What each does to the requests it matches is the plugin's, judged per object by
:mod:`.admission` and :mod:`.evaluation`; this module says it once per run, at the line of
the policy or binding, where the platform team can fix it (``vap.misconfigured``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from trainc.checks.admission.policies.evaluation import compile_error
from trainc.checks.admission.policies.libraries import uses_authorizer
from trainc.checks.admission.policies.model import binding_from_json, policy_from_json
from trainc.checks.admission.policies.params import param_kind_error
from trainc.checks.workload.jsonfields import objects, text
from trainc.diagnostics import Rule, RuleDoc, Severity, did_you_mean
from trainc.model.json import FieldPath, JsonObject, as_object
from trainc.schema.cel.library.declare import Release

VAP_MISCONFIGURED = Rule(
    "vap.misconfigured",
    Severity.WARNING,
    "a ValidatingAdmissionPolicy or binding of the cluster that cannot be applied as written",
    doc=RuleDoc(
        what=(
            "a binding whose `policyName` names no policy among the cluster's objects (the "
            "API server applies it to nothing), a binding without `paramRef` for a policy "
            "with a `paramKind` (the policy runs with null `params`), or a policy expression "
            "that does not compile (the API server refuses to store it). Reported once, at "
            "the policy's or binding's line; what it does to each object is reported there. "
            "A `paramKind` of a built-in group that the configured release does not serve "
            "makes the policy fail every request it matches"
        ),
        source="`policySource` and `CollectParams` of the API server's policy plugins "
        "(k8s.io/apiserver/pkg/admission/plugin/policy/generic)",
        fix="name an existing policy, give the binding a `paramRef`, or correct the expression",
    ),
)

POLICY_KIND: Final = "ValidatingAdmissionPolicy"
BINDING_KIND: Final = "ValidatingAdmissionPolicyBinding"

#: Where a policy keeps expressions: list, then the key of the expression in each item.
_EXPRESSIONS: Final = (
    ("matchConditions", "expression"),
    ("variables", "expression"),
    ("validations", "expression"),
    ("validations", "messageExpression"),
    ("auditAnnotations", "valueExpression"),
)


@dataclass(frozen=True, slots=True)
class Misconfiguration:
    """One problem of a policy or binding: the object, the path of the field at fault,
    what the API server does with it, and the fix."""

    obj: JsonObject
    path: FieldPath
    message: str
    hint: str


def unserved_param_kinds(
    found: Iterable[JsonObject], serves: Callable[[str, str], bool]
) -> frozenset[tuple[str, str]]:
    """The (apiVersion, kind) of policies' ``paramKind`` the cluster certainly does not
    serve: a built-in group's (no dot in the group: custom resources must have one, so
    only the release decides) that ``serves`` does not know. A custom resource's kind is
    taken as served; the cluster's CRDs are not among the objects trainc reads."""
    unserved: set[tuple[str, str]] = set()
    for obj in found:
        if obj.get("kind") != POLICY_KIND:
            continue
        kind = policy_from_json(obj).param_kind
        if kind is None or "." in kind.api_version.rpartition("/")[0]:
            continue
        if not serves(kind.api_version, kind.kind):
            unserved.add((kind.api_version, kind.kind))
    return frozenset(unserved)


def misconfigurations(
    found: Iterable[JsonObject],
    unserved: frozenset[tuple[str, str]] = frozenset(),
    release: Release | None = None,
) -> Iterator[Misconfiguration]:
    """The problems of the ``admissionregistration.k8s.io/v1`` policies and bindings
    among ``found`` (the cluster's objects), policies first; ``unserved`` are the
    paramKinds the cluster does not serve (:func:`unserved_param_kinds`), ``release`` the
    API server's, whose CEL libraries the expressions may call."""
    items = list(found)
    policies = {
        policy.name: policy
        for policy in (policy_from_json(obj) for obj in items if obj.get("kind") == POLICY_KIND)
    }
    for obj in items:
        if obj.get("kind") == POLICY_KIND:
            yield from _unserved(obj, unserved)
            yield from _uncompiled(obj, release)
    for obj in items:
        if obj.get("kind") != BINDING_KIND:
            continue
        binding = binding_from_json(obj)
        policy = policies.get(binding.policy_name)
        if policy is None:
            guess = did_you_mean(binding.policy_name, policies)
            yield Misconfiguration(
                obj,
                ("spec", "policyName"),
                f"ValidatingAdmissionPolicyBinding {binding.name!r} names policy "
                f"{binding.policy_name!r}, which the cluster's objects do not hold: the API "
                "server applies this binding to nothing",
                (f"{guess}; " if guess else "")
                + "name an existing ValidatingAdmissionPolicy, or add the policy to the "
                "cluster's manifests",
            )
        elif policy.param_kind is not None and binding.param_ref is None:
            kind = policy.param_kind
            yield Misconfiguration(
                obj,
                ("spec",),
                f"ValidatingAdmissionPolicy {policy.name!r} takes parameters ({kind.api_version} "
                f"{kind.kind}), but binding {binding.name!r} has no paramRef: the API server "
                "evaluates the policy with null params, and every expression that reads "
                "params fails (failurePolicy decides the request)",
                f"give the binding a paramRef naming the {kind.kind} to use",
            )


def _unserved(obj: JsonObject, unserved: frozenset[tuple[str, str]]) -> Iterator[Misconfiguration]:
    policy = policy_from_json(obj)
    kind = policy.param_kind
    if kind is None or (kind.api_version, kind.kind) not in unserved:
        return
    yield Misconfiguration(
        obj,
        ("spec", "paramKind"),
        f"ValidatingAdmissionPolicy {policy.name!r}: failed to configure policy: "
        f"{param_kind_error(kind.api_version, kind.kind)}: the cluster serves no such kind, "
        "so every request the policy matches fails (failurePolicy decides)",
        "name a kind the cluster serves, e.g. apiVersion v1, kind ConfigMap",
    )


def _uncompiled(obj: JsonObject, release: Release | None) -> Iterator[Misconfiguration]:
    spec = as_object(obj.get("spec"))
    name = text(as_object(obj.get("metadata")).get("name")) or ""
    for key, field in _EXPRESSIONS:
        for index, item in objects(spec.get(key)):
            expression = text(item.get(field))
            if not expression or uses_authorizer([expression]):
                continue  # only the cluster can answer: vap.not-evaluated says so
            error = compile_error(expression, release)
            if not error:
                continue
            path = ("spec", key, index, field)
            yield Misconfiguration(
                obj,
                path,
                f"ValidatingAdmissionPolicy {name!r}: spec.{key}[{index}].{field}: {error}: the "
                "API server refuses to store the policy; stored all the same, it fails every "
                "request it matches (failurePolicy decides)",
                "correct the expression; `kubectl apply --dry-run=server` shows the API "
                "server's own compilation error",
            )
