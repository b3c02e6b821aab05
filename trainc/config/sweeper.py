"""What trainc.yaml's sweeper section must satisfy, and the warning when nothing enforces jobs.

The sweeper (``trainc sweep``, run by the CronJob compile emits from trainc.yaml's
``sweeper`` section) enforces deadlines and TTLs. Two findings concern it, and validation
reports them so that ``validate`` and ``compile`` agree:

- ``compile.sweeper-resources``: the container's requests and limits, judged by the same
  rules as every container (:func:`~trainc.checks.workload.resources.check_container_resources`),
  and first whether each amount is a quantity at all (trainc.yaml's schema spells them
  loosely; the API server could not even decode the CronJob);
- ``compile.no-sweeper``: TrainJobs carry a deadline, TTL or progress deadline, and no
  sweeper is configured, so nothing in the cluster enforces them;
- ``compile.deadline-sweep-period``: a TrainJob's ``activeDeadlineSeconds`` is shorter
  than the longest wait between two sweeper runs (:mod:`trainc.config.cron`): the
  sweeper stops a job only when it runs, so such a job may run several times its
  deadline, and the deadline says what it cannot hold.
"""

from __future__ import annotations

from typing import Final

from trainc.checks.workload.fielderrors import FieldError, Key, invalid
from trainc.checks.workload.resources import check_container_resources
from trainc.checks.workload.version import parse_version
from trainc.config.cron import longest_gap_seconds
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity, counted, finding
from trainc.load.documents import Document, finding_in
from trainc.model.json import FieldPath, JsonObject, as_object
from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    TTL_ANNOTATION,
)
from trainc.resolve.quantity import QuantityError, parse_quantity
from trainc.resolve.resolved import ResolvedJob

COMPILE_NO_SWEEPER = Rule(
    "compile.no-sweeper",
    Severity.WARNING,
    "jobs set deadlines or TTLs, but no sweeper is configured to enforce them",
    compiled=True,
)

COMPILE_SWEEPER_RESOURCES = Rule(
    "compile.sweeper-resources",
    Severity.ERROR,
    "a request of the sweeper's container exceeds its limit",
    compiled=True,
)

COMPILE_DEADLINE_SWEEP_PERIOD = Rule(
    "compile.deadline-sweep-period",
    Severity.WARNING,
    "activeDeadlineSeconds is shorter than the sweeper's period, so it cannot hold on time",
    compiled=True,
    doc=RuleDoc(
        what=(
            "a TrainJob's `activeDeadlineSeconds` shorter than the longest wait between two "
            "sweeper runs"
        ),
        section=(
            "Once trainc replaces the Trainer controller, a TrainJob's "
            "`activeDeadlineSeconds` is held\n"
            "by the sweeper, which fails the job's Jobs at its first run after the "
            "deadline passed.\n"
            "The longest wait between two runs of `sweeper.schedule` (the CronJob's cron "
            "syntax, in\n"
            "UTC; `*/5 * * * *` by default, so 300 s) is how late that can be: a deadline "
            "shorter\n"
            "than it can be overrun by more than the deadline itself. The warning sits on "
            "the\n"
            "TrainJob's `activeDeadlineSeconds` and gives the longest run possible. Allow "
            "the job at\n"
            "least the sweeper's period, or run the sweeper more often. Without a "
            "`sweeper` section\n"
            "nothing enforces deadlines at all, which `compile.no-sweeper` reports.\n"
        ),
    ),
)


DEADLINE_SWEEP_PERIOD: Final = COMPILE_DEADLINE_SWEEP_PERIOD.code
_RESOURCES: Final[FieldPath] = ("sweeper", "resources")
_LIFECYCLE_ANNOTATIONS: Final = (
    ACTIVE_DEADLINE_ANNOTATION,
    TTL_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
)
#: Files named in the no-sweeper warning before "and N more".
_LISTED: Final = 3


