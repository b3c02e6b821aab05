"""Volcano: every pod of the TrainJob joins one Volcano PodGroup (KEP-2437).

Reproduces Trainer's Volcano plugin
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/volcano/volcano.go;
vector T14 of ``docs/upstream.md``): every pod template gets the annotation
``scheduling.k8s.io/group-name: <tj>``; the compiler
emits the ``scheduling.volcano.sh/v1beta1`` PodGroup ``<ns>/<tj>``
(:mod:`trainc.compiler.plugins.volcano`).

Volcano schedules only pods whose ``schedulerName`` is ``volcano``, which Trainer does
not set, so a runtime whose pod templates never name it gets a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from trainc.diagnostics import Rule, Severity
from trainc.model.labels import VOLCANO_GROUP_ANNOTATION
from trainc.model.mlpolicy import VolcanoPodGroupPolicySource
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.resolve.context import Resolution
from trainc.resolve.scheduling import scheduler_names

COMPILE_VOLCANO_SCHEDULER = Rule(
    "compile.volcano-scheduler",
    Severity.WARNING,
    "no pod template sets schedulerName: volcano",
)


SCHEDULER: Final = "volcano"
_POLICY: Final = ("spec", "podGroupPolicy", "volcano")


@dataclass(frozen=True, slots=True)
class VolcanoPlugin:
    """Trainer's Volcano plugin; a no-op unless ``podGroupPolicy.volcano`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "volcano"

    def enforce_pod_group_policy(self, context: Resolution) -> None:
        """Annotate every pod with the PodGroup's name; warn when Volcano is not the scheduler."""
        if policy_of(context.job.runtime_spec) is None:
            return
        origin = context.derived("volcano", "pods join the PodGroup", context.runtime_at(*_POLICY))
        context.pod_annotations[VOLCANO_GROUP_ANNOTATION] = (context.job.name, origin)
        if SCHEDULER not in scheduler_names(context.jobset_spec):
            context.findings.append(
                context.job.runtime.finding(
                    _POLICY,
                    COMPILE_VOLCANO_SCHEDULER.code,
                    "no pod template sets schedulerName: volcano, so the pods go to another "
                    "scheduler, which ignores the Volcano PodGroup and its queue",
                    hint="set schedulerName: volcano in the runtime's pod templates",
                )
            )


def policy_of(runtime_spec: TrainingRuntimeSpec) -> VolcanoPodGroupPolicySource | None:
    """The runtime's ``podGroupPolicy.volcano``, None when it sets none."""
    pod_group_policy = runtime_spec.pod_group_policy
    return pod_group_policy.volcano if pod_group_policy is not None else None
