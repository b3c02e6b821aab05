"""Whether a quota can ever admit all the pods of a gang at the same time.

A gang (a coscheduled or Volcano PodGroup, or any multi-node torch, MPI or JAX job) only
runs when all its pods run. Each pod may pass the quota plugin alone while together they
need more than the quota's hard limit: the pods created first are admitted, the rest are
refused with ``exceeded quota`` for as long as the first ones hold their share, and the
job never starts. The plugin judges one object at a time and has no such message; this
module adds up what the gang's objects count against each quota that applies to them
(with the evaluators' own usage and scope rules) and compares the totals with ``hard``.
The comparison assumes nothing else in the namespace uses the quota (its usage is
unknown offline), so a shortfall found here is certain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trainc.checks.admission.resource_lists import ResourceList, add, pretty, scale
from trainc.checks.admission.resource_quotas.admission import exceeded, mask
from trainc.checks.admission.resource_quotas.evaluators import Target, charged, matches
from trainc.checks.admission.resource_quotas.quota import Quota
from trainc.checks.workload.version import KubeVersion


@dataclass(frozen=True, slots=True)
class Member:
    """Objects of a gang that are alike: one target and how many of it (pods per replica)."""

    target: Target
    count: int = 1


@dataclass(frozen=True, slots=True)
class Shortfall:
    """A quota the gang's objects exceed together: the totals and the hard limits."""

    quota: str
    objects: int
    demand: ResourceList
    hard: ResourceList
    only_pods: bool = False
    """True when every object the quota counts is a pod: the message then says pods."""

    @property
    def message(self) -> str:
        """The error: which quota, how many objects, their totals and the limits."""
        noun = "pods" if self.only_pods else "objects"
        return (
            f"quota {self.quota!r} can never admit all {self.objects} {noun} of this gang at "
            f"once: together they request {pretty(self.demand)}, but the quota allows "
            f"{pretty(self.hard)} in the whole namespace"
        )


@dataclass(frozen=True, slots=True)
class Demand:
    """What a quota counts of a gang: how many objects, of which resources, in total."""

    objects: int
    total: ResourceList
    resources: frozenset[str]
    """The resources (``pods``, ``jobs``, ...) of the objects counted."""


def demand(quota: Quota, members: Iterable[Member], release: KubeVersion) -> Demand:
    """How many of the gang's objects the quota applies to, and what they count together
    (an object the GitOps tool applies over the deployed one only what it adds)."""
    total: ResourceList = {}
    objects = 0
    resources: set[str] = set()
    for member in members:
        charge = charged(member.target, release)
        adds = member.target.old is None or bool(charge)  # an unchanged update adds nothing
        if member.count > 0 and adds and matches(quota, member.target, release):
            one = mask(charge, list(quota.hard))
            total = add(total, scale(one, member.count))
            objects += member.count
            resources.add(member.target.resource)
    return Demand(objects, total, frozenset(resources))


def shortfalls(quotas: list[Quota], members: list[Member], release: KubeVersion) -> list[Shortfall]:
    """Every quota whose hard limits the gang's objects exceed together, in quota order."""
    found: list[Shortfall] = []
    for quota in quotas:
        counted = demand(quota, members, release)
        over = exceeded(counted.total, quota.hard)
        if over:
            found.append(
                Shortfall(
                    quota.name,
                    counted.objects,
                    mask(counted.total, over),
                    mask(quota.hard, over),
                    only_pods=counted.resources == {"pods"},
                )
            )
    return found
