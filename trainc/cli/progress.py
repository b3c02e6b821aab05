"""A one-line progress counter on stderr, for runs that take more than a moment.

Drawn only when stderr is a terminal: in CI logs, pipes, pre-commit and the Argo CD
sidecar nothing is written. It never touches stdout, which carries only the product, and
is erased before anything else is written to stderr. It uses no colour and no escape
sequences (a carriage return and spaces redraw the line), so ``NO_COLOR`` and dumb
terminals need nothing special.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final, TextIO

from trainc.app import Progress

#: Nothing is drawn for a run that ends sooner: a flicker would be noise.
DELAY_SECONDS: Final = 0.5
#: Redraw at most this often; the library reports every file, object and job.
INTERVAL_SECONDS: Final = 0.1
_SPINNER: Final = "|/-\\"


class ProgressLine:
    """A progress hook drawing ``<label> <spinner> done/total`` over itself.

    Nothing is drawn during the first ``delay`` seconds, then at most once per
    :data:`INTERVAL_SECONDS`, so a fast run prints nothing and a slow one costs a few
    writes a second.
    """

    def __init__(
        self,
        stream: TextIO,
        label: str,
        *,
        delay: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._label = label
        self._clock = clock
        self._next_draw = clock() + delay
        self._frames = 0
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        """Redraw with the latest counts, unless it is too early or too soon."""
        now = self._clock()
        if now < self._next_draw:
            return
        self._next_draw = now + INTERVAL_SECONDS
        text = f"{self._label} {_SPINNER[self._frames % len(_SPINNER)]} {done}/{total}"
        self._frames += 1
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
        self._width = max(self._width, len(text))

    def erase(self) -> None:
        """Blank the line and return to its start, if anything was drawn."""
        if self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()
            self._width = 0


@contextmanager
def progress_line(stream: TextIO, label: str, *, enabled: bool) -> Iterator[Progress | None]:
    """A drawing hook when ``enabled`` and ``stream`` is a terminal, else None.

    The line is erased on leaving, error or not, so the report or error message that
    follows starts on a clean line.
    """
    if not enabled or not stream.isatty():
        yield None
        return
    line = ProgressLine(stream, label, delay=DELAY_SECONDS)
    try:
        yield line
    finally:
        line.erase()
