"""Remembering pure checks of strings: names repeat across thousands of objects.

A repository of ten thousand TrainJobs spells the same container names, label keys and
environment variable names over and over; judging each once per run instead of once per
Job keeps the Job checks cheap. Only pure functions of one string may be remembered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

#: How many strings each check remembers. The strings that repeat (container names, label
#: keys) recur in every Job, so a few hundred places keep them; the others (each Job's
#: and Pod's own name) never come back, and a larger memory only holds them: in a worker
#: judging thousands of TrainJobs, 16,384 of them per check was tens of MB
#: (docs/performance.md).
_SIZE = 1024


def remembered(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """``check`` (a pure function from a string to its error messages) with a memory.

    Callers get a fresh list each time, so they may extend it.
    """
    memory = functools.lru_cache(maxsize=_SIZE)(lambda value: tuple(check(value)))

    @functools.wraps(check)
    def errors(value: str) -> list[str]:
        return list(memory(value))

    return errors
