"""A compile's output stage: each clean TrainJob's built objects checked, rendered where
the job was judged, and handed to the sink in order.

The engine drives this stage itself after a job's build (:mod:`trainc.engine.job_pass`):
building, checking and rendering are pure and may run in a worker process; only the
rendered form and what the sweeper needs of the job cross back. The sink is opened on
the first job (or at the finish of a compile without jobs), so a compile whose input
has errors never creates its output location. Once an error is found, later jobs are
no longer handed on: the sink is closed without a finish, which throws away what it
staged (:mod:`trainc.emit.sinks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainc.build.job import BuiltJob
from trainc.build.sweeper import SweptJob
from trainc.checks.output.objects import OutputCheck
from trainc.config.settings import RepoConfig
from trainc.emit.layout import JobOutput
from trainc.emit.selection import Selection
from trainc.emit.sinks import OutputSink
from trainc.errors import CompilerBug
from trainc.model.json import JsonObject

#: What the output stage makes of one job: the sweeper's summary and the sink's rendering.
Product = tuple[SweptJob, object]


class CompileOutput:
    """The sink of one compile, with the output check every object passes on its way."""

    def __init__(self, sink: OutputSink[Any], config: RepoConfig, selection: Selection) -> None:
        self._sink = sink
        self._config = config
        self._selection = selection
        self._check = OutputCheck(config.kubernetes_version)
        self._opened = False
        self.swept: list[SweptJob] = []

    @property
    def cache_key(self) -> str:
        """The sink's rendering, with what the sweeper needs of each job: equal keys,
        equal products of equal jobs (the verdict cache keeps them)."""
        return f"swept-job+{self._sink.render_key}"

    def make(self, built: BuiltJob) -> Product:
        """Check ``built``'s objects and render them as the sink keeps them."""
        # Validation judged the Jobs of exactly this JobSet spec (the builder copies the
        # resolved one): the output check need not judge them again.
        _check_built(self._check, built.objects, jobs=False)
        rendered = self._sink.render(JobOutput(built.namespace, built.name, built.objects))
        return SweptJob.of(built), rendered

    def take(self, product: Product) -> None:
        """Hand the next clean job's rendered output to the sink, in order."""
        swept, rendered = product
        self.swept.append(swept)
        self._open()
        self._sink.add(rendered)

    def namespaces(self) -> set[str]:
        """The namespaces the shared objects serve: those of the jobs compiled and of the
        jobs whose earlier output the sink keeps."""
        self._open()
        return {job.namespace for job in self.swept} | self._sink.kept_namespaces()

    def finish(self, shared: Sequence[JsonObject]) -> None:
        """Check the shared objects and make the output visible."""
        _check_built(self._check, shared)
        self._open()
        self._sink.complete(shared)

    def close(self) -> None:
        """Release the sink; without :meth:`finish`, its output is discarded."""
        if self._opened:
            self._sink.close()

    def _open(self) -> None:
        if not self._opened:
            self._sink.prepare(self._config.root, self._config.compile.output, self._selection)
            self._opened = True


def _check_built(check: OutputCheck, objects: Sequence[JsonObject], *, jobs: bool = True) -> None:
    """Raise CompilerBug when an object trainc built fails its own output validation:
    that is trainc's fault, never the user's."""
    problems = check.problems(objects, jobs=jobs)
    if problems:
        raise CompilerBug("emitted objects fail validation:\n  " + "\n  ".join(problems))
