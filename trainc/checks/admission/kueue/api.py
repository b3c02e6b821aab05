"""Kueue's queueing objects as its controllers read them, from either served API version.

Kueue serves ``kueue.x-k8s.io/v1beta1`` and, from v0.15.0, ``v1beta2`` (the storage version
of the release modelled here,
https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/apis/kueue). The fields this package
reads are spelled alike in both, except the ClusterQueue's cohort: ``spec.cohort`` in
v1beta1, ``spec.cohortName`` in v1beta2. A manifest of either version is read into one
model here; fields that only shape which workload goes first (fair sharing, preemption,
admission checks) are not read, since they never decide whether a workload can be admitted
at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainc.checks.workload.jsonfields import integer, objects, strings, text
from trainc.checks.workload.quantities import Amount, defaulted_amount
from trainc.model.json import JsonObject, JsonValue, as_object

GROUP = "kueue.x-k8s.io"
#: The API versions Kueue serves, oldest first.
VERSIONS = ("v1beta1", "v1beta2")
#: The ``stopPolicy`` that leaves a queue running (its default).
NO_STOP = "None"
#: ``flavorFungibility.whenCanBorrow`` that makes Kueue look further before borrowing.
TRY_NEXT_FLAVOR = "TryNextFlavor"


@dataclass(frozen=True, slots=True)
class Taint:
    """A ResourceFlavor's ``nodeTaints`` entry."""

    key: str
    value: str
    effect: str
    time_added: str | None = None


@dataclass(frozen=True, slots=True)
class Toleration:
    """A ``corev1.Toleration``, from a flavor or a pod template."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""


@dataclass(frozen=True, slots=True)
class ResourceFlavor:
    """A ResourceFlavor: the node labels, taints and tolerations it stands for."""

    name: str
    node_labels: dict[str, str]
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()


@dataclass(frozen=True, slots=True)
class Quota:
    """One resource of one flavor: ``nominalQuota`` and the optional limits."""

    nominal: Amount
    borrowing_limit: Amount | None = None
    lending_limit: Amount | None = None


@dataclass(frozen=True, slots=True)
class FlavorQuotas:
    """A flavor of a resource group, with a quota per resource, in the order written."""

    name: str
    resources: dict[str, Quota]


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    """``coveredResources`` and the flavors that provide them, in the order Kueue tries them."""

    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True, slots=True)
class ClusterQueue:
    """A ClusterQueue, as far as it decides whether a workload can ever be admitted.

    ``namespace_selector`` is kept as written: absent (None) selects no namespace, ``{}``
    selects every one (the API's documented default and ``LabelSelectorAsSelector``).
    """

    name: str
    resource_groups: tuple[ResourceGroup, ...]
    namespace_selector: JsonValue = None
    cohort: str = ""
    queueing_strategy: str = "BestEffortFIFO"
    stop_policy: str = NO_STOP
    when_can_borrow: str = ""


@dataclass(frozen=True, slots=True)
class LocalQueue:
    """A LocalQueue: its namespace, the ClusterQueue it feeds and whether it is stopped."""

    namespace: str
    name: str
    cluster_queue: str
    stop_policy: str = NO_STOP


@dataclass(frozen=True, slots=True)
class Cohort:
    """A Cohort object: its parent in the cohort tree and its own quota."""

    name: str
    parent: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()


@dataclass(frozen=True, slots=True)
class WorkloadPriorityClass:
    """A WorkloadPriorityClass: the priority it gives (it never decides admissibility)."""

    name: str
    value: int


def _name(obj: JsonObject) -> str:
    return text(as_object(obj.get("metadata")).get("name")) or ""


def _amount(raw: JsonValue) -> Amount | None:
    return None if raw is None else defaulted_amount(raw)


def _tolerations(value: JsonValue) -> tuple[Toleration, ...]:
    return tuple(
        Toleration(
            text(raw.get("key")) or "",
            text(raw.get("operator")) or "",
            text(raw.get("value")) or "",
            text(raw.get("effect")) or "",
        )
        for _, raw in objects(value)
    )


def tolerations_from_json(value: JsonValue) -> tuple[Toleration, ...]:
    """A pod spec's ``tolerations`` list."""
    return _tolerations(value)


def resource_flavor_from_json(obj: JsonObject) -> ResourceFlavor:
    """A ResourceFlavor manifest of either version."""
    spec = as_object(obj.get("spec"))
    labels = as_object(spec.get("nodeLabels"))
    taints = tuple(
        Taint(
            text(raw.get("key")) or "",
            text(raw.get("value")) or "",
            text(raw.get("effect")) or "",
            text(raw.get("timeAdded")) or None,
        )
        for _, raw in objects(spec.get("nodeTaints"))
    )
    return ResourceFlavor(
        _name(obj),
        {key: value for key, value in labels.items() if isinstance(value, str)},
        taints,
        _tolerations(spec.get("tolerations")),
    )


def _resource_groups(value: JsonValue) -> tuple[ResourceGroup, ...]:
    groups: list[ResourceGroup] = []
    for _, raw in objects(value):
        flavors: list[FlavorQuotas] = []
        for _, flavor in objects(raw.get("flavors")):
            quotas: dict[str, Quota] = {}
            for _, resource in objects(flavor.get("resources")):
                nominal = _amount(resource.get("nominalQuota"))
                quotas[text(resource.get("name")) or ""] = Quota(
                    nominal if nominal is not None else Amount(Decimal(0), binary=False),
                    _amount(resource.get("borrowingLimit")),
                    _amount(resource.get("lendingLimit")),
                )
            flavors.append(FlavorQuotas(text(flavor.get("name")) or "", quotas))
        groups.append(ResourceGroup(tuple(strings(raw.get("coveredResources"))), tuple(flavors)))
    return tuple(groups)


def cluster_queue_from_json(obj: JsonObject) -> ClusterQueue:
    """A ClusterQueue manifest of either version (``cohort`` or ``cohortName``)."""
    spec = as_object(obj.get("spec"))
    cohort = text(spec.get("cohortName")) or text(spec.get("cohort")) or ""
    return ClusterQueue(
        name=_name(obj),
        resource_groups=_resource_groups(spec.get("resourceGroups")),
        namespace_selector=spec.get("namespaceSelector"),
        cohort=cohort,
        queueing_strategy=text(spec.get("queueingStrategy")) or "BestEffortFIFO",
        stop_policy=text(spec.get("stopPolicy")) or NO_STOP,
        when_can_borrow=text(as_object(spec.get("flavorFungibility")).get("whenCanBorrow")) or "",
    )


def local_queue_from_json(obj: JsonObject) -> LocalQueue:
    """A LocalQueue manifest of either version."""
    spec = as_object(obj.get("spec"))
    return LocalQueue(
        namespace=text(as_object(obj.get("metadata")).get("namespace")) or "",
        name=_name(obj),
        cluster_queue=text(spec.get("clusterQueue")) or "",
        stop_policy=text(spec.get("stopPolicy")) or NO_STOP,
    )


def cohort_from_json(obj: JsonObject) -> Cohort:
    """A Cohort manifest of either version."""
    spec = as_object(obj.get("spec"))
    return Cohort(
        _name(obj),
        text(spec.get("parentName")) or "",
        _resource_groups(spec.get("resourceGroups")),
    )


def workload_priority_class_from_json(obj: JsonObject) -> WorkloadPriorityClass:
    """A WorkloadPriorityClass manifest (``value`` is top-level, as in PriorityClass)."""
    return WorkloadPriorityClass(_name(obj), integer(obj.get("value")) or 0)
