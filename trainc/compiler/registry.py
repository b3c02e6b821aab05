"""The builders, in the order their objects are emitted for one TrainJob.

A new kind of object is a new module and one line here; the order is upstream's plugin
order, and the emitter sorts objects by kind anyway, so it only fixes ties.
"""

from __future__ import annotations

from collections.abc import Callable

from trainc.compiler.plugins import coscheduling, flux, jobset, mpi, volcano, volumes
from trainc.model.json import JsonObject
from trainc.resolve.resolved import ResolvedJob

Builder = Callable[[ResolvedJob], list[JsonObject]]

BUILDERS: tuple[Builder, ...] = (
    jobset.build,
    mpi.build,
    flux.build,
    coscheduling.build,
    volcano.build,
    volumes.build,
)
