"""``compile_paths`` into memory: the report and the collected output side by side."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainc.api import CompileReport, compile_paths
from trainc.diagnostics import Diagnostic
from trainc.emit.layout import JobOutput
from trainc.emit.sinks import Collected
from trainc.model.json import JsonObject


@dataclass(frozen=True)
class Compiled:
    """A compile's report and what its :class:`~trainc.emit.sinks.Collected` sink kept."""

    report: CompileReport
    output: Collected

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.report.diagnostics

    @property
    def jobs(self) -> tuple[JobOutput, ...]:
        return tuple(self.output.jobs)

    @property
    def shared(self) -> tuple[JsonObject, ...]:
        return self.output.shared

    @property
    def files(self) -> dict[str, bytes]:
        return self.output.files

    @property
    def stream(self) -> str:
        return self.output.stream


def compile_collected(paths: Sequence[Path], *, cwd: Path, **options: Any) -> Compiled:
    """Compile ``paths`` as ``compile_paths`` does, keeping the output in memory."""
    output = Collected()
    report = compile_paths(paths, cwd=cwd, sink=output, **options)
    return Compiled(report, output)
