"""Whether some flavor assignment fits a workload's PodSets into its ClusterQueue.

This is Kueue's flavor assigner
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/scheduler/flavorassigner/flavorassigner.go)
run against a cluster where nothing is in use, since current usage is unknown offline.
PodSets are taken in order; for each requested resource, the ClusterQueue's resource group
that covers it tries its flavors in order. A flavor is passed over when its ResourceFlavor
is missing, a taint of it is not tolerated, or its node labels do not satisfy the pod's
node selector and required affinity (:mod:`.nodes`); otherwise every resource the group
covers must fit the flavor's maximum capacity (:mod:`.cohorts`) together with what earlier
PodSets of the same workload were given of it. The first flavor that fits is taken, or,
where ``flavorFungibility.whenCanBorrow`` is ``TryNextFlavor``, the first that fits
without borrowing if there is one. A resource no resource group covers refuses the PodSet
outright (``resource ... unavailable in ClusterQueue``) unless its request is zero.

With no usage, a PodSet that fails here fails the same way however long it waits: the
Workload stays pending and its ``QuotaReserved`` condition carries :attr:`Assignment.message`.
The capacity reason reads ``insufficient quota for R in flavor F, previously considered
podsets requests (P) + current podset request (C) > maximum capacity (M)`` from Kueue
v0.15.0; v0.14 and earlier said ``insufficient quota for R in flavor F, request > maximum
capacity (C > M)`` (:func:`capacity_reason` writes either). The other reasons (a resource
unavailable in the ClusterQueue, a flavor not found, an untolerated taint, a flavor that
does not match node affinity) read the same from v0.10 to v0.19.

Not modelled: topology-aware scheduling and PodSet groups, admission checks, the
``QuotaCheckStrategy`` that skips undeclared resources, Workload slices, and the ranking of
borrowing depth beyond "borrows or not". Kueue iterates a workload's resources in map
order; where two resource groups both fail, which one it reports may differ from the
sorted order used here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from trainc.checks.admission.kueue.amounts import Values, show
from trainc.checks.admission.kueue.api import (
    TRY_NEXT_FLAVOR,
    ClusterQueue,
    ResourceFlavor,
    ResourceGroup,
    tolerations_from_json,
)
from trainc.checks.admission.kueue.cohorts import FlavorResource, Node, Tree
from trainc.checks.admission.kueue.nodes import (
    SelectorError,
    matches_flavor,
    show_taint,
    untolerated_taint,
)
from trainc.checks.admission.kueue.podsets import PodSet

PODS = "pods"
#: What earlier PodSets of the workload were given, per flavor and resource.
_Usage = dict[FlavorResource, int]
#: The first release whose capacity message names earlier PodSets' requests.
PREVIOUS_REQUESTS_RELEASE = (0, 15)
#: The Kueue release whose behaviour and messages this package follows.
RELEASE = (0, 19, 2)


@dataclass(frozen=True, slots=True)
class PodSetResult:
    """A PodSet's flavors (resource to flavor) and, when it does not fit, Kueue's reasons."""

    name: str
    flavors: dict[str, str]
    reasons: tuple[str, ...] = ()
    fits: bool = True

    @property
    def message(self) -> str:
        """``Status.Message``: the reasons sorted and joined with commas."""
        return ", ".join(sorted(self.reasons))


@dataclass(frozen=True, slots=True)
class Assignment:
    """The outcome for a workload: one result per PodSet tried (Kueue stops at a failure)."""

    pod_sets: tuple[PodSetResult, ...] = field(default_factory=tuple)

    @property
    def admissible(self) -> bool:
        """Whether every PodSet got a flavor for every resource it needs."""
        return all(result.fits for result in self.pod_sets)

    @property
    def message(self) -> str:
        """``Assignment.Message``: each PodSet with reasons, joined with semicolons."""
        return "; ".join(
            f"couldn't assign flavors to pod set {result.name}: {result.message}"
            for result in self.pod_sets
            if result.reasons
        )


def capacity_reason(
    resource: str,
    flavor: str,
    previous: int,
    request: int,
    capacity: int,
    *,
    binary: Collection[str] = (),
    release: tuple[int, ...] = RELEASE,
) -> str:
    """The reason a flavor's maximum capacity is too small, in the given release's words."""
    prefix = f"insufficient quota for {resource} in flavor {flavor}, "
    if release < PREVIOUS_REQUESTS_RELEASE:
        return (
            prefix + f"request > maximum capacity ({show(resource, previous + request, binary)}"
            f" > {show(resource, capacity, binary)})"
        )
    return (
        prefix + f"previously considered podsets requests ({show(resource, previous, binary)}) + "
        f"current podset request ({show(resource, request, binary)}) > maximum capacity "
        f"({show(resource, capacity, binary)})"
    )


@dataclass(frozen=True, slots=True)
class _Context:
    queue: ClusterQueue
    tree: Tree
    node: Node
    flavors: Mapping[str, ResourceFlavor]
    binary: Collection[str]
    release: tuple[int, ...]


def _group(queue: ClusterQueue, resource: str) -> ResourceGroup | None:
    return next((g for g in queue.resource_groups if resource in g.covered), None)


def _flavor_fit(
    ctx: _Context, pod_set: PodSet, flavor: str, requests: Values, usage: _Usage
) -> tuple[bool, bool, list[str]]:
    """Whether ``flavor`` can take the PodSet, whether it borrows, and the reasons if not."""
    found = ctx.flavors.get(flavor)
    if found is None:
        return False, False, [f"flavor {flavor} not found"]
    tolerations = (*tolerations_from_json(pod_set.spec.get("tolerations")), *found.tolerations)
    taint = untolerated_taint(found.node_taints, tolerations)
    if taint is not None:
        return False, False, [f"untolerated taint {show_taint(taint)} in flavor {flavor}"]
    try:
        matched = matches_flavor(pod_set.spec, found.node_labels)
    except SelectorError:
        matched = False
    if not matched:
        return False, False, [f"flavor {flavor} doesn't match node affinity"]
    reasons: list[str] = []
    borrows = False
    for resource, request in requests.items():
        fr: FlavorResource = (flavor, resource)
        previous = usage.get(fr, 0)
        capacity = ctx.tree.potential(ctx.node, fr)
        if previous + request > capacity:
            reasons.append(
                capacity_reason(
                    resource,
                    flavor,
                    previous,
                    request,
                    capacity,
                    binary=ctx.binary,
                    release=ctx.release,
                )
            )
        elif previous + request > ctx.tree.subtree(ctx.node, fr):
            borrows = True
    return not reasons, borrows, reasons


def _find_flavor(
    ctx: _Context, pod_set: PodSet, group: ResourceGroup, requests: Values, usage: _Usage
) -> tuple[dict[str, str] | None, list[str]]:
    """``findFlavorForPodSets``: the flavor for the group's resources, or Kueue's reasons."""
    covered = {res: amount for res, amount in requests.items() if res in group.covered}
    reasons: list[str] = []
    borrowing: dict[str, str] | None = None
    for flavor in group.flavors:
        fits, borrows, why = _flavor_fit(ctx, pod_set, flavor.name, covered, usage)
        reasons += why
        if not fits:
            continue
        chosen = dict.fromkeys(covered, flavor.name)
        if not borrows or ctx.queue.when_can_borrow != TRY_NEXT_FLAVOR:
            return chosen, []
        if borrowing is None:
            borrowing = chosen
    if borrowing is not None:
        return borrowing, []
    return None, reasons


def _assign_pod_set(ctx: _Context, pod_set: PodSet, usage: _Usage) -> PodSetResult:
    requests = dict(pod_set.requests)
    if _group(ctx.queue, PODS) is not None:
        requests[PODS] = pod_set.count
    assigned: dict[str, str] = {}
    reasons: list[str] = []
    for resource in sorted(requests):
        group = _group(ctx.queue, resource)
        if group is None and requests[resource] == 0:
            continue
        if resource in assigned:
            continue
        if group is None:
            reason = f"resource {resource} unavailable in ClusterQueue"
            return PodSetResult(pod_set.name, {}, (reason,), fits=False)
        chosen, why = _find_flavor(ctx, pod_set, group, requests, usage)
        if chosen is None:
            return PodSetResult(pod_set.name, {}, tuple(why), fits=False)
        assigned.update(chosen)
        reasons += why
    for resource, flavor in assigned.items():
        usage[flavor, resource] = usage.get((flavor, resource), 0) + requests[resource]
    return PodSetResult(pod_set.name, assigned, tuple(reasons))


def assign(
    pod_sets: Sequence[PodSet],
    queue: ClusterQueue,
    tree: Tree,
    node: Node,
    flavors: Mapping[str, ResourceFlavor],
    *,
    binary: Collection[str] = (),
    release: tuple[int, ...] = RELEASE,
) -> Assignment:
    """Kueue's flavor assignment of ``pod_sets`` in ``queue`` with nothing else admitted.

    ``tree`` and ``node`` come from :func:`~.cohorts.tree`; ``flavors`` are the cluster's
    ResourceFlavors by name; ``binary`` names extended resources Kueue's configuration
    prints in binary units; ``release`` picks the wording of the capacity reason.
    """
    ctx = _Context(queue, tree, node, flavors, binary, release)
    usage: _Usage = {}
    results: list[PodSetResult] = []
    for pod_set in pod_sets:
        result = _assign_pod_set(ctx, pod_set, usage)
        results.append(result)
        if not result.fits:
            break
    return Assignment(tuple(results))
