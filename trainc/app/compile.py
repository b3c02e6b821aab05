"""``trainc compile`` as a library call: validation, then each clean TrainJob built into a
sink."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from trainc.config.file import CONFIG_FILE_NAME
from trainc.config.settings import DEPLOY_TRAINJOB, Overrides, RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.errors import CompilerBug, UsageError
from trainc.load.inputs import STDIN_NAME
from trainc.load.pathnames import text_name
from trainc.model.json import JsonObject

if TYPE_CHECKING:
    from trainc.build.sweeper import SweptJob
    from trainc.cache.store import Store
    from trainc.checks.output.objects import OutputCheck
    from trainc.emit.selection import Selection
    from trainc.emit.sinks import OutputSink
    from trainc.resolve.resolved import ResolvedJob

from trainc.app.session import (
    Builds,
    ExitCodeFromFindings,
    Progress,
    Request,
    Steps,
    ValidationReport,
    config_failure,
    named_paths,
    run_validation,
    worker_count,
)

#: Why compile refuses a validate-only repository, and what to run instead.
_VALIDATE_ONLY: Final = (
    "{config} sets deploy: TrainJob: the TrainJobs go to the Trainer controller, which "
    "builds their JobSets in the cluster, so trainc compiles nothing here. Run `trainc "
    "validate` (the trainc-validate pre-commit hook runs it) and apply the TrainJobs as "
    "they are; to deploy trainc's JobSets instead, remove `deploy` from {config} "
    '(docs/deploy.md, "Two ways to adopt trainc")'
)


@dataclass(frozen=True, slots=True)
class CompileReport(ExitCodeFromFindings):
    """The outcome of ``trainc compile``: diagnostics, and how many TrainJobs were output.

    The output itself went to the sink the caller gave (see
    :mod:`trainc.emit.sinks`), and only when there were no errors: ``jobs`` is 0 then.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    jobs: int = 0


def compile_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    sink: OutputSink[Any],
    stdin: BinaryIO | None = None,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    cache: Store | None = None,
    untracked: bool = True,
) -> CompileReport:
    """Validate and build every TrainJob and the sweeper into ``sink``.

    ``paths``, ``cwd`` and ``stdin`` choose the inputs and the repository as for
    :func:`validate_paths`.

    Validation resolves each TrainJob once and hands it here as soon as it is checked;
    while the run has found no error, it is built, its output checked, and given to the
    sink, then let go: a compile holds the validated repository, not its output. The sink
    is opened before the first job it gets and closed in every case; it is finished (the
    output becomes visible) only when the whole run found no error, so nothing half-valid
    is ever written. Every error a compile reports is validation's: building reports
    nothing. The sweeper's objects (trainc.yaml's ``sweeper`` section) and the Namespaces
    (``compile.namespaces: Emit``) belong to no one job: they are the sink's shared objects.
    Raises CompilerBug when an object trainc built fails its own output validation:
    that is trainc's fault, never the user's; UsageError when trainc.yaml says ``deploy:
    TrainJob``, where nothing is compiled. ``progress`` hears of every file, object
    and job (see :data:`Progress`). ``jobs`` is how many processes may resolve, check,
    build and render the TrainJobs, as for :func:`validate_paths`: the output, byte for
    byte, and the diagnostics are the same whatever it is, and whatever the ``cache``
    held (see :func:`validate_paths`, also for ``untracked``). With ``paths``, the
    repository's own output directory is updated, not replaced
    (:mod:`trainc.emit.selection`).
    """
    # What only compile needs (the builders, the emitter, the output check) is imported
    # here and in _Output: validation, the pre-commit hook's command, starts faster.
    from trainc.build.namespaces import build_namespaces  # noqa: PLC0415 - compile only
    from trainc.build.sweeper import build_sweeper  # noqa: PLC0415 - compile only

    workers = worker_count(jobs)
    request = Request(paths, cwd, config_file, environment, overrides)
    loaded_config = request.open()
    config = loaded_config.config
    if config is None:
        report = config_failure(loaded_config)
        return CompileReport(report, report.diagnostics)
    if config.deploy == DEPLOY_TRAINJOB:
        raise UsageError(_VALIDATE_ONLY.format(config=config.config_file or CONFIG_FILE_NAME))
    builds = Builds(config)
    output = _Output(sink, config, builds, _selection(request.targets, stdin, root=config.root))
    try:
        report = run_validation(
            request.targets,
            loaded_config,
            config,
            base=None,
            steps=Steps(progress),
            builds=builds,
            stdin=stdin,
            emitter=output,
            jobs=workers,
            cache=cache,
            untracked=untracked,
        )
        if report.exit_code:
            return CompileReport(report, report.diagnostics)
        namespaces = output.namespaces()
        sweeper = build_sweeper(config, namespaces)
        output.finish((*build_namespaces(config, namespaces, sweeper), *sweeper))
        return CompileReport(report, report.diagnostics, len(output.swept))
    finally:
        output.close()


