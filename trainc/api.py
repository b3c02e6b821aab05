"""The library façade: what the command line, the Argo CD plugin, pre-commit and tests call.

Functions here run whole pipelines and return result objects; they never print, exit or
write outside the directory they are asked to write. Problems in the user's repository
come back as diagnostics; only a bad request (unknown path, unknown environment, an
unreadable --base revision) raises :class:`~trainc.errors.UsageError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias

from trainc.config import Overrides, RepoConfig, build_config, find_paths_root
from trainc.diagnostics import Diagnostic, exit_code, sort_diagnostics
from trainc.errors import CompilerBug, UsageError
from trainc.load.documents import Document, LoadedObject
from trainc.load.inputs import load_base, load_context, load_inputs, load_single_file
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.json import JsonObject, get_path
from trainc.model.repoconfig import CONFIG_FILE_NAME, RepoConfigFile
from trainc.model.schematree import load_kind_schema
from trainc.validate.defaults import apply_defaults, drop_nulls
from trainc.validate.policies import load_policies
from trainc.validate.run import OnResolved, validate_objects
from trainc.validate.structural import check_schema
from trainc.validate.sweeper import check_sweeper_resources

if TYPE_CHECKING:
    from trainc.compiler.run import BuiltJob
    from trainc.compiler.sweeper import SweptJob
    from trainc.emit.sinks import OutputSink
    from trainc.resolve.resolved import ResolvedJob
    from trainc.validate.output import OutputCheck

# What only compile needs (the builders, the emitter, the output check) is imported in
# the functions that use it: validation, the pre-commit hook's command, starts faster.

#: ``progress(done, total)``, called while a run works through its files, objects and jobs.
#: ``done`` never decreases and ``total`` only grows, as each stage learns its size; a
#: front end may draw it (the library never does), and None costs nothing.
Progress: TypeAlias = Callable[[int, int], None]


class _Steps:
    """One running count over a run's stages, for the caller's progress hook.

    Each stage's loop reports its own (done, total); the caller sees those added to the
    items of the stages before. A stage's hook may be made before the stages ahead of it
    have run: it counts from where they ended, when it first reports.
    """

    def __init__(self, hook: Progress | None) -> None:
        self._hook = hook
        self._done = 0

    def stage(self) -> Progress | None:
        """The hook for the next stage, None when nobody listens."""
        hook = self._hook
        if hook is None:
            return None
        start: list[int] = []

        def report(done: int, total: int) -> None:
            if not start:
                start.append(self._done)
            self._done = start[0] + done
            hook(start[0] + done, start[0] + total)

        return report


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The outcome of ``trainc validate``: sorted diagnostics and what was read."""

    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    files: int
    objects: int

    @property
    def exit_code(self) -> int:
        """0 when clean or only warnings, 1 when any error was found."""
        return exit_code(self.diagnostics)


@dataclass(frozen=True, slots=True)
class ConfigResult:
    """The repository config, or the diagnostics that prevented reading it.

    ``document`` is the parsed trainc.yaml, so later findings about its entries (an
    unknown policy name) can point at the line.
    """

    config: RepoConfig | None
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    document: Document | None = None


def load_config(
    *,
    cwd: Path,
    paths: Sequence[Path] = (),
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
) -> ConfigResult:
    """Find the repository root and read its ``trainc.yaml``, if any.

    The root is the repository of ``paths`` (relative to ``cwd``), or of ``cwd`` when
    none are given (see :func:`~trainc.config.find_paths_root`). An explicit
    ``config_file`` sets the root to its directory instead. A missing explicit file is a
    usage error; a malformed one is reported as diagnostics in that file.
    ``overrides`` (an Argo CD Application's choices) adjust the file as
    :func:`~trainc.config.build_config` documents.
    """
    if config_file is not None:
        if not config_file.is_file():
            raise UsageError(f"--config {config_file}: no such file")
        path = config_file.resolve()
        root = path.parent
    else:
        root = find_paths_root(paths, cwd)
        path = root / CONFIG_FILE_NAME
        if not path.is_file():
            config = build_config(
                root, None, config_file=None, environment=environment, overrides=overrides
            )
            return ConfigResult(config, (), {})
    relative = path.relative_to(root).as_posix()
    source, documents, diagnostics = load_single_file(path, relative)
    sources = {relative: source} if source is not None else {}
    if diagnostics:
        return ConfigResult(None, tuple(diagnostics), sources)
    data = documents[0].data if documents else {}
    schema = load_kind_schema("Config")
    cleaned = drop_nulls(data if data is not None else {})
    findings = check_schema(cleaned, schema)
    if findings:
        document = documents[0]
        located = tuple(
            document.finding(f.path, "config.invalid", f.message, hint=f.hint) for f in findings
        )
        return ConfigResult(None, located, sources)
    file = decode(RepoConfigFile, apply_defaults(cleaned, schema))
    config = build_config(
        root, file, config_file=relative, environment=environment, overrides=overrides
    )
    return ConfigResult(config, (), sources, documents[0] if documents else None)


