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
from typing import TYPE_CHECKING, Any, BinaryIO, TypeAlias

from trainc.config import Overrides, RepoConfig, build_config, find_paths_root
from trainc.diagnostics import Diagnostic, exit_code, sort_diagnostics
from trainc.errors import CompilerBug, UsageError
from trainc.load.documents import Document, LoadedObject
from trainc.load.inputs import load_base, load_context, load_inputs, load_single_file
from trainc.load.limits import Limits
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.json import JsonObject, get_path
from trainc.model.repoconfig import CONFIG_FILE_NAME, RepoConfigFile
from trainc.model.schematree import load_kind_schema
from trainc.validate.config_warnings import check_config
from trainc.validate.defaults import apply_defaults, drop_nulls
from trainc.validate.metadata import domain_prefixed_path_errors
from trainc.validate.policies import load_policies
from trainc.validate.rule_settings import check_rule_settings
from trainc.validate.run import Emitter, OnResolved, validate_objects
from trainc.validate.structural import check_schema
from trainc.validate.sweeper import check_sweeper_resources
from trainc.validate.workers import check_jobs, usable_cores

if TYPE_CHECKING:
    from trainc.compiler.run import BuiltJob
    from trainc.compiler.sweeper import SweptJob
    from trainc.emit.sinks import OutputSink
    from trainc.migrate.document import FileMigration, LeftAsIs
    from trainc.resolve.resolved import ResolvedJob
    from trainc.review.changes import Emitted, ObjectChange
    from trainc.review.explain import ExplainedObject, FieldHistory
    from trainc.validate.base import BaseRevision
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
    base: BaseRevision | None,
    steps: _Steps,
    builds: _Builds,
    stdin: BinaryIO | None = None,
    on_resolved: OnResolved | None = None,
    emitter: Emitter[Any] | None = None,
    jobs: int = 1,
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
    sweeper = check_sweeper_resources(config, loaded_config.document)
    rules = check_rule_settings(config, loaded_config.document)
    settings = check_config(config, loaded_config.document)
    before = (
        *inputs.diagnostics,
        *policies.diagnostics,
        *sweeper,
        *rules,
        *settings.diagnostics,
    )
    outcome = validate_objects(
        (*inputs.objects, *context_objects),
        config,
        policies,
        base=base,
        context_files=frozenset(context.sources) if context else frozenset(),
        elsewhere=context.objects if context else (),
        clean=not exit_code(before),
        progress=steps.stage(),
        job_progress=steps.stage(),
        on_resolved=on_resolved,
        check_built=builds.check,
        emitter=emitter,
        jobs=jobs,
    )
    diagnostics = sort_diagnostics((*before, *outcome.diagnostics))
    shown = {
        path: src
        for path, src in (context.sources if context else {}).items()
        if path not in outcome.hidden
    }
    sources = {
        **loaded_config.sources,
        **settings.sources,
        **policies.sources,
        **shown,
        **inputs.sources,
    }
    return ValidationReport(diagnostics, sources, inputs.files, len(inputs.objects))


def _base_revision(ref: str, config: RepoConfig) -> BaseRevision:
    """The repository at git revision ``ref``, for ``--base`` runs."""
    # Only --base runs compare with a revision: loaded here, not by every run.
    from trainc.validate.base import BaseRevision  # noqa: PLC0415

    return BaseRevision(load_base(ref, config=config).objects, config)


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
    jobs: int | None = None,
) -> ValidationReport:
    """Validate the given files and directories (the repository root when none).

    Relative ``paths`` are taken from ``cwd``, and the repository is the one they are in
    (see :func:`load_config`). ``stdin``, when given, is read as one more input named
    ``<stdin>`` (``kustomize build DIR | trainc validate -``). ``progress`` hears of every
    file read and object checked (see :data:`Progress`). ``jobs`` is how many processes
    may judge the TrainJobs (default: the usable cores; a small repository stays in one,
    see :mod:`trainc.validate.workers`); the report is the same whatever it is. Raises
    UsageError when ``jobs`` is below 1.
    """
    workers = _jobs(jobs)
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
        base=_base_revision(base, config) if base is not None else None,
        steps=_Steps(progress),
        builds=_Builds(config),
        stdin=stdin,
        jobs=workers,
    )


