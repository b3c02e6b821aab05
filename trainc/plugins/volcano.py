"""Volcano: every pod of the TrainJob joins one Volcano PodGroup (KEP-2437).

Reproduces Trainer's Volcano plugin
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/volcano/volcano.go;
vector T14 of ``docs/upstream.md``): every pod template gets the annotation
``scheduling.k8s.io/group-name: <tj>``, and the build adds the
``scheduling.volcano.sh/v1beta1`` PodGroup ``<ns>/<tj>``.

Volcano schedules only pods whose ``schedulerName`` is ``volcano``, which Trainer does
not set, so a runtime whose pod templates never name it gets a warning.

Validate: a queue annotation, when present, names a queue. With ``podGroupPolicy.volcano``
the PodGroup's queue comes from the JobSet-level annotation
``scheduling.volcano.sh/queue-name``
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/volcano/volcano.go):
the runtime's ``template.metadata`` overlaid by each runtime patch in list order. An empty
value is rejected, and so is one the PodGroup's ``spec.queue`` would refuse (not a DNS-1123
subdomain); the finding points at whichever document supplied the value that wins.

Build: the PodGroup, sized by :mod:`trainc.plugins.shared.podgroup`, with ``queue`` from
the JobSet annotation ``scheduling.volcano.sh/queue-name`` (unset: Volcano's ``default``
queue), ``priorityClassName`` from the last replicatedJob whose pods set one, and the
runtime's ``networkTopology``. No ownerReference: offline there is no TrainJob UID."""

from __future__ import annotations

from typing import Final

from trainc.checks.shared.template import runtime_patches
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject, as_object, get_path
from trainc.model.labels import (
    POD_GROUP_KIND,
    VOLCANO_API_VERSION,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_QUEUE_ANNOTATION,
)
from trainc.model.mlpolicy import VolcanoPodGroupPolicySource
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.plugins.shared.objects import manifest
from trainc.plugins.shared.podgroup import min_resources
from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.scheduling import pod_specs, scheduler_names
from trainc.schema.metadata import dns1123_subdomain_errors

XOBJ_VOLCANO_QUEUE_EMPTY = Rule(
    "xobj.volcano-queue-empty",
    Severity.ERROR,
    "the Volcano queue annotation is empty",
)

XOBJ_VOLCANO_QUEUE_INVALID = Rule(
    "xobj.volcano-queue-invalid",
    Severity.ERROR,
    "the Volcano queue annotation is not a valid queue name (a DNS-1123 subdomain)",
)

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

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """The TrainJob's queue is one Volcano can admit it to."""
        return check_volcano_queue(trainjob, runtime)

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

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The Volcano PodGroup ``<ns>/<tj>``; none unless the runtime asks for Volcano."""
        policy = policy_of(job.runtime_spec)
        if policy is None:
            return []
        spec: JsonObject = {"minMember": job.pod_count()}
        if resources := min_resources(job):
            spec["minResources"] = resources
        queue = as_object(job.jobset_metadata.get("annotations")).get(VOLCANO_QUEUE_ANNOTATION)
        if isinstance(queue, str):
            spec["queue"] = queue
        priorities = [
            p
            for pod in pod_specs(job.jobset_spec)
            if isinstance(p := pod.get("priorityClassName"), str)
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
        return [manifest(VOLCANO_API_VERSION, POD_GROUP_KIND, job.name, job.namespace, spec=spec)]


def policy_of(runtime_spec: TrainingRuntimeSpec) -> VolcanoPodGroupPolicySource | None:
    """The runtime's ``podGroupPolicy.volcano``, None when it sets none."""
    pod_group_policy = runtime_spec.pod_group_policy
    return pod_group_policy.volcano if pod_group_policy is not None else None


_ANNOTATION: FieldPath = ("template", "metadata", "annotations", VOLCANO_QUEUE_ANNOTATION)


def check_volcano_queue(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """An empty or malformed effective queue annotation on a Volcano runtime's JobSet."""
    if not isinstance(get_path(runtime.data, ("spec", "podGroupPolicy", "volcano")), dict):
        return []
    source, path = runtime, ("spec", *_ANNOTATION)
    for patch in runtime_patches(trainjob.data):
        if get_path(patch.data, ("trainingRuntimeSpec", *_ANNOTATION)) is not None:
            source, path = trainjob, patch.at("trainingRuntimeSpec", *_ANNOTATION)
    value = get_path(source.data, path)
    if value == "":
        return [
            source.finding(
                path,
                XOBJ_VOLCANO_QUEUE_EMPTY.code,
                f"Volcano queue name must not be empty: annotation {VOLCANO_QUEUE_ANNOTATION} "
                "is set to an empty string",
                hint="name a Volcano queue, or delete the annotation to use the queue 'default'",
            )
        ]
    errors = dns1123_subdomain_errors(value) if isinstance(value, str) else []
    if not errors:
        return []
    # The PodGroup's spec.queue must be a DNS-1123 subdomain: the API server would refuse
    # the PodGroup the Trainer controller builds from this annotation.
    return [
        source.finding(
            path,
            XOBJ_VOLCANO_QUEUE_INVALID.code,
            f"Volcano queue name {value!r} is not valid: {'; '.join(errors)}",
            hint="Volcano queues are named like Kubernetes objects, e.g. 'research-gpu'",
        )
    ]
