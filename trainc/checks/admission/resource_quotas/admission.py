"""The ResourceQuota plugin's decision on one object being created, against hard limits.

``checkRequest`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go:
of the namespace's quotas, those whose scopes select the object and which track one of
its resources apply. First, for each of them in turn, the object must satisfy its
evaluator's constraints, else ``failed quota: NAME: must specify …``. Then, for each in
turn, the object's usage of the quota's resources, added to what the namespace already
uses, must stay within ``hard``, else ``exceeded quota: NAME, requested: …, used: …,
limited: …`` naming only the exceeded resources, sorted, as ``name=amount`` joined by
commas. The first quota that refuses decides the message.

What the namespace already uses is the quota's ``status.used``, which only the live
cluster knows. Offline it is unknown: every function here takes it as zero unless
told otherwise, so a refusal found here is certain (the object exceeds the quota even in
an empty namespace), while an admission is not (the namespace may be full already).
The plugin's configuration may name ``limitedResources``
(:class:`~trainc.config.settings.LimitedResource`):
an object that consumes a resource whose name contains one of an item's
``matchContains`` (for an item of the object's group and resource) must find a quota of
its namespace that selects it and tracks that resource, else ``insufficient quota to
consume: NAMES`` (a Forbidden error); an object in a scope of any item's ``matchScopes``
must find a quota with a scope selector of the same scope that selects it, else
``insufficient quota to match these scopes: [{PriorityClass In [a b]}]`` (an error the
plugin does not wrap: the client reads it without ``is forbidden:``). Both are checked
after every quota's constraints and before the hard limits. An UPDATE (a
:class:`~trainc.checks.admission.resource_quotas.evaluators.Target` with ``old``) is
charged only what it adds (:func:`~trainc.checks.admission.resource_quotas.evaluators.charged`).
The ``status unknown`` refusal of a quota whose usage is not yet computed is not
modelled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trainc.checks.admission.resource_lists import ZERO, ResourceList, add, pretty
from trainc.checks.admission.resource_quotas.evaluators import (
    Target,
    charged,
    matches,
    matching_resources,
    missing,
    scope_matches,
)
from trainc.checks.admission.resource_quotas.quota import Quota, Selector
from trainc.checks.workload.quantities import Amount
from trainc.checks.workload.version import KubeVersion
from trainc.config.settings import LimitedResource


@dataclass(frozen=True, slots=True)
class Refusal:
    """The quota that refuses an object and the message after ``is forbidden:``; no
    quota (``""``) when the plugin's ``limitedResources`` find none covering the object,
    then ``uncovered`` names the resources or scopes at fault."""

    quota: str
    message: str
    uncovered: tuple[str, ...] = ()


def mask(amounts: Mapping[str, Amount], names: list[str] | set[str]) -> ResourceList:
    """``quota.Mask``: only the named resources."""
    return {name: amount for name, amount in amounts.items() if name in names}


def exceeded(amounts: Mapping[str, Amount], hard: Mapping[str, Amount]) -> list[str]:
    """``quota.LessThanOrEqual``'s second answer: the resources above their hard limit."""
    return [
        name for name, amount in amounts.items() if name in hard and amount.value > hard[name].value
    ]


def exceeded_message(
    quota: Quota, requested: ResourceList, used: ResourceList, names: list[str]
) -> str:
    """``exceeded quota: NAME, requested: a=1, used: a=0, limited: a=0``."""
    return (
        f"exceeded quota: {quota.name}, requested: {pretty(mask(requested, names))}, "
        f"used: {pretty(mask(used, names))}, limited: {pretty(mask(quota.hard, names))}"
    )


def admit(
    quotas: list[Quota],
    target: Target,
    release: KubeVersion,
    used: Mapping[str, ResourceList] | None = None,
    limited: Sequence[LimitedResource] = (),
) -> Refusal | None:
    """The plugin's verdict on creating ``target`` (or updating it: ``target.old``) in a
    namespace with ``quotas``.

    ``quotas`` in the order to check them (see
    :func:`~trainc.checks.admission.resource_quotas.quota.ordered`); ``used`` maps a
    quota's name to its ``status.used`` where known (absent resources are zero);
    ``limited`` is the plugin's ``limitedResources``.
    """
    applying = [quota for quota in quotas if matches(quota, target, release)]
    for quota in applying:
        problem = missing(target, matching_resources(target, list(quota.hard)), release)
        if problem is not None:
            return Refusal(quota.name, f"failed quota: {quota.name}: {problem}")
    delta = charged(target, release)
    if all(amount.value <= 0 for amount in delta.values()):
        return None  # an UPDATE that asks for nothing more
    uncovered = _uncovered(quotas, applying, target, release, limited)
    if uncovered is not None:
        return uncovered
    if not applying:
        return None
    for quota in applying:
        now = dict.fromkeys(quota.hard, ZERO)
        now.update((used or {}).get(quota.name, {}))
        requested = mask(delta, list(quota.hard))
        over = exceeded(mask(add(now, requested), list(requested)), quota.hard)
        if over:
            return Refusal(quota.name, exceeded_message(quota, requested, now, over))
    return None


def _limited_names(
    target: Target, release: KubeVersion, limited: Sequence[LimitedResource]
) -> set[str]:
    """``limitedByDefault``: the resources the object consumes (a positive usage) whose
    name contains a ``matchContains`` of an item for its group and resource."""
    items = [
        item
        for item in limited
        if (item.api_group, item.resource) == (target.group, target.resource)
    ]
    if not items:
        return set()
    consumed = [name for name, amount in charged(target, release).items() if amount.value > 0]
    return {
        name
        for item in items
        for name in consumed
        if any(part in name for part in item.match_contains)
    }


def _uncovered(
    quotas: Sequence[Quota],
    applying: Sequence[Quota],
    target: Target,
    release: KubeVersion,
    limited: Sequence[LimitedResource],
) -> Refusal | None:
    """The refusal of an object that consumes a limited resource, or is in a limited scope,
    that no quota of its namespace covers (``CheckRequest``'s two checks after the
    constraints)."""
    if not limited:
        return None
    tracked = {name for quota in applying for name in matching_resources(target, list(quota.hard))}
    lacking = sorted(_limited_names(target, release, limited) - tracked)
    if lacking:
        return Refusal("", f"insufficient quota to consume: {','.join(lacking)}", tuple(lacking))
    # The scopes of every quota that select the object, whether or not it tracks it.
    covered = {
        selector.scope
        for quota in quotas
        for selector in quota.selectors
        if scope_matches(selector, target, release)
    }
    scopes = [
        selector
        for item in limited
        for selector in (
            Selector(scope.scope_name, scope.operator, scope.values) for scope in item.match_scopes
        )
        if scope_matches(selector, target, release) and selector.scope not in covered
    ]
    if not scopes:
        return None
    said = " ".join(f"{{{s.scope} {s.operator} [{' '.join(s.values)}]}}" for s in scopes)
    return Refusal(
        "",
        f"insufficient quota to match these scopes: [{said}]",
        tuple(selector.scope for selector in scopes),
    )
