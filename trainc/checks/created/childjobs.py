"""The API server's verdict on the Jobs the JobSet controller creates, at the lines behind them.

The JobSet passes its CRD and is stored; the JobSet controller then creates one Job per
replicatedJob (:mod:`trainc.resolve.childjobs` builds them as it does), and the API server
refuses a Job that breaks its rules (:mod:`trainc.checks.workload`): the training never
starts, and nothing in git says why. Each violation is reported at the input line the
offending value came from (its provenance), in the API server's words, with the path in
the Job. The offending value is the one the error names, or the one that causes it when
the API server names another path (``FieldError.cause``): a GPU request is refused at
the ``limits`` nobody wrote, and the line to change is the request's, often a TrainJob's
``resourcesPerNode``.

Two kinds of violation are left to the layers that already report them: a replicatedJob
without containers (``compile.no-containers``: the JobSet itself is refused first), and
labels and annotations written in an input template (the ObjectMeta rules, ``meta.*``,
judge them where they are written); labels the controller adds are judged here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from trainc.checks.shared.findings import created_from
from trainc.checks.shared.locate import locate
from trainc.checks.workload.fielderrors import FieldError, Key, invalid
from trainc.checks.workload.objects import check_job
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, get_path
from trainc.resolve.childjobs import ChildJob, child_jobs
from trainc.resolve.provenance import Derived, Origin, Written
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.metadata import label_value_errors

JOB_METADATA = Rule(
    "job.metadata",
    Severity.ERROR,
    "a label or annotation the JobSet controller adds is invalid",
    doc=RuleDoc(
        what=(
            "a label or annotation the JobSet controller adds that is invalid, such as the "
            "coordinator's address (`<jobset>-<rjob>-<job>-<pod>.<subdomain>`) when longer "
            "than 63 characters"
        ),
        source="`ValidateObjectMeta` on the Job",
        versions="all",
    ),
)


_CONTROLLER: Final = "the JobSet controller"
_METADATA: Final = (("metadata",), ("spec", "template", "metadata"))
_CONTAINERS: Final = ("spec", "template", "spec", "containers")


def resolved_child_jobs(job: ResolvedJob) -> tuple[ChildJob, ...]:
    """The Jobs the JobSet controller creates from ``job``'s JobSet, one per replicatedJob.

    Built once per TrainJob by the job pass and handed to every check that judges them
    (these checks, and the cluster's admission), since constructing them walks the whole
    JobSet.
    """
    return tuple(child_jobs(job.name, job.namespace, job.jobset_metadata, job.jobset_spec))


def check_child_jobs(
    job: ResolvedJob, version: KubeVersion, children: Sequence[ChildJob]
) -> list[Diagnostic]:
    """Every rule the API server applies to the resolved JobSet's Jobs (``children``, as
    :func:`resolved_child_jobs` builds them), located.

    One line (a ``resourcesPerNode``, a runtime's container written once) often reaches
    the Jobs of several replicatedJobs alike, such as an MPI runtime's launcher and nodes:
    the same refusal from the same line is one finding that names them all, so fixing the
    line clears it, rather than one finding per Job.
    """
    refused: dict[tuple[str, str, str | None, Origin], list[str]] = {}
    for child in children:
        for error in child_job_errors(child, version):
            if _input_checked(error.path, child_origin(job, child, error.path)):
                continue
            origin = child_origin(job, child, error.culprit)
            cause = (error.code, error.message(), error.hint, origin)
            refused.setdefault(cause, []).append(child.replicated_job)
    return [
        locate(origin, code, f"the API server would refuse {_jobs_of(names)}: {text}", hint=hint)
        for (code, text, hint, origin), names in refused.items()
    ]


def _jobs_of(replicated_jobs: list[str]) -> str:
    """The objects refused, and who creates them: ``the Job of replicatedJob 'node',
    created by the JobSet controller``, or ``the Jobs of replicatedJobs 'a' and 'b', ...``.
    """
    return created_from(("Job", "Jobs"), replicated_jobs, _CONTROLLER)


def child_job_errors(child: ChildJob, version: KubeVersion) -> list[FieldError]:
    """What the API server refuses in one child Job (none for a Job without containers,
    whose JobSet is refused first); compile's output check runs the same."""
    if get_path(child.job, _CONTAINERS) is None:
        return []
    return [*_check_added_metadata(child), *check_job(child.job, version)]


def child_origin(job: ResolvedJob, child: ChildJob, path: FieldPath) -> Origin:
    """Where the value at ``path`` of a child Job came from."""
    template_path = child.template_path(path)
    if template_path is not None:
        return job.origin(template_path)
    rule = child.added_by(path) or "the Job the JobSet controller creates"
    return Derived(_CONTROLLER, rule, _cause(job, child, path))


def _cause(job: ResolvedJob, child: ChildJob, path: FieldPath) -> Written:
    """The input line behind a value the JobSet controller added."""
    name = Written(job.trainjob, ("metadata", "name"))
    last = path[-1] if path else ""
    if last == "subdomain":
        where: FieldPath = ("network", "subdomain")
    elif isinstance(last, str) and last.endswith("/coordinator"):
        where = ("coordinator",)
    elif last == "suspend":
        return Written(job.trainjob, ("spec", "suspend"))
    elif isinstance(last, str) and last.endswith(("replicatedjob-name", "replicatedjob-replicas")):
        where = ("replicatedJobs", child.index, "name")
    else:
        return name
    origin = job.origin(where)
    return origin.cause if isinstance(origin, Derived) else origin


def _check_added_metadata(child: ChildJob) -> list[FieldError]:
    """The values of the labels the JobSet controller adds to the Job (their keys are its
    own, and annotation values are free): a coordinator's address can outgrow a label.

    Its pod template gets the same ones, which the pod template's own rules judge.
    """
    return [
        invalid(("metadata", "labels", Key(key)), JOB_METADATA.code, value, error)
        for key, value in child.labels.items()
        for error in label_value_errors(value)
    ]


def _input_checked(path: FieldPath, origin: Origin) -> bool:
    """A label or annotation written in an input template: ``meta.*`` judged it there."""
    if not isinstance(origin, Written):
        return False
    return any(
        path[: len(where) + 1] in ((*where, "labels"), (*where, "annotations"))
        for where in _METADATA
    )
