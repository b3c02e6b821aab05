"""How a run tells a front end how far it is, stage by stage."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

#: ``progress(done, total)``, called while a run works through its files, objects and jobs.
#: ``done`` never decreases and ``total`` only grows, as each stage learns its size; a
#: front end may draw it (the library never does), and None costs nothing.
Progress: TypeAlias = Callable[[int, int], None]


class Steps:
    """One running count over a run's stages, for the caller's progress hook.

    Each stage's loop reports its own (done, total); the caller sees those added to the
    items of the stages before. A stage's hook may be made before the stages ahead of it
    have run: it counts from where they ended, when it first reports.
    """

    def __init__(self, hook: Progress | None) -> None:
        self._hook = hook
        self._done = 0

    def stage(self) -> Progress | None:
        """The hook for the next stage, None when nobody listens."""
        hook = self._hook
        if hook is None:
            return None
        start: list[int] = []

        def report(done: int, total: int) -> None:
            if not start:
                start.append(self._done)
            self._done = start[0] + done
            hook(start[0] + done, start[0] + total)

        return report
