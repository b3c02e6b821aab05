"""The checks of one resolved TrainJob, in a fixed order.

Resolution (:mod:`trainc.resolve`) produced the JobSet exactly as it will be stored; these
checks judge it as the cluster will:

- what resolving itself found (a Secret nobody named, an invalid lifecycle annotation,
  a gang without members, a replicatedJob without containers);
- the JobSet webhook's checks that depend on the resolved counts and names (name
  budgets, replicas * parallelism, the coordinator's pod index);
- the plugins' checks of the resolved job, in registry order (TorchTune's rules, what
  Kueue refuses or fights over);
- the API server's rules for the Jobs the JobSet controller creates (:mod:`.childjobs`).

Compile builds from the same resolved job, so whatever it could find, this finds first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field

from trainc.checks.created.childjobs import check_child_jobs
from trainc.checks.created.coordinator import check_coordinator_pod
from trainc.checks.created.credentials import check_plaintext_credentials
from trainc.checks.created.images import check_image_tags
from trainc.checks.created.jobset import check_replicas_parallelism
from trainc.checks.created.names import check_name_budgets
from trainc.checks.shared.whose import name_trainjob
from trainc.checks.workload.version import KubeVersion
from trainc.config.judgement import Judgement
from trainc.config.sweeper import check_deadline_period
from trainc.diagnostics import Diagnostic
from trainc.plugins import registry
from trainc.records import dataclass
from trainc.resolve.childjobs import ChildJob
from trainc.resolve.framework import plan
from trainc.resolve.resolved import ResolvedJob


@dataclass(frozen=True, slots=True)
class Target:
    """What a run judges for: the Kubernetes version whose rules apply, what the
    repository's rule levels, deployment and suppressions make of a finding, and the
    sweeper's ``schedule`` (None without a sweeper)."""

    version: KubeVersion
    judgement: Judgement = field(default_factory=Judgement)
    sweeper_schedule: str | None = None


JobCheck = Callable[[ResolvedJob], list[Diagnostic]]


def _found_while_resolving(job: ResolvedJob) -> list[Diagnostic]:
    return list(job.findings)


#: Checks of the JobSet, in order; the plugins' follow, and the Jobs come last.
JOB_CHECKS: tuple[JobCheck, ...] = (
    _found_while_resolving,
    check_name_budgets,
    check_replicas_parallelism,
    check_coordinator_pod,
)


def check_resolved(
    job: ResolvedJob, target: Target, children: Sequence[ChildJob]
) -> list[Diagnostic]:
    """Every finding about ``job``: the table's checks in order, the plugins', then its Jobs', then
    trainc's own judgements about the repository (:func:`check_repository_lints`).

    The Jobs are judged only when the JobSet itself would be created: after an error
    above (one that is not turned off or suppressed), the JobSet controller never gets
    to create them, and their findings would only repeat that error. The lints are judged
    whatever else is wrong: they concern the repository, not the cluster. ``children``
    are the Jobs as :func:`~trainc.checks.created.childjobs.resolved_child_jobs` built
    them, once for these checks and the cluster's admission. The findings
    are returned as found: the run judges them (``target.judgement``). Each names
    the TrainJob (:func:`~trainc.checks.shared.whose.name_trainjob`): one placed on
    the runtime says which of its TrainJobs it breaks.
    """
    found: list[Diagnostic] = []
    for check in JOB_CHECKS:
        found += check(job)
    for plugin in plan(registry.PLUGINS).validate_resolved:
        found += plugin.validate_resolved(job)
    if not target.judgement.fails(found):
        found += check_child_jobs(job, target.version, children)
    return name_trainjob(job.trainjob, found + check_repository_lints(job, target))


def check_repository_lints(job: ResolvedJob, target: Target) -> list[Diagnostic]:
    """trainc's own judgements about ``job``: credentials in plain text, unpinned images,
    a deadline the sweeper cannot hold."""
    return [
        *check_plaintext_credentials(job),
        *check_image_tags(job),
        *check_deadline_period(job, target.sweeper_schedule),
    ]
