"""The scheduler-plugins PodGroup gathering every pod of the TrainJob.

Reproduces the object Trainer's CoScheduling plugin builds
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/coscheduling/coscheduling.go;
vectors T1, T16 of ``docs/upstream.md``): a ``scheduling.x-k8s.io/v1alpha1`` PodGroup
``<ns>/<tj>`` sized by
:mod:`trainc.compiler.podgroup`, with the runtime's ``scheduleTimeoutSeconds`` (default
60). Like the JobSet, it carries no ownerReference: offline there is no TrainJob UID.
Resolution marked the pods and checked the gang has members
(:mod:`trainc.resolve.plugins.coscheduling`).
"""

from __future__ import annotations

from typing import Final

from trainc.compiler.objects import manifest
from trainc.compiler.podgroup import min_resources
from trainc.model.json import JsonObject
from trainc.model.labels import COSCHEDULING_API_VERSION, POD_GROUP_KIND
from trainc.resolve.plugins.coscheduling import policy_of
from trainc.resolve.resolved import ResolvedJob

_DEFAULT_TIMEOUT: Final = 60


def build(job: ResolvedJob) -> list[JsonObject]:
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
    return [manifest(COSCHEDULING_API_VERSION, POD_GROUP_KIND, job.name, job.namespace, spec=spec)]
