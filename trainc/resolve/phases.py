"""The phases of a resolution, as upstream's runtime framework defines them.

A plugin opts into a phase by implementing its method; the framework derives per-phase
lists with ``isinstance`` against these Protocols. Phases run in the order of
:func:`trainc.resolve.framework.run_phases` and, within a phase, in registry order.
Building objects is not a phase here: the compiler turns the settled resolution into
manifests (:mod:`trainc.compiler`), so validation sees everything first.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from trainc.resolve.context import Resolution


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
