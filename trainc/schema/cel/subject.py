"""What CEL rules judge: an object's data, and a way to place a finding about it.

An input document places a finding on its own line (:class:`~trainc.load.defaulted.
DefaultedObject`). A JobSet trainc resolved has no file of its own: its findings go to the
input line each value came from (:mod:`trainc.checks.transitions.update`). The rule layer
needs nothing else, so both are judged by the same code.
"""

from __future__ import annotations

from typing import Protocol

from trainc.diagnostics import Diagnostic, Severity
from trainc.model.json import FieldPath, JsonObject


class Subject(Protocol):
    """An object under CEL rules."""

    @property
    def data(self) -> JsonObject:
        """The object, defaulted, as the rules read it."""
        ...

    def finding(
        self,
        path: FieldPath,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        hint: str | None = None,
    ) -> Diagnostic:
        """A diagnostic about the value at ``path`` of :attr:`data`."""
        ...
