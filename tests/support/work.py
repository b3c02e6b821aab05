"""Counting work instead of timing it: speed belongs in bench/, a bound on work is a test.

A wall-clock bound fails on a loaded machine and passes a regression on a fast one; the
number of calls a piece of code makes, or of passes over its input, is the same on every
machine, so a test can bound it exactly.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any


class TooMuchWork(Exception):  # noqa: N818 - reads as the condition it reports
    """Raised inside the measured code once it passes its bound, so a runaway ends at once."""


@dataclass
class Calls:
    """Calls counted so far."""

    count: int = 0


@contextmanager
def python_calls(where: str, *, limit: int) -> Iterator[Calls]:
    """Count calls of the Python functions defined in files whose path ends with ``where``.

    Past ``limit`` calls the next one raises :class:`TooMuchWork` in the measured code.
    """
    calls = Calls()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code.co_filename.endswith(where):
            calls.count += 1
            if calls.count > limit:
                raise TooMuchWork(f"more than {limit} calls into {where}")

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(previous)


class WatchedText(str):
    """A str that counts the calls of its methods that read the whole text (``passes``).

    Slices and single characters are not counted: they do not grow with the text. A
    regular expression searching it is not seen either (``re`` reads the buffer directly).
    """

    __slots__ = ("passes",)
    passes: Counter[str]

    def __new__(cls, text: str) -> WatchedText:
        watched = super().__new__(cls, text)
        watched.passes = Counter()
        return watched


def _counted(name: str) -> Any:
    method = getattr(str, name)

    def counted(self: WatchedText, *args: Any, **kwargs: Any) -> Any:
        self.passes[name] += 1
        return method(self, *args, **kwargs)

    return counted


for _name in (
    "__contains__", "count", "find", "rfind", "index", "rindex", "split", "rsplit",
    "splitlines", "encode", "isascii", "replace", "strip", "lower", "upper", "translate",
):  # fmt: skip
    setattr(WatchedText, _name, _counted(_name))
