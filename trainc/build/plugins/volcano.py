"""Volcano: a Volcano PodGroup gathering every pod of the TrainJob (KEP-2437).

Reproduces Trainer's Volcano plugin (``upstream-semantics.md`` §2.12; vector T14): every
pod template gets the annotation ``scheduling.k8s.io/group-name: <tj>``, and the build
emits a ``scheduling.volcano.sh/v1beta1`` PodGroup ``<ns>/<tj>`` sized by
:mod:`trainc.build.podgroup`, with ``queue`` from the JobSet annotation
``scheduling.volcano.sh/queue-name`` (unset: Volcano's ``default`` queue),
``priorityClassName`` from the last replicatedJob whose pods set one, and the runtime's
``networkTopology``. No ownerReference: offline there is no TrainJob UID.

Volcano schedules only pods whose ``schedulerName`` is ``volcano``, which Trainer does
not set, so a runtime whose pod templates never name it gets a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.build.context import BuildContext
from trainc.build.k8s import manifest
from trainc.build.podgroup import min_member, min_resources, pod_specs, scheduler_names
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import (
    POD_GROUP_KIND,
    VOLCANO_API_VERSION,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_QUEUE_ANNOTATION,
)
from trainc.model.mlpolicy import VolcanoPodGroupPolicySource

_SCHEDULER = "volcano"


@dataclass(frozen=True, slots=True)
class VolcanoPlugin:
    """Trainer's Volcano plugin; a no-op unless ``podGroupPolicy.volcano`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "volcano"

    def enforce_pod_group_policy(self, context: BuildContext) -> None:
        """Annotate every pod with the PodGroup's name; warn when Volcano is not the scheduler."""
        if _policy(context) is None:
            return
        context.pod_annotations[VOLCANO_GROUP_ANNOTATION] = context.job.name
        if _SCHEDULER not in scheduler_names(context):
            context.diagnostics.append(
                context.job.runtime.finding(
                    ("spec", "podGroupPolicy", "volcano"),
                    "compile.volcano-scheduler",
                    "no pod template sets schedulerName: volcano, so the pods go to another "
                    "scheduler, which ignores the Volcano PodGroup and its queue",
                    hint="set schedulerName: volcano in the runtime's pod templates",
                )
            )

    def build(self, context: BuildContext) -> list[JsonObject]:
        """The Volcano PodGroup ``<ns>/<tj>``."""
        policy = _policy(context)
        if policy is None:
            return []
        spec: JsonObject = {"minMember": min_member(context)}
        if resources := min_resources(context):
            spec["minResources"] = resources
        queue = as_object(context.jobset_metadata.get("annotations")).get(VOLCANO_QUEUE_ANNOTATION)
        if isinstance(queue, str):
            spec["queue"] = queue
        priorities = [
            p for pod in pod_specs(context) if isinstance(p := pod.get("priorityClassName"), str)
        ]
        if priorities:
            spec["priorityClassName"] = priorities[-1]
        topology = policy.network_topology
        if topology is not None:
            spec["networkTopology"] = {
                key: value
                for key, value in (
                    ("mode", topology.mode),
                    ("highestTierAllowed", topology.highest_tier_allowed),
                )
                if value is not None
            }
        return [
            manifest(
                VOLCANO_API_VERSION,
                POD_GROUP_KIND,
                context.job.name,
                context.job.namespace,
                spec=spec,
            )
        ]


def _policy(context: BuildContext) -> VolcanoPodGroupPolicySource | None:
    pod_group_policy = context.job.runtime_spec.pod_group_policy
    return pod_group_policy.volcano if pod_group_policy is not None else None
