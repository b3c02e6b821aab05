"""TrainingRuntime and ClusterTrainingRuntime: the blueprints platform admins publish.

Both kinds share one spec. Besides the upstream HEAD fields it carries the KEP-2899
``ttlSecondsAfterFinished`` and the three KEP-2899 rules that keep lifecycle settings out
of the embedded JobSet and Job templates, where they would act behind trainc's back.
"""

from __future__ import annotations

from typing import Annotated

from trainc.model.jobset import JobSetSpec
from trainc.model.k8s import ObjectMeta
from trainc.model.markers import (
    Minimum,
    MinProperties,
    Rule,
    schema,
)
from trainc.model.meta import EmbeddedObjectMeta
from trainc.model.mlpolicy import MLPolicy, PodGroupPolicy
from trainc.model.scalars import Int32
from trainc.records import dataclass


@schema(MinProperties(1))
@dataclass(frozen=True, slots=True, kw_only=True)
class JobSetTemplateSpec:
    """Template of the JobSet each TrainJob on this runtime becomes."""

    metadata: EmbeddedObjectMeta | None = None
    """Labels and annotations of the JobSet."""

    spec: JobSetSpec | None = None
    """Spec of the JobSet."""


_NO_JOBSET_TTL = Rule(
    rule=(
        "!has(self.template) || !has(self.template.spec) || "
        "!has(self.template.spec.ttlSecondsAfterFinished)"
    ),
    message=(
        "template.spec.ttlSecondsAfterFinished must not be set: it would delete the JobSet "
        "behind the TrainJob; set spec.ttlSecondsAfterFinished on the runtime instead"
    ),
    id="runtime.no-jobset-ttl",
    field_path=".template.spec.ttlSecondsAfterFinished",
)


def _no_job_field(field: str, rule_id: str, why: str, instead: str) -> Rule:
    """A KEP-2899 rule keeping a Job-level lifecycle ``field`` out of every replicatedJob.

    The rule is declared on the runtime spec, as the KEP does, because JobSetSpec is also
    the JobSet kind's own type, where these fields are legal. A list-wide rule cannot
    point at the offending item, so its message expression names the replicatedJobs.
    """
    offending = (
        "self.template.spec.replicatedJobs.filter(rj, has(rj.template.spec) && "
        f"has(rj.template.spec.{field})).map(rj, rj.name).join(', ')"
    )
    return Rule(
        rule=(
            "!has(self.template) || !has(self.template.spec) || "
            "!has(self.template.spec.replicatedJobs) || "
            "self.template.spec.replicatedJobs.all(rj, !has(rj.template.spec) || "
            f"!has(rj.template.spec.{field}))"
        ),
        message=f"replicatedJobs must not set template.spec.{field}: {why}; {instead}",
        message_expression=(
            f"'replicatedJob ' + {offending} + ' sets template.spec.{field}: {why}; {instead}'"
        ),
        id=rule_id,
        field_path=".template.spec.replicatedJobs",
    )


_NO_JOB_DEADLINE = _no_job_field(
    "activeDeadlineSeconds",
    "runtime.no-job-deadline",
    "a Job-level deadline ends pods behind the TrainJob deadline",
    "set activeDeadlineSeconds on the TrainJob instead",
)

_NO_JOB_TTL = _no_job_field(
    "ttlSecondsAfterFinished",
    "runtime.no-job-ttl",
    "a Job-level TTL conflicts with the TrainJob lifecycle",
    "set spec.ttlSecondsAfterFinished on the runtime instead",
)


@schema(MinProperties(1), _NO_JOBSET_TTL, _NO_JOB_DEADLINE, _NO_JOB_TTL)
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRuntimeSpec:
    """What a TrainJob on this runtime runs, and how it is scheduled and cleaned up."""

    ml_policy: MLPolicy | None = None
    """Framework and default node count."""

    pod_group_policy: PodGroupPolicy | None = None
    """Gang scheduling."""

    template: JobSetTemplateSpec | None = None
    """JobSet template the TrainJob is merged into."""

    ttl_seconds_after_finished: Annotated[Int32 | None, Minimum(0)] = None
    """Seconds after a TrainJob on this runtime finishes before it is deleted (KEP-2899).

    Unset keeps finished jobs; 0 deletes them as soon as they finish. trainc's sweeper
    enforces it, since no controller does once the Trainer controller is out of the loop.
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRuntime:
    """A runtime blueprint usable by TrainJobs in its own namespace."""

    api_version: str
    """``trainer.kubeflow.org/v1alpha1``."""

    kind: str
    """``TrainingRuntime``."""

    metadata: ObjectMeta
    """Name, namespace, labels and annotations of the runtime."""

    spec: TrainingRuntimeSpec
    """The blueprint."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterTrainingRuntime:
    """A runtime blueprint usable by TrainJobs in every namespace."""

    api_version: str
    """``trainer.kubeflow.org/v1alpha1``."""

    kind: str
    """``ClusterTrainingRuntime``."""

    metadata: ObjectMeta
    """Name, labels and annotations of the runtime."""

    spec: TrainingRuntimeSpec
    """The blueprint."""
