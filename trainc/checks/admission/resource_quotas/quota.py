"""A ResourceQuota as the admission plugin reads it: its hard limits and its scopes.

The plugin judges against ``status.hard``, which the quota controller copies from
``spec.hard``; a manifest in the repository has only ``spec.hard``, and that is what the
cluster will enforce. Scopes come in two spellings that the plugin merges
(``getScopeSelectorsFromQuota`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go):
each name in ``spec.scopes`` is an ``Exists`` selector, followed by
``spec.scopeSelector.matchExpressions``; an object must match every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.checks.admission.resource_lists import ResourceList
from trainc.checks.workload.jsonfields import objects, strings, text
from trainc.checks.workload.quantities import resource_amounts
from trainc.model.json import JsonObject, as_object

EXISTS = "Exists"


@dataclass(frozen=True, slots=True)
class Selector:
    """One ``ScopedResourceSelectorRequirement``: scope name, operator, values."""

    scope: str
    operator: str = EXISTS
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Quota:
    """A ResourceQuota's name, hard limits (in the order written) and scope selectors."""

    name: str
    hard: ResourceList
    selectors: tuple[Selector, ...] = ()


def quota_from_json(obj: JsonObject) -> Quota:
    """A ResourceQuota manifest (``metadata`` and ``spec``) as the plugin judges with it."""
    spec = as_object(obj.get("spec"))
    selectors = [Selector(scope) for scope in strings(spec.get("scopes"))]
    expressions = as_object(spec.get("scopeSelector")).get("matchExpressions")
    for _, expression in objects(expressions):
        selectors.append(
            Selector(
                text(expression.get("scopeName")) or "",
                text(expression.get("operator")) or "",
                tuple(strings(expression.get("values"))),
            )
        )
    return Quota(
        name=text(as_object(obj.get("metadata")).get("name")) or "",
        hard=resource_amounts(spec.get("hard")),
        selectors=tuple(selectors),
    )


def ordered(quotas: list[Quota]) -> list[Quota]:
    """A namespace's quotas in the order trainc checks them: by name.

    The plugin takes them from its informer's cache in no specified order; only which
    quota's message the API server prints first depends on it, never whether it refuses.
    """
    return sorted(quotas, key=lambda quota: quota.name)


def label_selector_matches(selector: Selector, labels: dict[str, str]) -> bool:
    """A scope selector read as a label selector on ``{scope: value}`` (empty: no value).

    ``ScopedResourceSelectorRequirementsAsSelector`` turns ``In``/``NotIn``/``Exists``/
    ``DoesNotExist`` into the label selector of the same name, keyed by the scope's name;
    ``NotIn`` and ``DoesNotExist`` match an object that has no value. An unknown operator
    is refused by quota validation before it gets here, so it matches nothing.
    """
    value = labels.get(selector.scope)
    if selector.operator == "In":
        return value is not None and value in selector.values
    if selector.operator == "NotIn":
        return value is None or value not in selector.values
    if selector.operator == EXISTS:
        return value is not None
    if selector.operator == "DoesNotExist":
        return value is None
    return False
