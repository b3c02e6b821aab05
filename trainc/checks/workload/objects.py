"""The API server's validation of one Job, composed from the rules of this package.

The order is ``ValidateJob``'s: the Job's own spec (:mod:`.job`), then its pod template
(:mod:`.pod` for the template's metadata and pod-level fields, :mod:`.volumes`,
:mod:`.containers`, :mod:`.resources` per container and for the pod, :mod:`.scheduling`).
The Job's ObjectMeta is the caller's: most of it is already checked where it is written.
"""

from __future__ import annotations

from trainc.checks.workload.claims import pod_claim_names
from trainc.checks.workload.containers import check_containers
from trainc.checks.workload.fielderrors import FieldError
from trainc.checks.workload.job import check_job_spec
from trainc.checks.workload.pod import check_pod_fields
from trainc.checks.workload.resources import check_container_resources, check_pod_resources
from trainc.checks.workload.scheduling import check_scheduling
from trainc.checks.workload.version import KubeVersion
from trainc.checks.workload.volumes import check_volumes
from trainc.model.json import FieldPath, JsonObject, as_list, as_object, get_path

_TEMPLATE: FieldPath = ("spec", "template")
_POD_SPEC: FieldPath = ("spec", "template", "spec")


def check_job(job: JsonObject, version: KubeVersion) -> list[FieldError]:
    """Everything the API server refuses in ``job`` (a batch/v1 Job) on create."""
    errors = check_job_spec(job, version)
    template = as_object(get_path(job, _TEMPLATE))
    errors += check_pod_fields(template, _TEMPLATE, version)
    errors += check_pod_spec(as_object(template.get("spec")), _POD_SPEC, version)
    return errors


def check_pod_spec(pod: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """A pod spec's volumes, containers, resources and scheduling (not its own fields)."""
    errors, volumes = check_volumes(pod, path, version)
    errors += check_containers(pod, path, version, volumes=volumes)
    claims = pod_claim_names(pod)
    for key in ("initContainers", "containers"):
        for index, container in enumerate(as_list(pod.get(key))):
            resources = as_object(container).get("resources")
            at = (*path, key, index, "resources")
            errors += check_container_resources(resources, at, version, pod_claims=claims)
    errors += check_pod_resources(pod, path, version)
    errors += check_scheduling(pod, path, version)
    return errors
