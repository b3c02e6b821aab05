"""The whole objects behind a run's outlines (:mod:`trainc.engine.outlines`)."""

from __future__ import annotations

from trainc.config.settings import RepoConfig
from trainc.engine.cache import Cache
from trainc.engine.file_pass import Whole, whole_object
from trainc.load.defaulted import DefaultedObject
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class WholeObjects:
    """The whole object of each outline, by the outline's identity (the run keeps every
    outline alive); any other object is its own whole."""

    whole_by_outline: dict[int, Whole]
    cache: Cache | None
    config: RepoConfig

    def __call__(self, obj: DefaultedObject) -> DefaultedObject:
        """The whole of ``obj``, read back (from the cache or a pickle) when it is an outline."""
        whole = self.whole_by_outline.get(id(obj))
        return obj if whole is None else whole_object(whole, self.cache, self.config)
