"""What the gang-scheduling plugins read of a JobSet's pods: their specs and schedulers."""

from __future__ import annotations

from collections.abc import Iterator

from trainc.model.json import JsonObject, as_list, as_object, get_path


def pod_specs(jobset_spec: JsonObject) -> Iterator[JsonObject]:
    """The pod spec of every replicatedJob, read-only, in order."""
    for job in as_list(jobset_spec.get("replicatedJobs")):
        yield as_object(get_path(job, ("template", "spec", "template", "spec")))


def scheduler_names(jobset_spec: JsonObject) -> set[str]:
    """The ``schedulerName`` values the pod templates set (empty when none sets one)."""
    return {
        name for pod in pod_specs(jobset_spec) if isinstance(name := pod.get("schedulerName"), str)
    }
