"""The lifecycle settings a compiled JobSet carries as annotations: one codec, both sides.

``trainc compile`` writes ``trainc.dev/active-deadline-seconds`` (the TrainJob's
``activeDeadlineSeconds``, KEP-2899), ``trainc.dev/ttl-seconds-after-finished`` (the
runtime's ``ttlSecondsAfterFinished``, KEP-2899) and ``trainc.dev/progress-deadline-seconds``
(trainc's own: fail work that never starts, ``docs/design.md``, "Lifecycle") on the JobSet;
``trainc sweep`` reads them back.
A progress deadline comes from an annotation a user writes by hand, and any annotation can
be edited in git, so both sides judge a value with the same rule: a canonical decimal
(no sign, blanks, leading zeros or non-ASCII digits) within the bounds of the API type
KEP-2899 gives the setting (``*int64`` ``Minimum=1`` for the deadlines, ``*int32``
``Minimum=0`` for the TTL; the progress deadline follows the active deadline).
"""

from __future__ import annotations

import re
from typing import Final

from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
    TTL_ANNOTATION,
)

_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1

#: (lowest, highest) seconds each lifecycle annotation may hold.
BOUNDS: Final[dict[str, tuple[int, int]]] = {
    ACTIVE_DEADLINE_ANNOTATION: (1, _INT64_MAX),
    TTL_ANNOTATION: (0, _INT32_MAX),
    PROGRESS_DEADLINE_ANNOTATION: (1, _INT64_MAX),
}


def format_seconds(seconds: int) -> str:
    """A setting as its annotation value: the decimal :func:`parse_seconds` reads back."""
    return str(seconds)


def parse_seconds(key: str, raw: str) -> int | None:
    """The seconds annotation ``key`` holds, or None when ``raw`` is not a valid value."""
    low, high = BOUNDS[key]
    # The length check comes first: int() refuses strings of over 4300 digits.
    if len(raw) > len(str(high)) or _DECIMAL.fullmatch(raw) is None:
        return None
    value = int(raw)
    return value if low <= value <= high else None


def describe_bounds(key: str) -> str:
    """What a valid value of ``key`` is, for messages."""
    low, high = BOUNDS[key]
    return f"a whole number of seconds from {low} to {high}"
