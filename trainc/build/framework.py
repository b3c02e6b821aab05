"""Runs the plugins over one resolved TrainJob, phase by phase.

Upstream keeps plugins in a Go map, so the order within a phase is random there
(``upstream-semantics.md`` §2.14); trainc fixes it with the registry's tuple order.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from trainc.build.context import BuildContext
from trainc.build.phases import (
    ApplyTrainJob,
    Build,
    EnforceMLPolicy,
    EnforcePodGroupPolicy,
    Finalize,
    PreBuildSync,
)
from trainc.config import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.model.json import JsonObject
from trainc.resolve.job import ResolvedJob


@dataclass(frozen=True, slots=True)
class BuildResult:
    """The objects built for one TrainJob, and what stopped parts of the build."""

    objects: tuple[JsonObject, ...]
    diagnostics: tuple[Diagnostic, ...]


def build_job(
    job: ResolvedJob, settings: CompileSettings, plugins: Sequence[object]
) -> BuildResult:
    """Every object for ``job``: enforce phases amend the context, build phases emit.

    ``plugins`` is the registry's tuple (tests pass their own); each runs only in the
    phases it implements: upstream's enforce phases in order (§2.1), trainc's TrainJob
    overrides first (see :class:`~trainc.build.phases.ApplyTrainJob`), then Build, then
    Finalize.
    """
    plan = _plan(tuple(plugins))
    context = BuildContext.start(job, settings)
    for applying in plan.apply_trainjob:
        applying.apply_trainjob(context)
    for framework in plan.enforce_ml_policy:
        framework.enforce_ml_policy(context)
    for scheduler in plan.enforce_pod_group_policy:
        scheduler.enforce_pod_group_policy(context)
    for syncing in plan.pre_build_sync:
        syncing.pre_build_sync(context)
    objects: list[JsonObject] = []
    for builder in plan.build:
        objects.extend(builder.build(context))
    for finalizer in plan.finalize:
        finalizer.finalize(context, objects)
    return BuildResult(tuple(objects), tuple(context.diagnostics))


@dataclass(frozen=True, slots=True)
class _Plan:
    """The plugins of each phase, in the order they were given."""

    apply_trainjob: tuple[ApplyTrainJob, ...]
    enforce_ml_policy: tuple[EnforceMLPolicy, ...]
    enforce_pod_group_policy: tuple[EnforcePodGroupPolicy, ...]
    pre_build_sync: tuple[PreBuildSync, ...]
    build: tuple[Build, ...]
    finalize: tuple[Finalize, ...]


@functools.cache
def _plan(plugins: tuple[object, ...]) -> _Plan:
    """Per-phase lists, derived once per plugin tuple rather than once per job.

    An ``isinstance`` check against a runtime Protocol costs tens of microseconds on
    Python 3.11, and a build makes six per plugin. Caching is safe: plugins are frozen,
    stateless values (hashable, so they can key the cache), and which phases a plugin
    implements depends only on its methods.
    """
    return _Plan(
        apply_trainjob=tuple(p for p in plugins if isinstance(p, ApplyTrainJob)),
        enforce_ml_policy=tuple(p for p in plugins if isinstance(p, EnforceMLPolicy)),
        enforce_pod_group_policy=tuple(p for p in plugins if isinstance(p, EnforcePodGroupPolicy)),
        pre_build_sync=tuple(p for p in plugins if isinstance(p, PreBuildSync)),
        build=tuple(p for p in plugins if isinstance(p, Build)),
        finalize=tuple(p for p in plugins if isinstance(p, Finalize)),
    )
