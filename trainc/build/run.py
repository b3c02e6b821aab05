"""Builds every TrainJob of a validated repository, in a stable order.

Each job is built alone, from its own fresh context: nothing one job does can change
another's output, and the output is the same whatever order files were read in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from trainc.build.framework import build_job
from trainc.build.registry import PLUGINS
from trainc.config import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.errors import CompilerBug
from trainc.model.json import JsonObject
from trainc.model.kinds import TRAINJOB
from trainc.resolve.index import LookupFailure, RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.objects import DefaultedObject


@dataclass(frozen=True, slots=True)
class BuiltJob:
    """Everything built for one TrainJob, and what the plugins reported about it."""

    namespace: str
    name: str
    source: str
    objects: tuple[JsonObject, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def build_jobs(
    objects: Sequence[DefaultedObject],
    settings: CompileSettings,
    *,
    context: Sequence[DefaultedObject] = (),
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[BuiltJob]:
    """Build every TrainJob in ``objects`` (which passed validation without errors).

    Jobs come one at a time, sorted by namespace and name, so the caller can write each
    and let it go. Runtimes are looked up among ``objects`` and ``context`` (the rest of
    the repository when only some paths were named). ``progress(done, total)`` is called
    after each job.
    """
    index = RuntimeIndex((*objects, *context))
    trainjobs = sorted(
        (obj for obj in objects if obj.kind == TRAINJOB.kind),
        key=lambda obj: (obj.namespace or "", obj.name),
    )
    specs = RuntimeSpecs()
    for done, trainjob in enumerate(trainjobs, 1):
        runtime = index.lookup(trainjob)
        if isinstance(runtime, LookupFailure):
            raise CompilerBug(f"TrainJob {trainjob.name} passed validation without a runtime")
        resolved = resolve_job(trainjob, runtime, specs=specs)
        result = build_job(resolved, settings, PLUGINS)
        yield BuiltJob(
            namespace=resolved.namespace,
            name=resolved.name,
            source=trainjob.loaded.path,
            objects=result.objects,
            diagnostics=tuple(result.diagnostics),
        )
        if progress is not None:
            progress(done, len(trainjobs))
