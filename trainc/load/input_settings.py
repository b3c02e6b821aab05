"""What the loader needs to know about the repository, as a read-only interface.

``load`` sits below ``config`` in the layer contract, so it cannot name ``RepoConfig``;
``RepoConfig`` satisfies this Protocol structurally and is what callers pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from trainc.config.limits import InputLimits
from trainc.model.json import JsonObject


class InputSettings(Protocol):
    """The parts of the repository configuration that decide what is read and how."""

    @property
    def root(self) -> Path:
        """Repository root; every reported path is relative to it."""

    @property
    def include(self) -> tuple[str, ...]:
        """Root-relative globs of input files found by walking directories."""

    @property
    def exclude(self) -> tuple[str, ...]:
        """Root-relative globs removed from what ``include`` selects."""

    @property
    def runtimes(self) -> tuple[str, ...]:
        """Root-relative globs of the files that define runtimes; empty: anywhere."""

    @property
    def template_values(self) -> JsonObject:
        """Values ``.j2`` inputs are rendered with."""

    @property
    def limits(self) -> InputLimits:
        """Bounds on file size, YAML expansion and nesting."""