def _jobs(jobs: int | None) -> int:
    """The worker processes a run may use: ``jobs``, or every usable core."""
    return usable_cores() if jobs is None else check_jobs(jobs)


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
    sink: OutputSink[Any],
    stdin: BinaryIO | None = None,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
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
    that is trainc's fault, never the user's. ``progress`` hears of every file, object
    and job (see :data:`Progress`). ``jobs`` is how many processes may resolve, check,
    build and render the TrainJobs, as for :func:`validate_paths`: the output, byte for
    byte, and the diagnostics are the same whatever it is.
    """
    # What only compile needs (the builders, the emitter, the output check) is imported
    # here and in _Output: validation, the pre-commit hook's command, starts faster.
    from trainc.compiler.namespaces import build_namespaces  # noqa: PLC0415 - compile only
    from trainc.compiler.sweeper import build_sweeper  # noqa: PLC0415 - compile only

    workers = _jobs(jobs)
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
            emitter=output,
            jobs=workers,
        )
        if report.exit_code:
            return CompileReport(report, report.diagnostics)
        sweeper = build_sweeper(config, output.swept)
        output.finish((*build_namespaces(config, output.swept, sweeper), *sweeper))
        return CompileReport(report, report.diagnostics, len(output.swept))
    finally:
        output.close()


class _Builds:
    """Each TrainJob's objects, built once: judged on their way into the cluster (validate
    and compile alike, so both give one verdict), then handed to compile's output.

    With ``keep``, every job built is also kept in :attr:`kept` with its resolved job
    (``trainc diff`` compares whole outputs, ``trainc explain`` traces them).
    """

    def __init__(self, config: RepoConfig, *, keep: bool = False) -> None:
        self._server_side = config.compile.server_side_apply
        self._last: tuple[ResolvedJob, BuiltJob] | None = None
        self._keep = keep
        self.kept: list[tuple[ResolvedJob, BuiltJob]] = []

    def check(self, job: ResolvedJob) -> list[Diagnostic]:
        """Build ``job`` and report the apply limits its objects break or near."""
        from trainc.compiler.run import build_job  # noqa: PLC0415 - see compile_paths
        from trainc.validate.apply_limits import check_apply_limits  # noqa: PLC0415

        built = build_job(job)
        self._last = (job, built)
        if self._keep:
            self.kept.append((job, built))
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
    """The sink of one compile, fed each resolved job while the run is clean: the
    :class:`~trainc.validate.run.Emitter` of a compile.

    Each job is built, checked and rendered where it was judged (a worker process of a
    big run), and the rendered output handed to the sink here, in order. The sink is
    opened on the first job (or at the finish of a compile without jobs), so a compile
    whose input has errors never creates its output location. Once an error is found,
    later jobs are no longer handed on: the sink is closed without a finish, which
    throws away what it staged.
    """

    def __init__(self, sink: OutputSink[Any], config: RepoConfig, builds: _Builds) -> None:
        from trainc.validate.output import OutputCheck  # noqa: PLC0415 - compile only

        self._sink = sink
        self._config = config
        self._builds = builds
        self._check = OutputCheck(config.kubernetes_version)
        self._opened = False
        self.swept: list[SweptJob] = []

    def make(self, job: ResolvedJob) -> tuple[SweptJob, object]:
        """Build ``job``, check its objects and render them as the sink keeps them.

        Runs where the job was judged, a worker process included: only the summary the
        sweeper needs and the rendered output come back.
        """
        from trainc.compiler.sweeper import SweptJob  # noqa: PLC0415 - compile only
        from trainc.emit.layout import JobOutput  # noqa: PLC0415 - compile only

        built = self._builds.take(job)
        # Validation judged the Jobs of exactly this JobSet spec (the builder copies the
        # resolved one): the output check need not judge them again.
        _check_built(self._check, built.objects, jobs=False)
        rendered = self._sink.render(JobOutput(built.namespace, built.name, built.objects))
        return SweptJob.of(built), rendered

    def take(self, made: tuple[SweptJob, object]) -> None:
        """Hand the next clean job's rendered output to the sink, in order."""
        swept, rendered = made
        self.swept.append(swept)
        self._open()
        self._sink.add(rendered)

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


