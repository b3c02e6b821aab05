"""Runs the plugins over one joined TrainJob, phase by phase, into a ResolvedJob.

Upstream keeps plugins in a Go map, so the order within a phase is random there
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/registry.go);
trainc fixes it with the registry's tuple order.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.phases import (
    ApplyTrainJob,
    Build,
    EnforceMLPolicy,
    EnforcePodGroupPolicy,
    Plugin,
    PreBuildSync,
    Settle,
    ValidateResolved,
    ValidateRuntime,
    ValidateTrainJob,
    ValidateUsedRuntime,
)
from trainc.resolve.resolved import ResolvedJob


def run_phases(context: Resolution, plugins: Sequence[Plugin]) -> ResolvedJob:
    """Every phase over ``context``, then the frozen result.

    ``plugins`` is the registry's tuple (:mod:`trainc.plugins.registry`; tests pass their
    own); each runs only in the enforce phases it implements: trainc's TrainJob overrides first (see
    :class:`~trainc.resolve.phases.ApplyTrainJob`), upstream's enforce phases in order
    (``docs/upstream.md``, "Trainer: building the JobSet"), then Settle, which gives the
    JobSet its stored shape.
    """
    phases = plan(tuple(plugins))
    for applying in phases.apply_trainjob:
        applying.apply_trainjob(context)
    for framework in phases.enforce_ml_policy:
        framework.enforce_ml_policy(context)
    for scheduler in phases.enforce_pod_group_policy:
        scheduler.enforce_pod_group_policy(context)
    for syncing in phases.pre_build_sync:
        syncing.pre_build_sync(context)
    for settling in phases.settle:
        settling.settle(context)
    return freeze(context)


def freeze(context: Resolution) -> ResolvedJob:
    """The resolution as it stands, as a ResolvedJob (after the last phase: the result)."""
    job = context.job
    return ResolvedJob(
        trainjob=job.trainjob,
        runtime=job.runtime,
        spec=job.spec,
        runtime_spec=job.runtime_spec,
        template=job.template,
        jobset_metadata=context.jobset_metadata,
        jobset_spec=context.jobset_spec,
        pod_sets=tuple(pod_set.frozen() for pod_set in context.pod_sets),
        trace=context.trace,
        findings=tuple(context.findings),
        claims=tuple(context.claims),
        extensions=tuple(context.extensions.values()),
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """The plugins of each phase, in the order they were given."""

    validate_runtime: tuple[ValidateRuntime, ...]
    validate_used_runtime: tuple[ValidateUsedRuntime, ...]
    validate_trainjob: tuple[ValidateTrainJob, ...]
    validate_resolved: tuple[ValidateResolved, ...]
    apply_trainjob: tuple[ApplyTrainJob, ...]
    enforce_ml_policy: tuple[EnforceMLPolicy, ...]
    enforce_pod_group_policy: tuple[EnforcePodGroupPolicy, ...]
    pre_build_sync: tuple[PreBuildSync, ...]
    settle: tuple[Settle, ...]
    build: tuple[Build, ...]


@functools.cache
def plan(plugins: tuple[Plugin, ...]) -> Plan:
    """Per-phase lists, derived once per plugin tuple rather than once per job.

    An ``isinstance`` check against a runtime Protocol costs tens of microseconds on
    Python 3.11, and a job's validation, resolution and build make ten per plugin. Caching
    is safe: plugins are frozen, stateless values (hashable, so they can key the cache),
    and which phases a plugin implements depends only on its methods.
    """
    return Plan(
        validate_runtime=tuple(p for p in plugins if isinstance(p, ValidateRuntime)),
        validate_used_runtime=tuple(p for p in plugins if isinstance(p, ValidateUsedRuntime)),
        validate_trainjob=tuple(p for p in plugins if isinstance(p, ValidateTrainJob)),
        validate_resolved=tuple(p for p in plugins if isinstance(p, ValidateResolved)),
        apply_trainjob=tuple(p for p in plugins if isinstance(p, ApplyTrainJob)),
        enforce_ml_policy=tuple(p for p in plugins if isinstance(p, EnforceMLPolicy)),
        enforce_pod_group_policy=tuple(p for p in plugins if isinstance(p, EnforcePodGroupPolicy)),
        pre_build_sync=tuple(p for p in plugins if isinstance(p, PreBuildSync)),
        settle=tuple(p for p in plugins if isinstance(p, Settle)),
        build=tuple(p for p in plugins if isinstance(p, Build)),
    )
