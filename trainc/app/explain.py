"""``trainc explain`` as a library call: the compiled objects with the origin of each line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trainc.config.settings import Overrides
from trainc.diagnostics import Diagnostic
from trainc.errors import UsageError

if TYPE_CHECKING:
    from trainc.explain import ExplainedObject, FieldHistory

from trainc.app.session import (
    Builds,
    ExitCodeFromFindings,
    Request,
    Steps,
    ValidationReport,
    config_failure,
    run_validation,
)


@dataclass(frozen=True, slots=True)
class ExplainReport(ExitCodeFromFindings):
    """The outcome of ``trainc explain``: diagnostics, and the compiled objects with the
    origin of each line, or the history of the one field asked for."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    objects: tuple[ExplainedObject, ...] = ()
    fields: tuple[FieldHistory, ...] = ()


def explain_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    object_name: str | None = None,
    field: str | None = None,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
) -> ExplainReport:
    """Compile the TrainJobs in ``paths`` in memory and say where each value came from.

    ``object_name`` (``KIND/NAME``, kind case-insensitive) keeps the objects it names;
    ``field`` (a path such as ``spec.replicatedJobs[node].template.spec.template.spec.
    containers[node].image``, or its end, ``containers[node].image``) gives, instead of
    whole objects, the values that field took. Raises UsageError for a malformed
    selector or one that names nothing built.
    """
    from trainc.explain import SelectionError, select  # noqa: PLC0415 - explain only

    request = Request(paths, cwd, config_file, environment, overrides)
    loaded_config = request.open()
    config = loaded_config.config
    if config is None:
        report = config_failure(loaded_config)
        return ExplainReport(report, report.diagnostics)
    builds = Builds(config, keep=True)
    report = run_validation(
        request.targets,
        loaded_config,
        config,
        base=None,
        steps=Steps(None),
        builds=builds,
    )
    if not builds.kept:
        return ExplainReport(report, report.diagnostics)
    try:
        selection = select(builds.kept, object_name=object_name, field=field)
    except SelectionError as error:
        raise UsageError(str(error)) from None
    return ExplainReport(report, report.diagnostics, selection.objects, selection.fields)
