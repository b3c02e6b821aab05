"""Reading many cache entries back without the cyclic garbage collector scanning them.

Unpickling a warm run's entries creates hundreds of thousands of container objects that
live for the whole run. CPython's collector runs a young-generation pass every 700 new
container objects, and a full pass each time the long-lived ones have grown by a quarter
(https://devguide.python.org/internals/garbage-collector/): a warm validation of 10,000
TrainJobs spent about a fifth of its CPU time in collections that freed nothing, while
reading its entries back and then scanning them again in every later full pass. The
entries hold no reference cycles (trees of records, tuples, lists and dicts), and what a
run drops of them is freed by reference counting, so the collector need not see them:
it is paused while they are read, and what was read is then frozen (``gc.freeze``, as
the worker pool does before it forks: :mod:`trainc.engine.workers`) until the run ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection while the block reads entries back; what exists when it ends
    is left out of later collections (see :func:`collected_again`). The collector is
    restored as it was: a caller may have turned it off itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def collected_again() -> Iterator[None]:
    """A run: what :func:`collection_paused` froze during it is the collector's again
    when it ends (a library caller's process goes on)."""
    try:
        yield
    finally:
        gc.unfreeze()
