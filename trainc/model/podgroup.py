"""The two PodGroup kinds trainc emits for gang scheduling, as their CRDs define them.

scheduler-plugins' ``scheduling.x-k8s.io/v1alpha1`` PodGroup (the Coscheduling plugin)
and Volcano's ``scheduling.volcano.sh/v1beta1`` PodGroup (CRDs linked in
``docs/upstream.md``, "PodGroups"). Only what an emitted object may carry is modelled: trainc never
writes ``status``, so the generated JSON Schemas reject it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, TypeAlias

from trainc.model import patterns
from trainc.model.json import JsonObject
from trainc.model.k8s import ObjectMeta
from trainc.model.markers import (
    ATOMIC,
    Default,
    K8s,
    MaxLength,
    Minimum,
    Pattern,
)
from trainc.model.scalars import Int32, Quantity

"""A resource quantity; trainc always writes the canonical string (``1250m``, ``2560Mi``)."""

LabelSelector: TypeAlias = Annotated[
    JsonObject, K8s("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
]
"""A label query over pods."""

_DNS_SUBDOMAIN = Pattern(patterns.DNS1123_SUBDOMAIN.anchored)


@dataclass(frozen=True, slots=True, kw_only=True)
class CoschedulingPodGroupSpec:
    """The gang: how many pods, with how much, must be schedulable together."""

    min_member: Annotated[Int32 | None, Minimum(1)] = None
    """Pods that must be schedulable at once before any of them is bound (at least 1)."""

    min_resources: dict[str, Quantity] | None = None
    """Resources the whole gang needs; the scheduler waits until they are free."""

    schedule_timeout_seconds: Int32 | None = None
    """Seconds the gang may wait in Permit before the scheduler gives up on it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CoschedulingPodGroup:
    """A scheduler-plugins PodGroup; pods join it by the ``scheduling.x-k8s.io/pod-group`` label."""

    api_version: Literal["scheduling.x-k8s.io/v1alpha1"]
    """``scheduling.x-k8s.io/v1alpha1``."""

    kind: Literal["PodGroup"]
    """``PodGroup``."""

    metadata: ObjectMeta
    """Name (the TrainJob's) and namespace."""

    spec: CoschedulingPodGroupSpec | None = None
    """The gang."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoNetworkTopologySpec:
    """How far apart in the network the gang's pods may be placed."""

    mode: Annotated[Literal["hard", "soft"] | None, Default("hard")] = None
    """``hard`` requires the tier limit, ``soft`` only prefers it."""

    highest_tier_allowed: Annotated[int | None, Minimum(0)] = None
    """Highest network tier the gang may span; not together with highestTierName."""

    highest_tier_name: Annotated[str | None, MaxLength(253)] = None
    """Name of the highest tier the gang may span; not together with highestTierAllowed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoSubGroupPolicy:
    """Gang and topology rules for one group of the PodGroup's pods."""

    name: Annotated[str | None, MaxLength(253)] = None
    """Name of the policy."""

    label_selector: LabelSelector | None = None
    """Pods the policy applies to."""

    match_label_keys: Annotated[list[str] | None, ATOMIC] = None
    """Label keys whose equal values put selected pods into one subgroup."""

    min_sub_groups: Annotated[Int32 | None, Default(0), Minimum(0)] = None
    """Subgroups that must be schedulable before any is scheduled."""

    network_topology: VolcanoNetworkTopologySpec | None = None
    """Network-topology constraint of each subgroup."""

    sub_group_size: Annotated[Int32 | None, Default(1), Minimum(1)] = None
    """Pods per subgroup."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoPodGroupSpec:
    """The gang, its queue and priority, as Volcano schedules it."""

    min_member: Annotated[Int32 | None, Minimum(0)] = None
    """Pods that must be schedulable at once before any of them is bound."""

    min_resources: dict[str, Quantity] | None = None
    """Resources the whole gang needs before the queue admits it."""

    min_task_member: dict[str, Int32] | None = None
    """Minimum pods per task; superseded by subGroupPolicy (do not combine them)."""

    queue: Annotated[str | None, Default("default"), MaxLength(253), _DNS_SUBDOMAIN] = None
    """Volcano queue the gang is charged to; it is not scheduled if the queue is missing."""

    priority_class_name: Annotated[str | None, MaxLength(253)] = None
    """PriorityClass of the gang."""

    network_topology: VolcanoNetworkTopologySpec | None = None
    """Network-topology-aware placement of the whole gang."""

    sub_group_policy: list[VolcanoSubGroupPolicy] | None = None
    """Gang and topology rules per group of pods (the successor of minTaskMember)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolcanoPodGroup:
    """A Volcano PodGroup: pods join it with the ``scheduling.k8s.io/group-name`` annotation."""

    api_version: Literal["scheduling.volcano.sh/v1beta1"]
    """``scheduling.volcano.sh/v1beta1``."""

    kind: Literal["PodGroup"]
    """``PodGroup``."""

    metadata: ObjectMeta
    """Name (the TrainJob's) and namespace."""

    spec: VolcanoPodGroupSpec | None = None
    """The gang."""
