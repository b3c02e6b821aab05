"""``trainc compile``'s report."""

from __future__ import annotations

from trainc.diagnostics import Diagnostic
from trainc.engine.report import ExitCodeFromFindings, ValidationReport
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class CompileReport(ExitCodeFromFindings):
    """The outcome of ``trainc compile``: diagnostics, and how many TrainJobs were output.

    The output itself went to the sink the caller gave (see
    :mod:`trainc.emit.sinks`), and only when there were no errors: ``jobs`` is 0 then.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    jobs: int = 0