@dataclass(frozen=True, slots=True)
class DiffReport:
    """The outcome of ``trainc diff``: diagnostics, and what the edit does to the cluster.

    ``changes`` is empty when the working tree has errors of its own: it would not
    compile, so there is nothing to show. Errors that exist only against the base
    revision (an update the API server refuses to apply in place) flag the changes.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    changes: tuple[ObjectChange, ...]

    @property
    def exit_code(self) -> int:
        """1 when the working tree has errors (refused updates included), else 0."""
        return exit_code(self.diagnostics)


def diff_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    base: str,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
) -> DiffReport:
    """Compile the TrainJobs in ``paths`` (default: the repository) at git revision
    ``base`` and in the working tree, in memory, and compare the two outputs.

    The working tree is validated as ``validate --base`` validates it. At ``base``, a
    TrainJob counts as deployed when it resolved cleanly there (as ``--base`` compares
    JobSets); both sides are built with the current configuration. With ``paths``, only
    the TrainJobs of those files are compared, and the sweeper's objects (which depend
    on every job of the repository) are left out.
    """
    from trainc.compiler.run import build_job  # noqa: PLC0415 - compile only
    from trainc.review.changes import compare  # noqa: PLC0415 - diff only

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
        return DiffReport(report, report.diagnostics, ())
    revision = _base_revision(base, config)
    builds = _Builds(config, keep=True)
    report = _validate(
        [cwd / path for path in paths],
        loaded_config,
        config,
        base=revision,
        steps=_Steps(progress),
        builds=builds,
    )
    if any(d.is_error and not revision.reported(d) for d in report.diagnostics):
        return DiffReport(report, report.diagnostics, ())
    selected = _under(paths, cwd=cwd, root=config.root)
    before = [build_job(job) for job in revision.deployed_jobs()]
    changes = compare(
        _emitted(config, [job for job in before if selected(job.source)], shared=not paths),
        _emitted(config, [built for _, built in builds.kept], shared=not paths),
        lambda owner: [_reason(d) for d in revision.refusals(*owner.split("/", 1))],
    )
    return DiffReport(report, report.diagnostics, changes)


def _reason(refusal: Diagnostic) -> str:
    """A refused update in one line: the object's field and what the API server says."""
    if refusal.field_path is None or refusal.field_path in refusal.message:
        return refusal.message
    return f"{refusal.kind} {refusal.field_path}: {refusal.message}"


def _emitted(config: RepoConfig, jobs: Sequence[BuiltJob], *, shared: bool) -> Emitted:
    """What compile emits for ``jobs``: their objects and, with ``shared``, the sweeper's."""
    from trainc.compiler.sweeper import SweptJob, build_sweeper  # noqa: PLC0415 - compile only
    from trainc.review.changes import Emitted  # noqa: PLC0415 - diff only

    sweeper = build_sweeper(config, [SweptJob.of(job) for job in jobs]) if shared else ()
    return Emitted({f"{job.namespace}/{job.name}": job.objects for job in jobs}, sweeper)


def _under(paths: Sequence[Path], *, cwd: Path, root: Path) -> Callable[[str], bool]:
    """Whether a repository-relative file lies under one of ``paths`` (all, with none)."""
    if not paths:
        return lambda source: True
    # Reading the working tree refused paths outside the root before this is asked.
    absolute = [(cwd / path).resolve() for path in paths]
    prefixes = [path.relative_to(root).as_posix() for path in absolute if path.is_relative_to(root)]
    if "." in prefixes:
        return lambda source: True
    return lambda source: any(
        source == prefix or source.startswith(prefix + "/") for prefix in prefixes
    )


@dataclass(frozen=True, slots=True)
class ExplainReport:
    """The outcome of ``trainc explain``: diagnostics, and the compiled objects with the
    origin of each line, or the history of the one field asked for."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    objects: tuple[ExplainedObject, ...] = ()
    fields: tuple[FieldHistory, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when the input has errors, else 0."""
        return exit_code(self.diagnostics)


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
    from trainc.review.explain import SelectionError, select  # noqa: PLC0415 - explain only

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
        return ExplainReport(report, report.diagnostics)
    builds = _Builds(config, keep=True)
    report = _validate(
        [cwd / path for path in paths],
        loaded_config,
        config,
        base=None,
        steps=_Steps(None),
        builds=builds,
    )
    if not builds.kept:
        return ExplainReport(report, report.diagnostics)
    try:
        selection = select(builds.kept, object_name=object_name, field=field)
    except SelectionError as error:
        raise UsageError(str(error)) from None
    return ExplainReport(report, report.diagnostics, selection.objects, selection.fields)


