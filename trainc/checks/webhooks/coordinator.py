"""The JobSet webhook's coordinator check, for what the runtime alone decides.

``spec.coordinator`` names a replicatedJob, a Job index and a pod index whose address every
pod receives (``validateCoordinator`` in the JobSet webhook, ``docs/upstream.md``, "JobSet").
The replicatedJob, the Job index and the
completion mode are fixed by the runtime; the pod index is judged against the pod count a
TrainJob resolves to (:mod:`trainc.checks.created.coordinator`).
"""

from __future__ import annotations

from trainc.checks.shared.template import (
    Node,
    child,
    int_value,
    jobset_spec,
    replicated_jobs,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity, counted, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.plugins.jobset import replicas_of

XOBJ_JOBSET_COORDINATOR = Rule(
    "xobj.jobset-coordinator",
    Severity.ERROR,
    "the coordinator names an unknown job or an index out of range",
)


def check_coordinator(runtime: DefaultedObject) -> list[Diagnostic]:
    """Coordinator findings the runtime alone decides: job exists, Job index, Indexed mode."""
    coordinator = child(jobset_spec(runtime.data), "coordinator")
    name = str_value(coordinator.get("replicatedJob"))
    if name is None:
        return []
    rjobs = replicated_jobs(runtime.data)
    rjob = next((rjob for rjob in rjobs if rjob.name == name), None)
    if rjob is None:
        names = [rjob_name for rjob in rjobs if (rjob_name := rjob.name)]
        return [
            runtime.finding(
                coordinator.at("replicatedJob"),
                XOBJ_JOBSET_COORDINATOR.code,
                f"coordinator replicatedJob {name} does not exist",
                hint=did_you_mean(name, names) or "name one of the template's replicatedJobs",
            )
        ]
    return _check_job_index(runtime, coordinator, rjob) + _check_mode(runtime, rjob)


def _check_job_index(runtime: DefaultedObject, coordinator: Node, rjob: Node) -> list[Diagnostic]:
    job = int_value(coordinator.get("jobIndex")) or 0
    replicas = replicas_of(rjob.data)
    if 0 <= job < replicas:
        return []
    return [
        runtime.finding(
            coordinator.at("jobIndex"),
            XOBJ_JOBSET_COORDINATOR.code,
            f"coordinator job index {job} is invalid for replicatedJob {rjob.name}: it "
            f"has {counted(replicas, 'Job')}",
            hint=f"use a jobIndex below {replicas}",
        )
    ]


def _check_mode(runtime: DefaultedObject, rjob: Node) -> list[Diagnostic]:
    mode = rjob.get("template", "spec", "completionMode")
    if mode is None or mode == "Indexed":  # the JobSet webhook defaults Indexed
        return []
    return [
        runtime.finding(
            rjob.at("template", "spec", "completionMode"),
            XOBJ_JOBSET_COORDINATOR.code,
            f"job for coordinator pod must be indexed completion mode: replicatedJob "
            f"{rjob.name!r} sets completionMode {mode!r}",
            hint="set completionMode: Indexed, or delete it (Indexed is the default)",
        )
    ]
