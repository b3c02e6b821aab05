"""Which cluster the commands that talk to one (``sweep``, ``prune``) reach."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trainc.sweep.calls import SweepLimits
from trainc.sweep.client import SweepClient, connect


@dataclass(frozen=True, slots=True)
class Cluster:
    """``kubeconfig`` and ``context`` as kubectl takes them (:mod:`trainc.sweep.kubeconfig`)."""

    kubeconfig: Path | None = None
    context: str | None = None

    def connect(self) -> SweepClient:
        """A client of the cluster, with the default call limits."""
        return connect(kubeconfig=self.kubeconfig, context=self.context, limits=SweepLimits())
