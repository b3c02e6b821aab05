"""The phases of a build, as upstream's runtime framework defines them.

A plugin opts into a phase by implementing its method; the registry derives per-phase
lists with ``isinstance`` against these Protocols. Phases run in the order of
:data:`trainc.build.registry.PHASE_ORDER` and, within a phase, in registry order.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from trainc.build.context import BuildContext
from trainc.model.json import JsonObject


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a name, for diagnostics and for the registry test."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern (``torch``, ``coscheduling``, ...)."""
        ...


@runtime_checkable
class ApplyTrainJob(Protocol):
    """Apply the TrainJob's own settings (trainer, initializers) to the runtime template.

    Upstream does this inside the JobSet builder; trainc runs it before the framework
    plugins so that a framework may still rewrite what the TrainJob set (TorchTune
    rewrites the trainer command) and its environment lands after the user's.
    """

    def apply_trainjob(self, context: BuildContext) -> None:
        """Amend the template with the TrainJob's overrides."""


@runtime_checkable
class EnforceMLPolicy(Protocol):
    """Adjust pod counts and containers for the runtime's framework."""

    def enforce_ml_policy(self, context: BuildContext) -> None:
        """Amend ``context`` for the framework; a no-op unless the policy is set."""


@runtime_checkable
class EnforcePodGroupPolicy(Protocol):
    """Mark pods for the gang scheduler."""

    def enforce_pod_group_policy(self, context: BuildContext) -> None:
        """Add the scheduler's pod label or annotation; a no-op unless the policy is set."""


@runtime_checkable
class PreBuildSync(Protocol):
    """Settle the template from the final pod counts before objects are built."""

    def pre_build_sync(self, context: BuildContext) -> None:
        """Copy counts into the template."""


@runtime_checkable
class Build(Protocol):
    """Produce objects from the settled context."""

    def build(self, context: BuildContext) -> list[JsonObject]:
        """Objects for this job (empty when the plugin has nothing to add)."""
        ...


@runtime_checkable
class Finalize(Protocol):
    """Amend every built object (trainc's labels, lifecycle annotations)."""

    def finalize(self, context: BuildContext, objects: list[JsonObject]) -> None:
        """Amend ``objects`` in place."""
