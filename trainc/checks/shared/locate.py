"""A finding about a resolved value, placed on the input line that value came from.

Resolution records the origin of every value of the JobSet (:mod:`trainc.resolve.provenance`):
a line of the runtime, of the TrainJob, of a runtime patch, or a plugin's rule and the
input behind it. A finding goes to that line; the hint says when the value was not
written there as such (a patch's manager, a plugin's rule), so the reader knows what to
change.
"""

from __future__ import annotations

from trainc.diagnostics import Diagnostic, Severity
from trainc.resolve.provenance import Derived, Origin, describe


def locate(
    origin: Origin,
    code: str,
    message: str,
    *,
    hint: str | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    """A diagnostic ``code`` at the line ``origin`` points to (the catalogue's severity
    unless ``severity`` is given).

    A derived value is reported at its cause; its rule, and a patch's manager, join the
    hint.
    """
    written = origin.cause if isinstance(origin, Derived) else origin
    notes = [hint] if hint else []
    if isinstance(origin, Derived) or written.manager is not None:
        notes.append(describe(origin))
    return written.source.finding(
        written.path, code, message, hint="; ".join(notes) or None, severity=severity
    )
