"""The commands as one call each, for scripts and tests: the paths and working directory
positional, the rest of :class:`~trainc.app.options.RunOptions` as keywords. Each is
:class:`~trainc.app.session.Session`'s method over those options, nothing more."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from trainc.app.compile import CompileReport
from trainc.app.options import RunChoices, RunOptions
from trainc.app.session import Session
from trainc.engine.report import ValidationReport

if TYPE_CHECKING:
    from trainc.app.migrate import MigrationReport
    from trainc.emit.sinks import OutputSink
    from trainc.engine.explain import ExplainReport


def validate_paths(
    paths: Sequence[Path], *, cwd: Path, **choices: Unpack[RunChoices]
) -> ValidationReport:
    """``trainc validate`` of ``paths`` (see :meth:`Session.validate`)."""
    return Session(RunOptions(cwd=cwd, paths=paths, **choices)).validate()


def compile_paths(
    paths: Sequence[Path], *, cwd: Path, sink: OutputSink[Any], **choices: Unpack[RunChoices]
) -> CompileReport:
    """``trainc compile`` of ``paths`` into ``sink`` (see :meth:`Session.compile`)."""
    return Session(RunOptions(cwd=cwd, paths=paths, **choices)).compile(sink)


def explain_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    object_name: str | None = None,
    field: str | None = None,
    **choices: Unpack[RunChoices],
) -> ExplainReport:
    """``trainc explain`` of ``paths`` (see :meth:`Session.explain`)."""
    session = Session(RunOptions(cwd=cwd, paths=paths, **choices))
    return session.explain(object_name=object_name, field=field)


def migrate_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    manager: str | None = None,
    write: bool = False,
    **choices: Unpack[RunChoices],
) -> MigrationReport:
    """``trainc migrate`` of ``paths`` (see :meth:`Session.migrate`); ``manager``
    defaults to :data:`~trainc.app.migrate.MIGRATE_MANAGER`."""
    from trainc.app.migrate import MIGRATE_MANAGER, MigrateRequest  # noqa: PLC0415 - see Session

    request = MigrateRequest(manager if manager is not None else MIGRATE_MANAGER, write)
    return Session(RunOptions(cwd=cwd, paths=paths, **choices)).migrate(request)
