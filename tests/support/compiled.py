"""``compile_paths`` into memory: the report and the collected output side by side."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainc.app import CompileReport, compile_paths
from trainc.diagnostics import Diagnostic
from trainc.emit.layout import JobOutput, layout, render_stream
from trainc.emit.selection import Selection
from trainc.model.json import JsonObject


class Collected:
    """An output sink that keeps the output in memory, in both forms, for tests to read."""

    render_key = "objects"

    def __init__(self) -> None:
        self.jobs: list[JobOutput] = []
        self.shared: tuple[JsonObject, ...] = ()
        self._complete = False

    def prepare(self, root: Path, default_output: str | None, selection: Selection) -> None:
        """Nothing to prepare."""

    def kept_namespaces(self) -> frozenset[str]:
        """None: the output is what this compile made."""
        return frozenset()

    def render(self, job: JobOutput) -> JobOutput:
        """The objects as they are: this sink keeps them."""
        return job

    def add(self, rendered: JobOutput) -> None:
        """Keep the job's objects."""
        self.jobs.append(rendered)

    def complete(self, shared: Sequence[JsonObject]) -> None:
        """Keep the shared objects; :attr:`files` and :attr:`stream` now show the output."""
        self.shared = tuple(shared)
        self._complete = True

    def close(self) -> None:
        """Forget the jobs of a compile that did not complete."""
        if not self._complete:
            self.jobs.clear()

    @property
    def files(self) -> dict[str, bytes]:
        """Output path → bytes, as ``compile -o DIR`` writes them; empty unless finished."""
        return layout(self.jobs, self.shared) if self._complete else {}

    @property
    def stream(self) -> str:
        """Every object as one YAML stream in canonical order, as ``compile -o -`` prints."""
        return render_stream([*(obj for job in self.jobs for obj in job.objects), *self.shared])


@dataclass(frozen=True)
class Compiled:
    """A compile's report and what its :class:`Collected` sink kept."""

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
