"""The phases of a plugin, as upstream's runtime framework defines them.

Upstream's interfaces
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/interfaces.go) are a
``Plugin`` with a name and one interface per phase: ``CustomValidationPlugin``, the enforce
phases, ``ComponentBuilderPlugin``. A plugin opts into a phase by implementing its method;
the framework derives per-phase lists with ``isinstance`` against these Protocols
(:func:`trainc.resolve.framework.plan`). The enforce phases run in the order of
:func:`trainc.resolve.framework.run_phases` and, within a phase, in registry order.

Validation and building are split from resolving here, where upstream interleaves them
in one reconcile: every check sees the resolved job before anything is built, and a
build reports nothing. Validation has four phases, one per thing trainc can judge
without a cluster: every runtime's template, a runtime some TrainJob uses, a TrainJob on
its runtime (the TrainJob webhook's ``Validate``), and the resolved job.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject
from trainc.resolve.context import Resolution
from trainc.resolve.resolved import ResolvedJob


class Plugin(Protocol):
    """What every plugin is: a frozen, hashable value with upstream's name of its concern."""

    @property
    def name(self) -> str:
        """Upstream's name of the plugin (``mpi``, ``volcano``), for traces and tests."""


@runtime_checkable
class ValidateRuntime(Protocol):
    """Check every runtime's JobSet template, as the JobSet webhook does for KEP-572.

    Runs for every runtime, also one labelled to skip Trainer's webhooks: what it checks
    is refused by a webhook that label does not exempt.
    """

    def validate_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """Findings in ``runtime``'s file."""


@runtime_checkable
class ValidateUsedRuntime(Protocol):
    """Check a runtime by the rules a TrainJob's admission applies to it alone.

    Runs once per runtime that some TrainJob uses, and reports in the runtime's file:
    one finding however many TrainJobs would trip it.
    """

    def validate_used_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """Findings in ``runtime``'s file."""


@runtime_checkable
class ValidateTrainJob(Protocol):
    """Check a TrainJob on its runtime, as the plugin's ``Validate`` in the TrainJob webhook."""

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """Findings about ``trainjob`` (or ``runtime``) when ``trainjob`` uses ``runtime``."""


@runtime_checkable
class ValidateResolved(Protocol):
    """Check what a TrainJob resolved to, where the rule needs the final counts or names."""

    def validate_resolved(self, job: ResolvedJob) -> list[Diagnostic]:
        """Findings about ``job``, placed on the input lines its values came from."""


@runtime_checkable
class Build(Protocol):
    """Build the plugin's objects from a resolved job, as upstream's ``ComponentBuilderPlugin``."""

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The plugin's objects for ``job``, none when its policy is not set."""


@runtime_checkable
class ApplyTrainJob(Protocol):
    """Apply the TrainJob's own settings (trainer, initializers) to the runtime template.

    Upstream does this inside the JobSet builder; trainc runs it before the framework
    plugins so that a framework may still rewrite what the TrainJob set (TorchTune
    rewrites the trainer command) and its environment lands after the user's.
    """

    def apply_trainjob(self, context: Resolution) -> None:
        """Amend the template with the TrainJob's overrides."""


@runtime_checkable
class EnforceMLPolicy(Protocol):
    """Adjust pod counts and containers for the runtime's framework."""

    def enforce_ml_policy(self, context: Resolution) -> None:
        """Amend ``context`` for the framework; a no-op unless the policy is set."""


@runtime_checkable
class EnforcePodGroupPolicy(Protocol):
    """Mark pods for the gang scheduler."""

    def enforce_pod_group_policy(self, context: Resolution) -> None:
        """Add the scheduler's pod label or annotation; a no-op unless the policy is set."""


@runtime_checkable
class PreBuildSync(Protocol):
    """Settle the template from the final pod counts before objects are built."""

    def pre_build_sync(self, context: Resolution) -> None:
        """Copy counts into the template."""


@runtime_checkable
class Settle(Protocol):
    """Settle the JobSet as the API server will store it (defaults, marks, trainc's labels)."""

    def settle(self, context: Resolution) -> None:
        """Amend the working JobSet; runs after every enforce phase."""
