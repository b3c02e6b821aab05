"""JobSet name budgets: the Job and pod names a TrainJob's JobSet generates must stay DNS labels.

The JobSet webhook rejects a JobSet whose longest Job name ``<js>-<rjob>-<replicas-1>`` or,
for Indexed Jobs with completions, longest pod name
``<js>-<rjob>-<replicas-1>-<completions-1>-abcde`` (five characters budgeted for the random
suffix) exceeds 63 characters (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go).
The resolved JobSet has
its replicas, completions and completion mode final, so the budget is judged on it. The
fix is almost always a shorter TrainJob name, so the finding sits on ``metadata.name``
and says how short. The output check applies the same budgets (:func:`name_budget_problems`)
to the JobSet trainc emits.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from trainc.diagnostics import Diagnostic, Rule, Severity, counted
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.records import dataclass
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.metadata import LABEL_MAX, dns1035_label_errors

XOBJ_JOBSET_NAME_BUDGET = Rule(
    "xobj.jobset-name-budget",
    Severity.ERROR,
    "generated Job or Pod names would exceed 63 characters",
)


_POD_SUFFIX: Final = "-abcde"
#: The JobSet webhook's messages for the two budgets.
JOB_NAME_TOO_LONG: Final = (
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
)
POD_NAME_TOO_LONG: Final = (
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
)


@dataclass(frozen=True, slots=True)
class GeneratedNames:
    """The longest Job and pod names one replicatedJob of a JobSet gets.

    ``pod`` is None when the webhook does not budget pod names: a Job that is not
    Indexed or sets no completions.
    """

    index: int
    rjob: str
    job: str
    pod: str | None


def generated_names(jobset: str, spec: JsonObject) -> Iterator[GeneratedNames]:
    """Job ``<js>-<rjob>-<replicas-1>`` and pod ``<job>-<completions-1>-abcde``, per rjob.

    ``spec`` is a JobSet spec as stored: replicas and completion mode defaulted.
    """
    for index, rjob in enumerate(as_list(spec.get("replicatedJobs"))):
        job_spec = as_object(get_path(rjob, ("template", "spec")))
        replicas = get_path(rjob, ("replicas",))
        completions = job_spec.get("completions")
        job = f"{jobset}-{get_path(rjob, ('name',))}-{_int(replicas, 1) - 1}"
        indexed = job_spec.get("completionMode", "Indexed") == "Indexed"
        pod = None
        if indexed and isinstance(completions, int):
            pod = f"{job}-{completions - 1}{_POD_SUFFIX}"
        yield GeneratedNames(index, str(get_path(rjob, ("name",))), job, pod)


def name_budget_problems(jobset: str, spec: JsonObject) -> Iterator[tuple[GeneratedNames, str]]:
    """Each generated name that is no DNS-1035 label, with the webhook's words for it."""
    for names in generated_names(jobset, spec):
        for name, too_long in ((names.job, JOB_NAME_TOO_LONG), (names.pod, POD_NAME_TOO_LONG)):
            if name is None:
                continue
            if len(name) > LABEL_MAX:
                yield names, f"{too_long}: {name!r} has {len(name)} characters"
            elif errors := dns1035_label_errors(name):
                yield names, f"generated name {name!r} is not a DNS-1035 label: {'; '.join(errors)}"


def check_name_budgets(job: ResolvedJob) -> list[Diagnostic]:
    """One finding on the TrainJob's ``metadata.name`` when a generated name is too long."""
    generated = list(generated_names(job.name, job.jobset_spec))
    too_long = [names for names in generated if len(names.pod or names.job) > LABEL_MAX]
    if not job.name or not too_long:
        return []
    longest = max(too_long, key=lambda names: len(names.pod or names.job))
    jobs_too_long = [names for names in too_long if len(names.job) > LABEL_MAX]
    if jobs_too_long:
        worst = max(jobs_too_long, key=lambda names: len(names.job))
        detail = f"Job {worst.job!r} of replicatedJob {worst.rjob!r} has {len(worst.job)}"
        message = JOB_NAME_TOO_LONG
    else:
        pod = longest.pod or longest.job
        detail = f"pod {pod!r} of replicatedJob {longest.rjob!r} has {len(pod)}"
        message = POD_NAME_TOO_LONG
    budget = LABEL_MAX - (len(longest.pod or longest.job) - len(job.name))
    hint = (
        f"shorten metadata.name to at most {counted(budget, 'character')} for runtime "
        f"{job.runtime.name!r}"
    )
    if budget < 1:
        hint = f"shorten replicatedJob {longest.rjob!r} of runtime {job.runtime.name!r}"
    return [
        job.trainjob.finding(
            ("metadata", "name"),
            XOBJ_JOBSET_NAME_BUDGET.code,
            f"{message}: {detail} characters",
            hint=hint,
        )
    ]


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
