"""The JobSet webhook's coordinator check, for the pod index: the pod must exist.

``spec.coordinator.podIndex`` names a pod of the coordinator's Job (the JobSet webhook,
``docs/upstream.md``, "JobSet"); the Job has as many pods as its resolved ``completions``,
which the TrainJob's ``numNodes`` often sets. So the finding points at ``trainer.numNodes``
when that is
what puts the pod out of range, else at the runtime's ``podIndex``. The rest of the
coordinator check is the runtime's alone (:mod:`trainc.checks.webhooks.coordinator`).
"""

from __future__ import annotations

from trainc.checks.webhooks.coordinator import XOBJ_JOBSET_COORDINATOR
from trainc.diagnostics import Diagnostic, counted
from trainc.model.json import as_list, as_object, get_path
from trainc.resolve.resolved import ResolvedJob

_COORDINATOR = ("spec", "template", "spec", "coordinator")


def check_coordinator_pod(job: ResolvedJob) -> list[Diagnostic]:
    """The coordinator's pod index against the pods its Job has in the resolved JobSet."""
    coordinator = as_object(job.jobset_spec.get("coordinator"))
    name = coordinator.get("replicatedJob")
    pod = _index(coordinator.get("podIndex"))
    jobs = (as_object(rjob) for rjob in as_list(job.jobset_spec.get("replicatedJobs")))
    rjob = next((rjob for rjob in jobs if rjob.get("name") == name), None)
    completions = get_path(rjob, ("template", "spec", "completions")) if rjob else None
    if not isinstance(completions, int) or 0 <= pod < completions:
        return []
    message = (
        f"coordinator pod index {pod} is invalid for replicatedJob {name} job index "
        f"{_index(coordinator.get('jobIndex'))}: each Job of {name!r} has "
        f"{counted(completions, 'pod')}"
    )
    pod_set = next((p for p in job.pod_sets if p.name == name), None)
    if pod_set is not None and pod_set.count_origin.source is job.trainjob:
        return [
            job.trainjob.finding(
                pod_set.count_origin.path,
                XOBJ_JOBSET_COORDINATOR.code,
                f"{message} with this TrainJob's trainer.numNodes",
                hint=f"set trainer.numNodes to at least {pod + 1}",
            )
        ]
    return [
        job.runtime.finding(
            (*_COORDINATOR, "podIndex"),
            XOBJ_JOBSET_COORDINATOR.code,
            message,
            hint=f"use a podIndex below {completions}",
        )
    ]


def _index(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
