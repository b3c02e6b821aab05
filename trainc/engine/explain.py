"""``trainc explain``'s run: the compiled objects, built in memory, with the origin of each
line (:mod:`trainc.explain`)."""

from __future__ import annotations

from dataclasses import dataclass

from trainc.diagnostics import Diagnostic
from trainc.engine.job_pass import JobStages
from trainc.engine.report import ExitCodeFromFindings, ValidationReport
from trainc.engine.repository import Run, validate_repository
from trainc.errors import UsageError
from trainc.explain import ExplainedObject, FieldHistory, SelectionError, select


@dataclass(frozen=True, slots=True)
class ExplainReport(ExitCodeFromFindings):
    """The outcome of ``trainc explain``: diagnostics, and the compiled objects with the
    origin of each line, or the history of the one field asked for."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    objects: tuple[ExplainedObject, ...] = ()
    fields: tuple[FieldHistory, ...] = ()


@dataclass(frozen=True, slots=True)
class Selector:
    """What ``trainc explain`` shows: ``object_name`` (``KIND/NAME``, kind
    case-insensitive) keeps the objects it names; ``field`` (a path such as
    ``spec.replicatedJobs[node].template.spec.template.spec.containers[node].image``, or
    its end, ``containers[node].image``) gives, instead of whole objects, the values
    that field took."""

    object_name: str | None = None
    field: str | None = None


def explain_repository(run: Run, selector: Selector) -> ExplainReport:
    """Compile the run's TrainJobs in memory and say where each value came from.

    Raises UsageError for a malformed selector or one that names nothing built.
    """
    validated = validate_repository(run, JobStages(build=True, keep=True))
    report = validated.report
    built = [(kept.resolved, kept.built) for kept in validated.kept if kept.built is not None]
    if not built:
        return ExplainReport(report, report.diagnostics)
    try:
        selection = select(built, object_name=selector.object_name, field=selector.field)
    except SelectionError as error:
        raise UsageError(str(error)) from None
    return ExplainReport(report, report.diagnostics, selection.objects, selection.fields)
