"""Where each TrainJob of a repository lives (``trainc prune`` edits those files)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trainc.config.limits import InputLimits
from trainc.config.settings import Overrides
from trainc.diagnostics import Diagnostic
from trainc.model.json import JsonObject

if TYPE_CHECKING:
    from trainc.resolve.resolved import ResolvedJob

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
class TrainJobSource:
    """Where git holds one TrainJob: its identity in the cluster, its file, and the
    document as read, to find it again in that file."""

    namespace: str
    name: str
    file: str
    document: JsonObject


@dataclass(frozen=True, slots=True)
class SourcesReport(ExitCodeFromFindings):
    """The TrainJobs of a repository that compile, or the findings that stop it; the
    repository root and the loader's limits, to read the files again."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    root: Path
    limits: InputLimits
    trainjobs: tuple[TrainJobSource, ...] = ()


def trainjob_sources(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
) -> SourcesReport:
    """Validate ``paths`` (default: the repository) and say where each TrainJob lives,
    in (namespace, name) order; none when the input has errors (``trainc prune`` edits
    only a repository that compiles)."""
    request = Request(paths, cwd, config_file, environment, overrides)
    loaded_config = request.open()
    config = loaded_config.config
    if config is None:
        report = config_failure(loaded_config)
        return SourcesReport(report, report.diagnostics, cwd, InputLimits())
    found: list[TrainJobSource] = []

    def keep(job: ResolvedJob, clean: bool) -> None:  # noqa: FBT001 - OnResolved's shape
        loaded = job.trainjob.loaded
        found.append(TrainJobSource(job.namespace, job.name, loaded.path, loaded.data))

    report = run_validation(
        request.targets,
        loaded_config,
        config,
        base=None,
        steps=Steps(None),
        builds=Builds(config),
        on_resolved=keep,
    )
    found_in = (report, report.diagnostics, config.root, config.limits)
    return SourcesReport(*found_in, () if report.exit_code else tuple(found))