@dataclass(frozen=True, slots=True)
class TrainJobSource:
    """Where git holds one TrainJob: its identity in the cluster, its file, and the
    document as read, to find it again in that file."""

    namespace: str
    name: str
    file: str
    document: JsonObject


@dataclass(frozen=True, slots=True)
class SourcesReport:
    """The TrainJobs of a repository that compile, or the findings that stop it; the
    repository root and the loader's limits, to read the files again."""

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    root: Path
    limits: Limits
    trainjobs: tuple[TrainJobSource, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when the input has errors, else 0."""
        return exit_code(self.diagnostics)


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
        return SourcesReport(report, report.diagnostics, cwd, Limits())
    found: list[TrainJobSource] = []

    def keep(job: ResolvedJob, clean: bool) -> None:  # noqa: FBT001 - OnResolved's shape
        loaded = job.trainjob.loaded
        found.append(TrainJobSource(job.namespace, job.name, loaded.path, loaded.data))

    report = _validate(
        [cwd / path for path in paths],
        loaded_config,
        config,
        base=None,
        steps=_Steps(None),
        builds=_Builds(config),
        on_resolved=keep,
    )
    found_in = (report, report.diagnostics, config.root, config.limits)
    return SourcesReport(*found_in, () if report.exit_code else tuple(found))


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


#: The runtimePatches manager ``trainc migrate`` names the entries it writes, as kubectl
#: names its field manager after itself: the entry says which tool wrote it.
MIGRATE_MANAGER = "trainc.dev/migrate"


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """The outcome of ``trainc migrate``: each file with old spellings, before and after.

    ``files`` holds every file that changes or keeps a finding, in path order;
    ``diagnostics`` what stopped the run before any file was read (a bad trainc.yaml).
    """

    files: tuple[FileMigration, ...]
    written: bool
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def changed(self) -> tuple[FileMigration, ...]:
        """The files whose text changes (or changed, when written)."""
        return tuple(file for file in self.files if file.changed)

    @property
    def left(self) -> tuple[LeftAsIs, ...]:
        """The findings no rewrite resolves, with why, in file order."""
        return tuple(item for file in self.files for item in file.left)

    def diff(self) -> str:
        """The change as a unified diff, file by file in path order."""
        from trainc.migrate.diff import unified_diff  # noqa: PLC0415 - migrate only

        return unified_diff(self.files)

    @property
    def exit_code(self) -> int:
        """1 when a file would change (not written) or a finding needs a person, else 0."""
        pending = bool(self.changed) and not self.written
        return 1 if pending or self.left or exit_code(self.diagnostics) else 0


def migrate_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None = None,
    manager: str = MIGRATE_MANAGER,
    write: bool = False,
) -> MigrationReport:
    """Rewrite old spellings in the given files and directories (the repository when none).

    Without ``write`` nothing is written: the report holds each file's new text. With it,
    each changed file is replaced atomically (:mod:`trainc.emit.replace`). ``manager``
    names the runtimePatches entry that old overrides, labels and annotations become.
    Raises UsageError for an invalid manager.
    """
    from trainc.emit.replace import ChangedMeanwhile, replace_text  # noqa: PLC0415
    from trainc.migrate.run import migrate_checked  # noqa: PLC0415 - migrate only

    problems = domain_prefixed_path_errors(manager)
    if problems:
        raise UsageError(f"--manager {manager}: {'; '.join(problems)}")
    loaded_config = load_config(cwd=cwd, paths=paths, config_file=config_file)
    config = loaded_config.config
    if config is None:
        return MigrationReport((), written=False, diagnostics=loaded_config.diagnostics)
    inputs = load_inputs([cwd / path for path in paths] or [config.root], config=config)
    context = load_context(inputs.sources, config=config) if paths else None
    policies = load_policies(config, config_document=loaded_config.document)
    files = migrate_checked(
        inputs, context.objects if context else (), config, policies, manager=manager
    )
    if write:
        for file in files:
            if file.changed:
                try:
                    replace_text(config.root / file.path, file.before, file.after)
                except ChangedMeanwhile as error:
                    raise UsageError(f"{file.path} changed while trainc migrate ran") from error
    return MigrationReport(files, written=write)
