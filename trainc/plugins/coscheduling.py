"""Coscheduling: every pod of the TrainJob joins one scheduler-plugins PodGroup.

Reproduces Trainer's CoScheduling plugin (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/coscheduling/coscheduling.go;
vectors T1, T16 of ``docs/upstream.md``): every pod template gets the label
``scheduling.x-k8s.io/pod-group: <tj>``, and the build adds the
``scheduling.x-k8s.io/v1alpha1`` PodGroup ``<ns>/<tj>``.

Trainer sets no ``schedulerName``, and the default scheduler ignores PodGroups unless
its profile runs the Coscheduling plugin, so a runtime naming no scheduler gets a
warning. The CRD requires ``minMember >= 1``: a TrainJob with ``numNodes: 0`` and no
other pods gets an error instead of an invalid PodGroup.

The PodGroup is sized by :mod:`trainc.plugins.shared.podgroup`, which Volcano shares, with
the runtime's ``scheduleTimeoutSeconds`` (default 60). Like the JobSet, it carries no
ownerReference: offline there is no TrainJob UID.
"""

from __future__ import annotations

from typing import Final

from trainc.diagnostics import Rule, Severity
from trainc.model.json import FieldPath, JsonObject
from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    COSCHEDULING_POD_GROUP_LABEL,
    POD_GROUP_KIND,
)
from trainc.model.mlpolicy import CoschedulingPodGroupPolicySource
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.plugins.shared.objects import manifest
from trainc.plugins.shared.podgroup import min_resources
from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.scheduling import scheduler_names

COMPILE_COSCHEDULING_SCHEDULER = Rule(
    "compile.coscheduling-scheduler",
    Severity.WARNING,
    "no pod template names a scheduler, and the default one ignores Coscheduling PodGroups",
)

COMPILE_PODGROUP_EMPTY = Rule(
    "compile.podgroup-empty",
    Severity.ERROR,
    "the Coscheduling PodGroup would have no members",
)


_POLICY: Final[FieldPath] = ("spec", "podGroupPolicy", "coscheduling")


@dataclass(frozen=True, slots=True)
class CoschedulingPlugin:
    """Trainer's Coscheduling plugin; a no-op unless ``podGroupPolicy.coscheduling`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "coscheduling"

    def enforce_pod_group_policy(self, context: Resolution) -> None:
        """Label every pod with the PodGroup's name; report a gang without members or scheduler."""
        if policy_of(context.job.runtime_spec) is None:
            return
        origin = context.derived(
            "coscheduling", "pods join the PodGroup", context.runtime_at(*_POLICY)
        )
        context.pod_labels[COSCHEDULING_POD_GROUP_LABEL] = (context.job.name, origin)
        if sum(pod_set.count for pod_set in context.pod_sets) < 1:
            context.findings.append(
                context.job.trainjob.finding(
                    ("spec", "trainer", "numNodes"),
                    COMPILE_PODGROUP_EMPTY.code,
                    "the TrainJob has no pods, but a Coscheduling PodGroup needs minMember >= 1",
                    hint="set trainer.numNodes to 1 or more",
                )
            )
        if not scheduler_names(context.jobset_spec):
            context.findings.append(
                context.job.runtime.finding(
                    _POLICY,
                    COMPILE_COSCHEDULING_SCHEDULER.code,
                    "no pod template sets schedulerName, so the pods go to the default "
                    "scheduler, which ignores the PodGroup unless its profile runs the "
                    "Coscheduling plugin: the pods would start one by one, not as a gang",
                    hint="set schedulerName in the runtime's pod templates to a scheduler "
                    "running the Coscheduling plugin (the scheduler-plugins chart installs "
                    "scheduler-plugins-scheduler), unless your default profile enables it",
                )
            )

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The PodGroup ``<ns>/<tj>``; none unless the runtime asks for coscheduling."""
        policy = policy_of(job.runtime_spec)
        if policy is None:
            return []
        timeout = policy.schedule_timeout_seconds
        spec: JsonObject = {
            "minMember": job.pod_count(),
            "scheduleTimeoutSeconds": timeout if timeout is not None else _DEFAULT_TIMEOUT,
        }
        if resources := min_resources(job):
            spec["minResources"] = resources
        return [
            manifest(COSCHEDULING_API_VERSION, POD_GROUP_KIND, job.name, job.namespace, spec=spec)
        ]


def policy_of(runtime_spec: TrainingRuntimeSpec) -> CoschedulingPodGroupPolicySource | None:
    """The runtime's ``podGroupPolicy.coscheduling``, None when it sets none."""
    pod_group_policy = runtime_spec.pod_group_policy
    return pod_group_policy.coscheduling if pod_group_policy is not None else None


_DEFAULT_TIMEOUT: Final = 60
