"""The JobSet ``<ns>/<tj>``: the resolved spec and metadata, as the API server stores them.

Resolution settled everything (the TrainJob's overrides, pod counts, framework env,
webhook defaults, trainc's labels and annotations; :mod:`trainc.resolve.plugins.jobset`),
so the JobSet is that state written out. The spec is a copy, so the manifest is
independent of the resolved job.
"""

from __future__ import annotations

from trainc.compiler.objects import manifest
from trainc.model.json import JsonObject, as_object, copy_json
from trainc.model.labels import JOBSET_API_VERSION, JOBSET_KIND
from trainc.resolve.resolved import ResolvedJob


def build(job: ResolvedJob) -> list[JsonObject]:
    """The JobSet of ``job``."""
    jobset = manifest(
        JOBSET_API_VERSION, JOBSET_KIND, job.name, job.namespace, spec=copy_json(job.jobset_spec)
    )
    metadata = as_object(jobset["metadata"])
    for key in ("labels", "annotations"):
        values = as_object(job.jobset_metadata.get(key))
        if values:
            metadata[key] = copy_json(values)
    return [jobset]
