"""The Volcano PodGroup gathering every pod of the TrainJob (KEP-2437).

Reproduces the object Trainer's Volcano plugin builds (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/volcano/volcano.go;
vector T14 of ``docs/upstream.md``): a ``scheduling.volcano.sh/v1beta1`` PodGroup
``<ns>/<tj>`` sized by
:mod:`trainc.compiler.podgroup`, with ``queue`` from the JobSet annotation
``scheduling.volcano.sh/queue-name`` (unset: Volcano's ``default`` queue),
``priorityClassName`` from the last replicatedJob whose pods set one, and the runtime's
``networkTopology``. No ownerReference: offline there is no TrainJob UID.
"""

from __future__ import annotations

from trainc.compiler.objects import manifest
from trainc.compiler.podgroup import min_resources
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import POD_GROUP_KIND, VOLCANO_API_VERSION, VOLCANO_QUEUE_ANNOTATION
from trainc.resolve.plugins.volcano import policy_of
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.scheduling import pod_specs


def build(job: ResolvedJob) -> list[JsonObject]:
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
