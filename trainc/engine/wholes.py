"""The whole objects behind a run's outlines (:mod:`trainc.engine.outlines`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainc.config.settings import RepoConfig
from trainc.engine.cache import Cache
from trainc.engine.file_pass import Whole, whole_object
from trainc.load.defaulted import DefaultedObject
from trainc.records import dataclass

#: What stands for an object's whole: where it is (an outline's :class:`Whole`), or the
#: object itself when it is no outline.
WholeHandle = Whole | DefaultedObject

if TYPE_CHECKING:
    from trainc.engine.spill import SpillFile  # the run makes one without a cache only


@dataclass(frozen=True, slots=True)
class WholeObjects:
    """The whole object of each outline, by the outline's identity (the run keeps every
    outline alive); any other object is its own whole. Without a cache, the wholes are
    in the run's ``spill`` file."""

    whole_by_outline: dict[int, Whole]
    cache: Cache | None
    config: RepoConfig
    spill: SpillFile | None = None

    def __call__(self, obj: DefaultedObject) -> DefaultedObject:
        """The whole of ``obj``, read back (from the cache or the spill file) when it is
        an outline."""
        return self.read(self.handle(obj))

    def handle(self, obj: DefaultedObject) -> WholeHandle:
        """What stands for ``obj``'s whole, to send to a worker process instead of the
        outline (see :mod:`trainc.engine.workers`)."""
        return self.whole_by_outline.get(id(obj), obj)

    def read(self, handle: WholeHandle) -> DefaultedObject:
        """The whole object ``handle`` stands for."""
        if isinstance(handle, DefaultedObject):
            return handle
        return whole_object(handle, self.cache, self.spill, self.config)
