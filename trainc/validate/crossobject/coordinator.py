"""The JobSet webhook's coordinator check: the named pod must exist in the compiled JobSet.

``spec.coordinator`` names a replicatedJob, a Job index and a pod index whose address every
pod receives (``upstream-semantics.md`` §4.1, §4.4). The replicatedJob, the Job index and the
completion mode are fixed by the runtime; the pod index is judged against the pod count the
TrainJob compiles to (§2.6), so that part runs once per TrainJob and points at
``trainer.numNodes`` when the TrainJob's node count is what makes it out of range.
"""

from __future__ import annotations

from trainc.diagnostics import Diagnostic, did_you_mean
from trainc.resolve.objects import DefaultedObject
from trainc.validate.crossobject.counts import JobShape, job_shapes
from trainc.validate.crossobject.template import Node, child, int_value, jobset_spec, str_value


def check_coordinator(runtime: DefaultedObject) -> list[Diagnostic]:
    """Coordinator findings the runtime alone decides: job exists, Job index, Indexed mode."""
    coordinator = child(jobset_spec(runtime.data), "coordinator")
    name = str_value(coordinator.get("replicatedJob"))
    if name is None:
        return []
    shapes = job_shapes(runtime.data)
    shape = next((shape for shape in shapes if shape.rjob.name == name), None)
    if shape is None:
        names = [rjob_name for s in shapes if (rjob_name := s.rjob.name)]
        return [
            runtime.finding(
                coordinator.at("replicatedJob"),
                "xobj.jobset-coordinator",
                f"coordinator replicatedJob {name} does not exist",
                hint=did_you_mean(name, names) or "name one of the template's replicatedJobs",
            )
        ]
    return _check_job_index(runtime, coordinator, shape) + _check_mode(runtime, shape.rjob)


def check_coordinator_pod(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """The coordinator's pod index against the pods the TrainJob's JobSet has."""
    coordinator = child(jobset_spec(runtime.data), "coordinator")
    name = str_value(coordinator.get("replicatedJob"))
    pod = int_value(coordinator.get("podIndex")) or 0
    job = int_value(coordinator.get("jobIndex")) or 0
    shape = next((s for s in job_shapes(runtime.data, trainjob.data) if s.rjob.name == name), None)
    if shape is None or 0 <= pod < shape.completions:
        return []
    message = (
        f"coordinator pod index {pod} is invalid for replicatedJob {name} job index {job}: "
        f"each Job of {name!r} has {shape.completions} pods"
    )
    if shape.from_trainjob:
        return [
            trainjob.finding(
                ("spec", "trainer", "numNodes"),
                "xobj.jobset-coordinator",
                f"{message} with this TrainJob's trainer.numNodes",
                hint=f"set trainer.numNodes to at least {pod + 1}",
            )
        ]
    return [
        runtime.finding(
            coordinator.at("podIndex"),
            "xobj.jobset-coordinator",
            message,
            hint=f"use a podIndex below {shape.completions}",
        )
    ]


def _check_job_index(
    runtime: DefaultedObject, coordinator: Node, shape: JobShape
) -> list[Diagnostic]:
    job = int_value(coordinator.get("jobIndex")) or 0
    if 0 <= job < shape.replicas:
        return []
    return [
        runtime.finding(
            coordinator.at("jobIndex"),
            "xobj.jobset-coordinator",
            f"coordinator job index {job} is invalid for replicatedJob {shape.rjob.name}: it "
            f"has {shape.replicas} Jobs",
            hint=f"use a jobIndex below {shape.replicas}",
        )
    ]


def _check_mode(runtime: DefaultedObject, rjob: Node) -> list[Diagnostic]:
    mode = rjob.get("template", "spec", "completionMode")
    if mode is None or mode == "Indexed":  # the JobSet webhook defaults Indexed (§4.3)
        return []
    return [
        runtime.finding(
            rjob.at("template", "spec", "completionMode"),
            "xobj.jobset-coordinator",
            f"job for coordinator pod must be indexed completion mode: replicatedJob "
            f"{rjob.name!r} sets completionMode {mode!r}",
            hint="set completionMode: Indexed, or delete it (Indexed is the default)",
        )
    ]
