"""Coscheduling: a scheduler-plugins PodGroup gathering every pod of the TrainJob.

Reproduces Trainer's CoScheduling plugin (``upstream-semantics.md`` §2.11; vectors T1,
T16): every pod template gets the label ``scheduling.x-k8s.io/pod-group: <tj>``, and the
build emits a ``scheduling.x-k8s.io/v1alpha1`` PodGroup ``<ns>/<tj>`` sized by
:mod:`trainc.build.podgroup`, with the runtime's ``scheduleTimeoutSeconds`` (default
60). Like the JobSet, it carries no ownerReference: offline there is no TrainJob UID.

Trainer sets no ``schedulerName``, and the default scheduler ignores PodGroups unless
its profile runs the Coscheduling plugin, so a runtime naming no scheduler gets a
warning. The CRD requires ``minMember >= 1``: a TrainJob with ``numNodes: 0`` and no
other pods gets an error instead of an invalid PodGroup.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.build.context import BuildContext
from trainc.build.k8s import manifest
from trainc.build.podgroup import min_member, min_resources, scheduler_names
from trainc.model.json import FieldPath, JsonObject
from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    COSCHEDULING_POD_GROUP_LABEL,
    POD_GROUP_KIND,
)
from trainc.model.mlpolicy import CoschedulingPodGroupPolicySource

_DEFAULT_TIMEOUT = 60
_POLICY: FieldPath = ("spec", "podGroupPolicy", "coscheduling")


@dataclass(frozen=True, slots=True)
class CoschedulingPlugin:
    """Trainer's Coscheduling plugin; a no-op unless ``podGroupPolicy.coscheduling`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "coscheduling"

    def enforce_pod_group_policy(self, context: BuildContext) -> None:
        """Label every pod with the PodGroup's name; warn when no scheduler is named."""
        if _policy(context) is None:
            return
        context.pod_labels[COSCHEDULING_POD_GROUP_LABEL] = context.job.name
        if not scheduler_names(context):
            context.diagnostics.append(
                context.job.runtime.finding(
                    _POLICY,
                    "compile.coscheduling-scheduler",
                    "no pod template sets schedulerName, so the pods go to the default "
                    "scheduler, which ignores the PodGroup unless its profile runs the "
                    "Coscheduling plugin: the pods would start one by one, not as a gang",
                    hint="set schedulerName in the runtime's pod templates to a scheduler "
                    "running the Coscheduling plugin (the scheduler-plugins chart installs "
                    "scheduler-plugins-scheduler), unless your default profile enables it",
                )
            )

    def build(self, context: BuildContext) -> list[JsonObject]:
        """The PodGroup ``<ns>/<tj>`` (none, with an error, when it would have no members)."""
        policy = _policy(context)
        if policy is None:
            return []
        members = min_member(context)
        if members < 1:
            context.diagnostics.append(
                context.job.trainjob.finding(
                    ("spec", "trainer", "numNodes"),
                    "compile.podgroup-empty",
                    "the TrainJob has no pods, but a Coscheduling PodGroup needs minMember >= 1",
                    hint="set trainer.numNodes to 1 or more",
                )
            )
            return []
        timeout = policy.schedule_timeout_seconds
        spec: JsonObject = {
            "minMember": members,
            "scheduleTimeoutSeconds": timeout if timeout is not None else _DEFAULT_TIMEOUT,
        }
        if resources := min_resources(context):
            spec["minResources"] = resources
        return [
            manifest(
                COSCHEDULING_API_VERSION,
                POD_GROUP_KIND,
                context.job.name,
                context.job.namespace,
                spec=spec,
            )
        ]


def _policy(context: BuildContext) -> CoschedulingPodGroupPolicySource | None:
    pod_group_policy = context.job.runtime_spec.pod_group_policy
    return pod_group_policy.coscheduling if pod_group_policy is not None else None
