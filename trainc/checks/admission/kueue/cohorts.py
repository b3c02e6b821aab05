"""How much of a flavor's resource a ClusterQueue could ever use: its quota and its cohort's.

Kueue arranges ClusterQueues and Cohorts in a tree (a ClusterQueue's ``cohort`` /
``cohortName``, a Cohort's ``parentName``; a cohort named by a ClusterQueue exists even
without a Cohort object). Every node adds up, per flavor and resource, its own nominal
quota and what its children put in the common pool: a child's whole subtree quota less
what its ``lendingLimit`` keeps back for itself (``updateCohortResourceNode``). The most a
ClusterQueue can use is what it keeps for itself plus the most its parent can offer, capped
by its own quota plus ``borrowingLimit`` (``potentialAvailable``; both in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/cache/scheduler/resource_node.go).
That is the "maximum capacity" of Kueue's messages. With no usage anywhere (what trainc
assumes, current usage being unknown offline) it is also what is available now, so a
request that fits it is admitted, and one that does not is never admitted.
A cohort tree with a cycle is refused by Kueue; here the walk up stops where it would
repeat.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trainc.checks.admission.kueue.amounts import value
from trainc.checks.admission.kueue.api import ClusterQueue, Cohort, Quota, ResourceGroup

#: A flavor and a resource.
FlavorResource = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Limits:
    """One node's quota of a flavor-resource in Kueue's units."""

    nominal: int = 0
    borrowing: int | None = None
    lending: int | None = None


def _limits(resource: str, quota: Quota) -> Limits:
    return Limits(
        value(resource, quota.nominal),
        None if quota.borrowing_limit is None else value(resource, quota.borrowing_limit),
        None if quota.lending_limit is None else value(resource, quota.lending_limit),
    )


def quotas(groups: Iterable[ResourceGroup]) -> dict[FlavorResource, Limits]:
    """The quotas of some resource groups, by flavor and resource."""
    return {
        (flavor.name, resource): _limits(resource, quota)
        for group in groups
        for flavor in group.flavors
        for resource, quota in flavor.resources.items()
    }


@dataclass(slots=True)
class Node:
    """A ClusterQueue or cohort in the tree: its quotas, parent and children."""

    quotas: dict[FlavorResource, Limits]
    parent: str = ""
    children: list[Node] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Tree:
    """The cohort tree of a cluster, with one ClusterQueue's place in it."""

    cohorts: dict[str, Node]

    def subtree(self, node: Node, fr: FlavorResource) -> int:
        """``SubtreeQuota``: own nominal quota plus what the children lend to the pool."""
        own = node.quotas.get(fr, Limits()).nominal
        return own + sum(self.subtree(child, fr) - self.local(child, fr) for child in node.children)

    def local(self, node: Node, fr: FlavorResource) -> int:
        """``localQuota``: what a node keeps from the pool (its quota beyond lendingLimit)."""
        lending = node.quotas.get(fr, Limits()).lending
        return 0 if lending is None else max(0, self.subtree(node, fr) - lending)

    def potential(self, node: Node, fr: FlavorResource, seen: frozenset[str] = frozenset()) -> int:
        """``potentialAvailable``: the most ``node`` can ever use of ``fr``."""
        parent = self.cohorts.get(node.parent) if node.parent not in seen else None
        if parent is None:
            return self.subtree(node, fr)
        available = self.local(node, fr) + self.potential(parent, fr, seen | {node.parent})
        borrowing = node.quotas.get(fr, Limits()).borrowing
        if borrowing is not None:
            available = min(available, self.subtree(node, fr) + borrowing)
        return available


def _in_cycle(name: str, nodes: dict[str, Node]) -> bool:
    """Whether walking up from cohort ``name`` comes back to it."""
    seen = {name}
    parent = nodes[name].parent
    while parent and parent in nodes:
        if parent in seen:
            return True
        seen.add(parent)
        parent = nodes[parent].parent
    return False


def tree(
    queue: ClusterQueue, queues: Iterable[ClusterQueue], cohorts: Iterable[Cohort]
) -> tuple[Tree, Node]:
    """The cohort tree around ``queue``, and ``queue``'s node in it."""
    nodes: dict[str, Node] = {}
    for cohort in cohorts:
        nodes[cohort.name] = Node(quotas(cohort.resource_groups), cohort.parent)
    for node in list(nodes.values()):
        if node.parent and node.parent not in nodes:
            nodes[node.parent] = Node({})
    for name, node in nodes.items():
        if node.parent and not _in_cycle(name, nodes):
            nodes[node.parent].children.append(node)
        elif node.parent:
            node.parent = ""
    own = Node(quotas(queue.resource_groups), queue.cohort)
    members = [own]
    members += [
        Node(quotas(other.resource_groups), other.cohort)
        for other in queues
        if other.name != queue.name
    ]
    for member in members:
        if member.parent:
            nodes.setdefault(member.parent, Node({})).children.append(member)
    return Tree(nodes), own
