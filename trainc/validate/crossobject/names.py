"""JobSet name budgets: the Job and pod names a TrainJob's JobSet generates must stay DNS labels.

The JobSet webhook rejects a JobSet whose longest Job name ``<js>-<rjob>-<replicas-1>`` or,
for Indexed Jobs with completions, longest pod name
``<js>-<rjob>-<replicas-1>-<completions-1>-abcde`` (five characters budgeted for the random
suffix) exceeds 63 characters (``upstream-semantics.md`` §4.4). Trainer always sets
completions and the webhook defaults Indexed, so the pod rule always applies; the JobSet
takes the TrainJob's name, and replicas and completions are those the compiler produces
(:mod:`.counts`). The fix is almost always a shorter TrainJob name, so the finding sits on
``metadata.name`` and says how short. Output validation applies the same budgets to the
JobSet trainc emits, through :func:`generated_names`.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.diagnostics import Diagnostic
from trainc.resolve.objects import DefaultedObject
from trainc.validate.crossobject.counts import JobShape, job_shapes
from trainc.validate.metadata import LABEL_MAX

_POD_SUFFIX = "-abcde"
#: The JobSet webhook's messages for the two budgets (§4.4).
JOB_NAME_TOO_LONG = (
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
)
POD_NAME_TOO_LONG = (
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
)


@dataclass(frozen=True, slots=True)
class GeneratedNames:
    """The longest Job and pod names one replicatedJob of a JobSet gets."""

    rjob: str
    job: str
    pod: str


def generated_names(jobset: str, rjob: str, *, replicas: int, completions: int) -> GeneratedNames:
    """Job ``<js>-<rjob>-<replicas-1>`` and pod ``<job>-<completions-1>-abcde`` (§4.4)."""
    job = f"{jobset}-{rjob}-{replicas - 1}"
    return GeneratedNames(rjob, job, f"{job}-{completions - 1}{_POD_SUFFIX}")


def check_name_budgets(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """One finding on ``metadata.name`` when any generated Job or pod name is too long."""
    shapes = job_shapes(runtime.data, trainjob.data)
    generated = [names for shape in shapes if (names := _generated(trainjob.name, shape))]
    too_long = [names for names in generated if len(names.pod) > LABEL_MAX]
    if not trainjob.name or not too_long:
        return []
    longest = max(too_long, key=lambda names: len(names.pod))
    jobs_too_long = [names for names in too_long if len(names.job) > LABEL_MAX]
    if jobs_too_long:
        worst = max(jobs_too_long, key=lambda names: len(names.job))
        detail = f"Job {worst.job!r} of replicatedJob {worst.rjob!r} has {len(worst.job)}"
        message = JOB_NAME_TOO_LONG
    else:
        detail = f"pod {longest.pod!r} of replicatedJob {longest.rjob!r} has {len(longest.pod)}"
        message = POD_NAME_TOO_LONG
    budget = LABEL_MAX - (len(longest.pod) - len(trainjob.name))
    hint = f"shorten metadata.name to at most {budget} characters for runtime {runtime.name!r}"
    if budget < 1:
        hint = f"shorten replicatedJob {longest.rjob!r} of runtime {runtime.name!r}"
    return [
        trainjob.finding(
            ("metadata", "name"),
            "xobj.jobset-name-budget",
            f"{message}: {detail} characters",
            hint=hint,
        )
    ]


def _generated(jobset: str, shape: JobShape) -> GeneratedNames | None:
    if shape.rjob.name is None:
        return None
    return generated_names(
        jobset, shape.rjob.name, replicas=shape.replicas, completions=shape.completions
    )