def _validate(
    paths: Sequence[Path],
    loaded_config: ConfigResult,
    config: RepoConfig,
    *,
    base: str | None,
    steps: _Steps,
    builds: _Builds,
    stdin: BinaryIO | None = None,
    on_resolved: OnResolved | None = None,
) -> ValidationReport:
    named = bool(paths) or stdin is not None
    inputs = load_inputs(
        paths if named else [config.root], config=config, stream=stdin, progress=steps.stage()
    )
    # Named paths (and the standard input) are the targets; the rest of the repository is
    # only context, so a TrainJob validated alone (pre-commit) still finds its runtime.
    context = load_context(inputs.sources, config=config) if named else None
    context_objects = _named_runtimes(context.objects, inputs.objects) if context else ()
    policies = load_policies(config, config_document=loaded_config.document)
    base_objects = load_base(base, config=config).objects if base is not None else None
    sweeper = check_sweeper_resources(config, loaded_config.document)
    before = (*inputs.diagnostics, *policies.diagnostics, *sweeper)
    outcome = validate_objects(
        (*inputs.objects, *context_objects),
        config,
        policies,
        base=base_objects,
        context_files=frozenset(context.sources) if context else frozenset(),
        clean=not exit_code(before),
        progress=steps.stage(),
        job_progress=steps.stage(),
        on_resolved=on_resolved,
        check_built=builds.check,
    )
    diagnostics = sort_diagnostics((*before, *outcome.diagnostics))
    shown = {
        path: src
        for path, src in (context.sources if context else {}).items()
        if path not in outcome.hidden
    }
    sources = {**loaded_config.sources, **policies.sources, **shown, **inputs.sources}
    return ValidationReport(diagnostics, sources, inputs.files, len(inputs.objects))


def _named_runtimes(
    runtimes: Sequence[LoadedObject], targets: Sequence[LoadedObject]
) -> tuple[LoadedObject, ...]:
    """The context runtimes whose name a target TrainJob's runtimeRef gives.

    Kind and namespace are left to the runtime index: this only spares validating the
    runtimes no target can use, which is most of them in a pre-commit run.
    """
    named = (get_path(obj.data, ("spec", "runtimeRef", "name")) for obj in targets)
    names = {name for name in named if isinstance(name, str)}
    return tuple(runtime for runtime in runtimes if runtime.name in names)


def _config_failure(loaded_config: ConfigResult) -> ValidationReport:
    """The report of a run that could not read its trainc.yaml."""
    return ValidationReport(
        sort_diagnostics(loaded_config.diagnostics), loaded_config.sources, 1, 0
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
) -> ValidationReport:
    """Validate the given files and directories (the repository root when none).

    Relative ``paths`` are taken from ``cwd``, and the repository is the one they are in
    (see :func:`load_config`). ``stdin``, when given, is read as one more input named
    ``<stdin>`` (``kustomize build DIR | trainc validate -``). ``progress`` hears of every
    file read and object checked (see :data:`Progress`).
    """
    loaded_config = load_config(
        cwd=cwd,
        paths=paths,
        config_file=config_file,
        environment=environment,
        overrides=overrides,
    )
    if loaded_config.config is None:
        return _config_failure(loaded_config)
    config = loaded_config.config
    return _validate(
        [cwd / path for path in paths],
        loaded_config,
        config,
        base=base,
        steps=_Steps(progress),
        builds=_Builds(config),
        stdin=stdin,
    )


@dataclass(frozen=True, slots=True)
class CompileReport:
    """The outcome of ``trainc compile``: diagnostics, and how many TrainJobs were output.

    The output itself went to the sink the caller gave (see
    :mod:`trainc.emit.sinks`), and only when there were no errors: ``jobs`` is 0 then.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    jobs: int = 0

    @property
    def exit_code(self) -> int:
        """0 when the output was produced, 1 when the input has errors."""
        return exit_code(self.diagnostics)


def compile_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    sink: OutputSink,
    stdin: BinaryIO | None = None,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
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
    nothing. The sweeper's objects (trainc.yaml's ``sweeper`` section) belong to no one
    job: they are the sink's shared objects.
    Raises CompilerBug when an object trainc built fails its own output validation:
    that is trainc's fault, never the user's. ``progress`` hears of every file, object
    and job (see :data:`Progress`).
    """
    # What only compile needs (the builders, the emitter, the output check) is imported
    # here and in _Output: validation, the pre-commit hook's command, starts faster.
    from trainc.compiler.sweeper import build_sweeper  # noqa: PLC0415 - compile only

    loaded_config = load_config(
        cwd=cwd,
        paths=paths,
        config_file=config_file,
        environment=environment,
        overrides=overrides,
    )
    config = loaded_config.config
    if config is None:
        report = _config_failure(loaded_config)
        return CompileReport(report, report.diagnostics)
    builds = _Builds(config)
    output = _Output(sink, config, builds)
    try:
        report = _validate(
            [cwd / path for path in paths],
            loaded_config,
            config,
            base=None,
            steps=_Steps(progress),
            builds=builds,
            stdin=stdin,
            on_resolved=output.add,
        )
        if report.exit_code:
            return CompileReport(report, report.diagnostics)
        output.finish(build_sweeper(config, output.swept))
        return CompileReport(report, report.diagnostics, len(output.swept))
    finally:
        output.close()


