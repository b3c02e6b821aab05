"""Runs the plugins over one resolved TrainJob, phase by phase.

Upstream keeps plugins in a Go map, so the order within a phase is random there
(``upstream-semantics.md`` §2.14); trainc fixes it with the registry's tuple order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    phases it implements, in the order of :data:`ENFORCE_PHASES`, then Build, then
    Finalize.
    """
    context = BuildContext.start(job, settings)
    for run_phase in ENFORCE_PHASES:
        for plugin in plugins:
            run_phase(plugin, context)
    objects: list[JsonObject] = []
    for plugin in plugins:
        if isinstance(plugin, Build):
            objects.extend(plugin.build(context))
    for plugin in plugins:
        if isinstance(plugin, Finalize):
            plugin.finalize(context, objects)
    return BuildResult(tuple(objects), tuple(context.diagnostics))


def _apply_trainjob(plugin: object, context: BuildContext) -> None:
    if isinstance(plugin, ApplyTrainJob):
        plugin.apply_trainjob(context)


def _enforce_ml_policy(plugin: object, context: BuildContext) -> None:
    if isinstance(plugin, EnforceMLPolicy):
        plugin.enforce_ml_policy(context)


def _enforce_pod_group_policy(plugin: object, context: BuildContext) -> None:
    if isinstance(plugin, EnforcePodGroupPolicy):
        plugin.enforce_pod_group_policy(context)


def _pre_build_sync(plugin: object, context: BuildContext) -> None:
    if isinstance(plugin, PreBuildSync):
        plugin.pre_build_sync(context)


#: The phases that amend the context, in upstream's order (§2.1), trainc's TrainJob
#: overrides first (see :class:`~trainc.build.phases.ApplyTrainJob`).
ENFORCE_PHASES: tuple[Callable[[object, BuildContext], None], ...] = (
    _apply_trainjob,
    _enforce_ml_policy,
    _enforce_pod_group_policy,
    _pre_build_sync,
)
