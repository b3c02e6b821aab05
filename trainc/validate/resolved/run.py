"""The checks of one resolved TrainJob, in a fixed order.

Resolution (:mod:`trainc.resolve`) produced the JobSet exactly as it will be stored; these
checks judge it as the cluster will:

- what resolving itself found (a Secret nobody named, an invalid lifecycle annotation,
  a gang without members, a replicatedJob without containers);
- the JobSet webhook's checks that depend on the resolved counts and names (name
  budgets, replicas * parallelism, the coordinator's pod index);
- Trainer's TorchTune rules, on what the recipe was chosen from;
- what Kueue refuses or fights over (:mod:`.kueue`);
- the API server's rules for the Jobs the JobSet controller creates (:mod:`.childjobs`).

Compile builds from the same resolved job, so whatever it could find, this finds first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from trainc.config import DEPLOY_JOBSET, Deploy
from trainc.diagnostics import Diagnostic, Severity, configured_severity, exit_code
from trainc.resolve.resolved import ResolvedJob
from trainc.validate.deploy import in_force
from trainc.validate.resolved.childjobs import check_child_jobs
from trainc.validate.resolved.coordinator import check_coordinator_pod
from trainc.validate.resolved.credentials import CODE as PLAINTEXT_CREDENTIAL
from trainc.validate.resolved.credentials import check_plaintext_credentials
from trainc.validate.resolved.images import CODE as IMAGE_TAG
from trainc.validate.resolved.images import check_image_tags
from trainc.validate.resolved.jobset import check_replicas_parallelism
from trainc.validate.resolved.kueue import check_kueue
from trainc.validate.resolved.names import check_name_budgets
from trainc.validate.resolved.torchtune import check_torchtune
from trainc.validate.sweeper import DEADLINE_SWEEP_PERIOD, check_deadline_period
from trainc.validate.workload.version import KubeVersion


@dataclass(frozen=True, slots=True)
class Target:
    """What a run judges for: the Kubernetes version whose rules apply, trainc.yaml's
    ``rules`` (the levels of trainc's configurable rules, by code), what it deploys
    (``deploy``: with TrainJobs, the rules about compiled JobSets are off) and the
    sweeper's ``schedule`` (None without a sweeper)."""

    version: KubeVersion
    rules: Mapping[str, str] = field(default_factory=dict)
    deploy: Deploy = DEPLOY_JOBSET
    sweeper_schedule: str | None = None


JobCheck = Callable[[ResolvedJob], list[Diagnostic]]


def _found_while_resolving(job: ResolvedJob) -> list[Diagnostic]:
    return list(job.findings)


#: Checks of the JobSet and the TrainJob's own rules, in order; the Jobs come last.
JOB_CHECKS: tuple[JobCheck, ...] = (
    _found_while_resolving,
    check_name_budgets,
    check_replicas_parallelism,
    check_coordinator_pod,
    check_torchtune,
    check_kueue,
)


def check_resolved(job: ResolvedJob, target: Target) -> list[Diagnostic]:
    """Every finding about ``job``: the table's checks in order, then its Jobs', then
    trainc's own judgements about the repository (:func:`check_repository_lints`).

    The Jobs are judged only when the JobSet itself would be created: after an error
    above (of a rule in force for ``target.deploy``), the JobSet controller never gets to
    create them, and their findings would only repeat that error. The lints are judged
    whatever else is wrong: they concern the repository, not the cluster.
    """
    found: list[Diagnostic] = []
    for check in JOB_CHECKS:
        found += check(job)
    found = in_force(found, target.deploy)
    if not exit_code(found):
        found += check_child_jobs(job, target.version)
    return found + in_force(check_repository_lints(job, target), target.deploy)


def check_repository_lints(job: ResolvedJob, target: Target) -> list[Diagnostic]:
    """trainc's configurable rules about ``job``, each at trainc.yaml's level: credentials
    in plain text, unpinned images, a deadline the sweeper cannot hold."""

    def level(code: str) -> Severity | None:
        return configured_severity(code, target.rules)

    return [
        *check_plaintext_credentials(job, level(PLAINTEXT_CREDENTIAL)),
        *check_image_tags(job, level(IMAGE_TAG)),
        *check_deadline_period(job, target.sweeper_schedule, level(DEADLINE_SWEEP_PERIOD)),
    ]
