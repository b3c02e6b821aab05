"""TrainJob status: written by controllers, never by git, but part of the API's schema."""

from __future__ import annotations

from typing import Annotated

from trainc.model.k8s import Condition
from trainc.model.markers import (
    ATOMIC,
    Maximum,
    MaxItems,
    MaxLength,
    Minimum,
    MinLength,
    MinProperties,
    Rule,
    list_map,
    schema,
)
from trainc.model.scalars import Int32, Time
from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class JobStatus:
    """Pod counts of one replicatedJob."""

    name: Annotated[str, MinLength(1), MaxLength(253)]
    """Name of the replicatedJob."""

    ready: Annotated[Int32, Minimum(0)]
    """Ready pods."""

    succeeded: Annotated[Int32, Minimum(0)]
    """Succeeded pods."""

    failed: Annotated[Int32, Minimum(0)]
    """Failed pods."""

    active: Annotated[Int32, Minimum(0)]
    """Active pods."""

    suspended: Annotated[Int32, Minimum(0)]
    """Suspended Jobs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Metric:
    """One training metric reported by the trainer."""

    name: Annotated[str, MinLength(1), MaxLength(64)]
    """Metric name."""

    value: Annotated[str, MinLength(1), MaxLength(64)]
    """Metric value, as text."""


@schema(
    Rule(
        rule="has(self.lastUpdatedTime)",
        message="lastUpdatedTime is required when trainerStatus is present",
        id="trainjob.trainer-status-updated",
    )
)
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainerStatus:
    """Progress the trainer reports about itself."""

    progress_percentage: Annotated[Int32 | None, Minimum(0), Maximum(100)] = None
    """Completion, in percent."""

    estimated_remaining_seconds: Annotated[Int32 | None, Minimum(0)] = None
    """Estimated seconds until completion."""

    metrics: Annotated[list[Metric] | None, ATOMIC, MaxItems(256)] = None
    """Latest metrics."""

    last_updated_time: Time | None = None
    """When the trainer last reported."""


@schema(MinProperties(1))
@dataclass(frozen=True, slots=True, kw_only=True)
class TrainJobStatus:
    """Observed state; written by controllers, never by git."""

    conditions: Annotated[list[Condition] | None, list_map("type"), MaxItems(8)] = None
    """Suspended, Complete and Failed conditions."""

    jobs_status: Annotated[list[JobStatus] | None, list_map("name"), MaxItems(100)] = None
    """Pod counts per replicatedJob."""

    trainer_status: TrainerStatus | None = None
    """Progress reported by the trainer."""
