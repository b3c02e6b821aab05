"""What a run reports: its sorted findings and what it read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trainc.config.read import ConfigResult
from trainc.diagnostics import Diagnostic, exit_code, sort_diagnostics
from trainc.load.source import SourceFile
from trainc.records import dataclass


class ExitCodeFromFindings:
    """A run's exit code from its findings: 0 when none is an error (warnings allowed),
    1 otherwise. Mixed into the report of every command that judges the input."""

    __slots__ = ()
    diagnostics: tuple[Diagnostic, ...]

    @property
    def exit_code(self) -> int:
        """0 when no finding is an error, 1 otherwise."""
        return exit_code(self.diagnostics)


@dataclass(frozen=True, slots=True)
class ValidationReport(ExitCodeFromFindings):
    """The outcome of ``trainc validate``: sorted diagnostics and what was read.

    ``policy_files`` counts the policy files among the named paths, which are checked
    but are no input files.
    """

    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    files: int
    objects: int
    policy_files: int = 0
    root: Path | None = None
    """The repository root the findings' paths are relative to (where trainc.yaml is)."""
    untracked: tuple[str, ...] = ()
    """Input files of the repository left out because git does not track them."""

    @classmethod
    def config_failure(cls, loaded_config: ConfigResult) -> ValidationReport:
        """The report of a run that could not read its trainc.yaml."""
        return cls(
            sort_diagnostics(loaded_config.diagnostics),
            loaded_config.sources,
            1,
            0,
            root=loaded_config.root,
        )