class _Builds:
    """Each TrainJob's objects, built once: judged on their way into the cluster (validate
    and compile alike, so both give one verdict), then handed to compile's output."""

    def __init__(self, config: RepoConfig) -> None:
        self._server_side = config.compile.server_side_apply
        self._last: tuple[ResolvedJob, BuiltJob] | None = None

    def check(self, job: ResolvedJob) -> list[Diagnostic]:
        """Build ``job`` and report the apply limits its objects break or near."""
        from trainc.compiler.run import build_job  # noqa: PLC0415 - see compile_paths
        from trainc.validate.apply_limits import check_apply_limits  # noqa: PLC0415

        built = build_job(job)
        self._last = (job, built)
        return check_apply_limits(job, built.objects, server_side=self._server_side)

    def take(self, job: ResolvedJob) -> BuiltJob:
        """The objects of ``job``, built by :meth:`check` just before, or now."""
        from trainc.compiler.run import build_job  # noqa: PLC0415 - see compile_paths

        if self._last is not None and self._last[0] is job:
            built = self._last[1]
            self._last = None
            return built
        return build_job(job)


class _Output:
    """The sink of one compile, fed each resolved job while the run is clean.

    The sink is opened on the first job (or at the finish of a compile without jobs), so
    a compile whose input has errors never creates its output location. Once an error
    is found, later jobs are no longer built: the sink is closed without a finish, which
    throws away what it staged.
    """

    def __init__(self, sink: OutputSink, config: RepoConfig, builds: _Builds) -> None:
        from trainc.validate.output import OutputCheck  # noqa: PLC0415 - compile only

        self._sink = sink
        self._config = config
        self._builds = builds
        self._check = OutputCheck(config.kubernetes_version)
        self._opened = False
        self.swept: list[SweptJob] = []

    def add(self, job: ResolvedJob, clean: bool) -> None:  # noqa: FBT001 - OnResolved's shape
        """Build ``job``, check its objects and hand them to the sink, while the run is clean."""
        from trainc.compiler.sweeper import SweptJob  # noqa: PLC0415 - compile only
        from trainc.emit.layout import JobOutput  # noqa: PLC0415 - compile only

        if not clean:
            return
        built = self._builds.take(job)
        self.swept.append(SweptJob.of(built))
        # Validation judged the Jobs of exactly this JobSet spec (the builder copies the
        # resolved one): the output check need not judge them again.
        _check_built(self._check, built.objects, jobs=False)
        self._open()
        self._sink.add_job(JobOutput(built.namespace, built.name, built.objects))

    def finish(self, shared: Sequence[JsonObject]) -> None:
        """Check the shared objects and make the output visible."""
        _check_built(self._check, shared)
        self._open()
        self._sink.finish(shared)

    def close(self) -> None:
        """Release the sink; without :meth:`finish`, its output is discarded."""
        if self._opened:
            self._sink.close()

    def _open(self) -> None:
        if not self._opened:
            self._sink.open(self._config.root, self._config.compile.output)
            self._opened = True


def _check_built(check: OutputCheck, objects: Sequence[JsonObject], *, jobs: bool = True) -> None:
    problems = check.problems(objects, jobs=jobs)
    if problems:
        raise CompilerBug("emitted objects fail validation:\n  " + "\n  ".join(problems))


def write_schemas(directory: Path) -> list[str]:
    """Regenerate CRDs and JSON Schemas under ``directory``; returns what changed."""
    # Imported here: generation loads the Kubernetes definitions, which validation,
    # the frequent command, never needs.
    from trainc.crdgen.files import write_schemas as write  # noqa: PLC0415

    return write(directory)


def check_schemas(directory: Path) -> list[str]:
    """What differs between ``directory`` and freshly generated schemas (empty: current)."""
    from trainc.crdgen.files import check_schemas as check  # noqa: PLC0415 - see write_schemas

    return check(directory)
