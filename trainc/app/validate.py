"""``trainc validate`` as a library call."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from trainc.config.settings import Overrides

if TYPE_CHECKING:
    from trainc.cache.store import Store

from trainc.app.session import (
    Builds,
    Progress,
    Request,
    Steps,
    ValidationReport,
    base_revision,
    config_failure,
    run_validation,
    worker_count,
)


def validate_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    stdin: BinaryIO | None = None,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    base: str | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    cache: Store | None = None,
    untracked: bool = True,
) -> ValidationReport:
    """Validate the given files and directories (the repository root when none).

    Relative ``paths`` are taken from ``cwd``, and the repository is the one they are in
    (see :func:`load_config`). ``stdin``, when given, is read as one more input named
    ``<stdin>`` (``kustomize build DIR | trainc validate -``). ``progress`` hears of every
    file read and object checked (see :data:`Progress`). ``jobs`` is how many processes
    may judge the TrainJobs (default: the usable cores; a small repository stays in one,
    see :mod:`trainc.engine.workers`); the report is the same whatever it is. With a
    ``cache``, what did not change since a run that kept it is not checked again
    (``docs/cache.md``); the report is the same. With ``untracked`` False (the command
    line's default, ``--untracked`` turns it on), a run over the whole repository in a
    git work tree leaves out the input files git does not track, and says which
    (:attr:`ValidationReport.untracked`). Raises UsageError when ``jobs`` is below 1.
    """
    workers = worker_count(jobs)
    request = Request(paths, cwd, config_file, environment, overrides)
    loaded_config = request.open()
    if loaded_config.config is None:
        return config_failure(loaded_config)
    config = loaded_config.config
    return run_validation(
        request.targets,
        loaded_config,
        config,
        base=base_revision(base, config) if base is not None else None,
        steps=Steps(progress),
        builds=Builds(config),
        stdin=stdin,
        jobs=workers,
        cache=cache,
        untracked=untracked,
    )