def check_sweeper_resources(config: RepoConfig, document: Document | None) -> list[Diagnostic]:
    """What the API server would refuse in the sweeper container's resources."""
    settings = config.sweeper
    if settings is None:
        return []
    resources: JsonObject = {"requests": dict(settings.requests), "limits": dict(settings.limits)}
    errors = _undecodable(resources)
    if not errors:
        version = parse_version(config.kubernetes_version)
        errors = check_container_resources(resources, _RESOURCES, version, pod_claims=())
    return [_located(config, document, error) for error in errors]


def _undecodable(resources: JsonObject) -> list[FieldError]:
    """Amounts that are no quantity: the CronJob could not be decoded at all."""
    errors = []
    for kind, amounts in resources.items():
        for name, value in as_object(amounts).items():
            try:
                parse_quantity(value)
            except QuantityError as error:
                path = (*_RESOURCES, kind, Key(name))
                errors.append(invalid(path, COMPILE_SWEEPER_RESOURCES.code, value, str(error)))
    return errors


def _located(config: RepoConfig, document: Document | None, error: FieldError) -> Diagnostic:
    message = f"{error.message()}; the API server would reject the sweeper's CronJob"
    return finding_in(
        document,
        config.config_file,
        error.path,
        COMPILE_SWEEPER_RESOURCES.code,
        message,
        section=("sweeper", "resources"),
    )


def lifecycle_file(job: ResolvedJob) -> str | None:
    """``job``'s file when its JobSet carries a deadline, TTL or progress deadline."""
    annotations = as_object(job.jobset_metadata.get("annotations"))
    if any(key in annotations for key in _LIFECYCLE_ANNOTATIONS):
        return job.trainjob.loaded.path
    return None


class Enforcement:
    """Collects the TrainJobs with lifecycle settings, for the no-sweeper warning."""

    def __init__(self, config: RepoConfig) -> None:
        self._config = config
        self._files: list[str] = []

    def add(self, file: str | None) -> None:
        """Note a job's :func:`lifecycle_file` (None: a job without lifecycle settings)."""
        if file is not None:
            self._files.append(file)

    def findings(self) -> list[Diagnostic]:
        """One warning when jobs carry lifecycle settings that no sweeper will act on."""
        if self._config.sweeper is not None or not self._files:
            return []
        files = sorted(set(self._files))
        more = len(files) - _LISTED
        listed = ", ".join(files[:_LISTED]) + (f" and {more} more" if more > 0 else "")
        jobs = (
            f"{counted(len(self._files), 'TrainJob')} {'sets' if len(self._files) == 1 else 'set'}"
        )
        return [
            finding(
                COMPILE_NO_SWEEPER.code,
                f"{jobs} a deadline, TTL or progress deadline "
                f"({listed}), but trainc.yaml configures no sweeper: nothing in the cluster "
                "will enforce them",
                file=self._config.config_file,
                hint="add a `sweeper:` section with at least `image:` to trainc.yaml",
            )
        ]


def check_deadline_period(job: ResolvedJob, schedule: str | None) -> list[Diagnostic]:
    """The TrainJob's deadline against the sweeper's ``schedule`` (None: no sweeper)."""
    deadline = job.spec.active_deadline_seconds
    if schedule is None or deadline is None:
        return []
    period = longest_gap_seconds(schedule)
    if period is None or deadline >= period:
        return []
    return [
        job.trainjob.finding(
            ("spec", "activeDeadlineSeconds"),
            DEADLINE_SWEEP_PERIOD,
            f"activeDeadlineSeconds is {deadline} s, shorter than the up to {period} s the "
            f"sweeper that enforces it waits between runs (sweeper.schedule {schedule!r}): "
            f"the job can run up to {deadline + period} s before it is stopped",
            hint=f"allow the job at least {period} s, or run the sweeper more often "
            "(sweeper.schedule in trainc.yaml)",
        )
    ]
