"""The façade every command goes through: one :class:`Session` per command, over the
:class:`~trainc.app.options.RunOptions` the front end built.

The session does the setup every command shares, once (the repository's root and
trainc.yaml, the targets, the base revision, the worker count), then hands the run to
the engine (:mod:`trainc.engine`) or to the command's own module; it never prints,
exits or writes outside the directory it is asked to write. Problems in the user's
repository come back as diagnostics; only a bad request (unknown path, unknown
environment, an unreadable --base revision) raises :class:`~trainc.errors.UsageError`.

Each command's module is imported by the method that runs it: a single-file validate,
the pre-commit hook, starts without the builders' output stage, the diff and explain
reviews, migrate, prune and the Kubernetes client (``tests/cli/test_startup.py``).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from trainc.app.compile import CompileReport
from trainc.app.options import RunOptions
from trainc.config.limits import InputLimits
from trainc.config.read import ConfigResult, load_config
from trainc.config.settings import RepoConfig
from trainc.engine.job_pass import JobStages
from trainc.engine.report import ValidationReport
from trainc.engine.repository import Run, validate_repository
from trainc.engine.workers import check_jobs, usable_cores
from trainc.errors import UsageError
from trainc.load.inputs import load_base

if TYPE_CHECKING:
    from trainc.app.cluster import Cluster
    from trainc.app.migrate import MigrateRequest, MigrationReport
    from trainc.app.prune import PrunePlan, PruneReport
    from trainc.app.snapshot import SnapshotReport, SnapshotRequest
    from trainc.app.sweep import Sweeper, SweepRequest
    from trainc.checks.transitions.base import BaseRevision
    from trainc.emit.sinks import OutputSink
    from trainc.engine.diff import DiffReport
    from trainc.engine.explain import ExplainReport


class Session:
    """One command's run over the repository of ``options``."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options

    @functools.cached_property
    def loaded_config(self) -> ConfigResult:
        """The repository's root and configuration (:func:`~trainc.config.read.load_config`)."""
        options = self.options
        return load_config(
            cwd=options.cwd,
            paths=options.paths,
            config_file=options.config_file,
            environment=options.environment,
            overrides=options.overrides,
        )

    def validate(self) -> ValidationReport:
        """``trainc validate``: every file and object checked, each TrainJob judged and
        built; with ``base``, the transition rules too."""
        jobs = self._workers()
        run = self._run(jobs=jobs, with_base=True)
        if run is None:
            return ValidationReport.config_failure(self.loaded_config)
        return validate_repository(run, JobStages(build=True)).report

    def compile(self, sink: OutputSink[Any]) -> CompileReport:
        """``trainc compile``: validation, then every clean TrainJob and the sweeper into
        ``sink`` (:func:`~trainc.engine.compile.compile_repository`); ``base`` plays no
        part."""
        from trainc.engine.compile import compile_repository  # noqa: PLC0415 - see module

        jobs = self._workers()
        run = self._run(jobs=jobs)
        if run is None:
            report = ValidationReport.config_failure(self.loaded_config)
            return CompileReport(report, report.diagnostics)
        compiled = compile_repository(run, sink)
        return CompileReport(compiled.report, compiled.report.diagnostics, compiled.jobs)

    def diff(self) -> DiffReport:
        """``trainc diff``: the output at ``base`` and in the working tree, compared
        (:func:`~trainc.engine.diff.diff_repository`)."""
        from trainc.engine.diff import DiffReport, diff_repository  # noqa: PLC0415 - see module

        run = self._run(jobs=1, with_base=True)
        if run is None:
            report = ValidationReport.config_failure(self.loaded_config)
            return DiffReport(report, report.diagnostics, ())
        if run.base is None:
            raise UsageError("trainc diff compares with a git revision: give --base REF")
        return diff_repository(run, run.base)

    def explain(self, *, object_name: str | None = None, field: str | None = None) -> ExplainReport:
        """``trainc explain``: the compiled objects, with the origin of each value; the
        ones ``object_name`` names, or the history of ``field`` (see
        :class:`~trainc.engine.explain.Selector` and
        :func:`~trainc.engine.explain.explain_repository`)."""
        from trainc.engine.explain import (  # noqa: PLC0415 - see module
            ExplainReport,
            Selector,
            explain_repository,
        )

        run = self._run(jobs=1)
        if run is None:
            report = ValidationReport.config_failure(self.loaded_config)
            return ExplainReport(report, report.diagnostics)
        return explain_repository(run, Selector(object_name, field))

    def migrate(self, request: MigrateRequest) -> MigrationReport:
        """``trainc migrate``: old spellings rewritten (:func:`~trainc.app.migrate.migrate_run`).

        Raises UsageError for an invalid manager, before anything is read.
        """
        from trainc.app.migrate import MigrationReport, migrate_run  # noqa: PLC0415 - see module

        request.check()
        loaded_config = self.loaded_config
        config = loaded_config.config
        if config is None:
            return MigrationReport((), written=False, diagnostics=loaded_config.diagnostics)
        return migrate_run(loaded_config, config, self.options.targets, request)

    def prune_plan(self) -> PrunePlan:
        """``trainc prune``'s first step: the repository validated, and where each of its
        TrainJobs lives (:func:`~trainc.app.prune.prune_plan`)."""
        from trainc.app.prune import PrunePlan, prune_plan  # noqa: PLC0415 - see module

        run = self._run(jobs=1)
        if run is None:
            report = ValidationReport.config_failure(self.loaded_config)
            return PrunePlan(report, report.diagnostics, self.options.cwd, InputLimits())
        return prune_plan(run)

    @staticmethod
    def prune(planned: PrunePlan, cluster: Cluster, *, dry_run: bool) -> PruneReport:
        """``trainc prune``'s second step: the TrainJobs of ``planned`` whose JobSet in
        ``cluster`` is done for good now, taken out of the working tree
        (:func:`~trainc.app.prune.prune_plan_in`)."""
        from trainc.app.prune import PruneRequest, prune_plan_in  # noqa: PLC0415 - see module

        return prune_plan_in(planned, PruneRequest(cluster, datetime.now(UTC), dry_run))

    @staticmethod
    def sweep(cluster: Cluster, request: SweepRequest) -> Sweeper:
        """``trainc sweep``: a client of ``cluster`` that runs the passes the caller asks
        for (:class:`~trainc.app.sweep.Sweeper`). No repository is read."""
        from trainc.app.sweep import Sweeper  # noqa: PLC0415 - see module

        return Sweeper(cluster.connect(), request)

    @staticmethod
    def pull_snapshot(cluster: Cluster, request: SnapshotRequest) -> SnapshotReport:
        """``trainc cluster pull``: ``cluster``'s admission-relevant objects, read into a
        snapshot directory or compared with it (:func:`~trainc.app.snapshot.pull_snapshot`).
        No repository is read."""
        from trainc.app.snapshot import pull_snapshot  # noqa: PLC0415 - see module

        return pull_snapshot(cluster, request)

    def _workers(self) -> int:
        """The worker processes the run may use: ``jobs``, or every usable core. Raises
        UsageError when ``jobs`` is below 1, before anything is read."""
        jobs = self.options.jobs
        return usable_cores() if jobs is None else check_jobs(jobs)

    def _run(self, *, jobs: int, with_base: bool = False) -> Run | None:
        """The engine's run over the repository; None when its trainc.yaml could not be
        read. Commands that keep every resolved job use one process (``jobs=1``)."""
        loaded_config = self.loaded_config
        config = loaded_config.config
        if config is None:
            return None
        options = self.options
        ref = options.base if with_base else None
        return Run(
            loaded_config,
            config,
            targets=options.targets,
            stdin=options.stdin,
            base=_base_revision(ref, config) if ref is not None else None,
            jobs=jobs,
            cache=options.cache,
            untracked=options.untracked,
            progress=options.progress,
        )


def _base_revision(ref: str, config: RepoConfig) -> BaseRevision:
    """The repository at git revision ``ref``, for ``--base`` runs."""
    # Only --base runs compare with a revision: loaded here, not by every run.
    from trainc.checks.transitions.base import BaseRevision  # noqa: PLC0415

    return BaseRevision(load_base(ref, config=config).objects, config)
