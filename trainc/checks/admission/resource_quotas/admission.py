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
Updates, quota configuration of the API server (``limitedResources``) and the
``status unknown`` refusal of a quota whose usage is not yet computed are not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trainc.checks.admission.resource_lists import ZERO, ResourceList, add, pretty
from trainc.checks.admission.resource_quotas.evaluators import (
    Target,
    matches,
    matching_resources,
    missing,
    usage,
)
from trainc.checks.admission.resource_quotas.quota import Quota
from trainc.checks.workload.quantities import Amount
from trainc.checks.workload.version import KubeVersion


@dataclass(frozen=True, slots=True)
class Refusal:
    """The quota that refuses an object and the message after ``is forbidden:``."""

    quota: str
    message: str


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
) -> Refusal | None:
    """The plugin's verdict on creating ``target`` in a namespace with ``quotas``.

    ``quotas`` in the order to check them (see
    :func:`~trainc.checks.admission.resource_quotas.quota.ordered`); ``used`` maps a
    quota's name to its ``status.used`` where known (absent resources are zero).
    """
    applying = [quota for quota in quotas if matches(quota, target, release)]
    for quota in applying:
        problem = missing(target, matching_resources(target, list(quota.hard)), release)
        if problem is not None:
            return Refusal(quota.name, f"failed quota: {quota.name}: {problem}")
    if not applying:
        return None
    delta = usage(target, release)
    for quota in applying:
        now = dict.fromkeys(quota.hard, ZERO)
        now.update((used or {}).get(quota.name, {}))
        requested = mask(delta, list(quota.hard))
        over = exceeded(mask(add(now, requested), list(requested)), quota.hard)
        if over:
            return Refusal(quota.name, exceeded_message(quota, requested, now, over))
    return None