class _Output:
    """The sink of one compile, fed each resolved job while the run is clean: the
    :class:`~trainc.engine.pipeline.Emitter` of a compile.

    Each job is built, checked and rendered where it was judged (a worker process of a
    big run), and the rendered output handed to the sink here, in order. The sink is
    opened on the first job (or at the finish of a compile without jobs), so a compile
    whose input has errors never creates its output location. Once an error is found,
    later jobs are no longer handed on: the sink is closed without a finish, which
    throws away what it staged.
    """

    def __init__(
        self, sink: OutputSink[Any], config: RepoConfig, builds: Builds, selection: Selection
    ) -> None:
        from trainc.checks.output.objects import OutputCheck  # noqa: PLC0415 - compile only

        self._sink = sink
        self._config = config
        self._selection = selection
        self._builds = builds
        self._check = OutputCheck(config.kubernetes_version)
        self._opened = False
        self.swept: list[SweptJob] = []

    @property
    def cache_key(self) -> str:
        """The sink's rendering, with what the sweeper needs of each job."""
        return f"swept-job+{self._sink.render_key}"

    def make(self, job: ResolvedJob) -> tuple[SweptJob, object]:
        """Build ``job``, check its objects and render them as the sink keeps them.

        Runs where the job was judged, a worker process included: only the summary the
        sweeper needs and the rendered output come back.
        """
        from trainc.build.sweeper import SweptJob  # noqa: PLC0415 - compile only
        from trainc.emit.layout import JobOutput  # noqa: PLC0415 - compile only

        built = self._builds.take(job)
        # Validation judged the Jobs of exactly this JobSet spec (the builder copies the
        # resolved one): the output check need not judge them again.
        _check_built(self._check, built.objects, jobs=False)
        rendered = self._sink.render(JobOutput(built.namespace, built.name, built.objects))
        return SweptJob.of(built), rendered

    def take(self, product: tuple[SweptJob, object]) -> None:
        """Hand the next clean job's rendered output to the sink, in order."""
        swept, rendered = product
        self.swept.append(swept)
        self._open()
        self._sink.add(rendered)

    def namespaces(self) -> set[str]:
        """The namespaces the shared objects serve: those of the jobs compiled and of the
        jobs whose earlier output the sink keeps."""
        self._open()
        return {job.namespace for job in self.swept} | self._sink.kept_namespaces()

    def finish(self, shared: Sequence[JsonObject]) -> None:
        """Check the shared objects and make the output visible."""
        _check_built(self._check, shared)
        self._open()
        self._sink.complete(shared)

    def close(self) -> None:
        """Release the sink; without :meth:`finish`, its output is discarded."""
        if self._opened:
            self._sink.close()

    def _open(self) -> None:
        if not self._opened:
            self._sink.prepare(self._config.root, self._config.compile.output, self._selection)
            self._opened = True


def _selection(paths: Sequence[Path], stdin: BinaryIO | None, *, root: Path) -> Selection:
    """The paths compiled, named as the headers of TrainJob files in the output name them."""
    from trainc.emit.selection import Selection  # noqa: PLC0415 - compile only

    named = (text_name(path) for path in named_paths(paths, root=root))
    return Selection((*named, *([STDIN_NAME] if stdin is not None else ())))


def _check_built(check: OutputCheck, objects: Sequence[JsonObject], *, jobs: bool = True) -> None:
    problems = check.problems(objects, jobs=jobs)
    if problems:
        raise CompilerBug("emitted objects fail validation:\n  " + "\n  ".join(problems))
