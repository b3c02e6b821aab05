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
from typing import TYPE_CHECKING, TypeAlias

from trainc.config import Overrides, RepoConfig, build_config, find_repo_root
from trainc.diagnostics import Diagnostic, exit_code, sort_diagnostics
from trainc.errors import CompilerBug, UsageError
from trainc.load.documents import Document, LoadedObject
from trainc.load.inputs import load_base, load_context, load_inputs, load_single_file
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.json import JsonObject, get_path
from trainc.model.kinds import TRAINJOB
from trainc.model.repoconfig import CONFIG_FILE_NAME, RepoConfigFile
from trainc.model.schematree import load_kind_schema
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.objects import DefaultedObject
from trainc.validate.defaults import apply_defaults, drop_nulls
from trainc.validate.policies import load_policies
from trainc.validate.run import validate_objects
from trainc.validate.structural import check_schema

if TYPE_CHECKING:
    from trainc.emit.sinks import OutputSink
    from trainc.validate.output import OutputCheck

# What only compile needs (the builder, the emitter, the output check) is imported in
# the functions that use it: validation, the pre-commit hook's command, starts faster.

#: ``progress(done, total)``, called while a run works through its files, objects and jobs.
#: ``done`` never decreases and ``total`` only grows, as each stage learns its size; a
#: front end may draw it (the library never does), and None costs nothing.
Progress: TypeAlias = Callable[[int, int], None]


class _Steps:
    """One running count over a run's stages, for the caller's progress hook.

    Each stage's loop reports its own (done, total); the caller sees those added to the
    items of the stages before.
    """

    def __init__(self, hook: Progress | None) -> None:
        self._hook = hook
        self._done = 0

    def stage(self) -> Progress | None:
        """The hook for the next stage, None when nobody listens."""
        hook = self._hook
        if hook is None:
            return None
        start = self._done

        def report(done: int, total: int) -> None:
            self._done = start + done
            hook(start + done, start + total)

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
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
) -> ConfigResult:
    """Find the repository root and read its ``trainc.yaml``, if any.

    An explicit ``config_file`` sets the root to its directory. A missing explicit file
    is a usage error; a malformed one is reported as diagnostics in that file.
    ``overrides`` (an Argo CD Application's choices) adjust the file as
    :func:`~trainc.config.build_config` documents.
    """
    if config_file is not None:
        if not config_file.is_file():
            raise UsageError(f"--config {config_file}: no such file")
        path = config_file.resolve()
        root = path.parent
    else:
        root = find_repo_root(cwd)
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


@dataclass(frozen=True, slots=True)
class _Validated:
    """A validation run, with the defaulted objects compile goes on to build."""

    report: ValidationReport
    config: RepoConfig | None
    objects: tuple[DefaultedObject, ...]
    everything: tuple[DefaultedObject, ...] = ()


def _validate(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None,
    environment: str | None,
    overrides: Overrides | None,
    base: str | None,
    steps: _Steps,
) -> _Validated:
    loaded_config = load_config(
        cwd=cwd, config_file=config_file, environment=environment, overrides=overrides
    )
    if loaded_config.config is None:
        report = ValidationReport(
            sort_diagnostics(loaded_config.diagnostics), loaded_config.sources, 1, 0
        )
        return _Validated(report, None, ())
    config = loaded_config.config
    inputs = load_inputs(list(paths) or [config.root], config=config, progress=steps.stage())
    # Named paths are the targets; the rest of the repository is only context, so a
    # TrainJob validated alone (pre-commit) still finds its runtime.
    context = load_context(inputs.sources, config=config) if paths else None
    context_objects = _named_runtimes(context.objects, inputs.objects) if context else ()
    policies = load_policies(config, config_document=loaded_config.document)
    base_objects = load_base(base, config=config).objects if base is not None else None
    outcome = validate_objects(
        (*inputs.objects, *context_objects),
        config,
        policies,
        base=base_objects,
        progress=steps.stage(),
    )
    targets = {obj.path for obj in inputs.objects}
    hidden = (
        set(context.sources) - _used_runtime_files(outcome.objects, targets) if context else set()
    )
    found = (*inputs.diagnostics, *policies.diagnostics, *outcome.diagnostics)
    diagnostics = sort_diagnostics(d for d in found if d.file not in hidden)
    shown = {
        path: src
        for path, src in (context.sources if context else {}).items()
        if path not in hidden
    }
    sources = {**loaded_config.sources, **policies.sources, **shown, **inputs.sources}
    report = ValidationReport(diagnostics, sources, inputs.files, len(inputs.objects))
    objects = tuple(obj for obj in outcome.objects if obj.loaded.path in targets)
    return _Validated(report, config, objects, tuple(outcome.objects))


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


def _used_runtime_files(objects: Sequence[DefaultedObject], targets: set[str]) -> set[str]:
    """Files of the runtimes that TrainJobs in ``targets`` use: their findings concern them."""
    index = RuntimeIndex(objects)
    used = set()
    for obj in objects:
        if obj.kind == TRAINJOB.kind and obj.loaded.path in targets:
            runtime = index.lookup(obj)
            if isinstance(runtime, DefaultedObject):
                used.add(runtime.loaded.path)
    return used


def validate_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    base: str | None = None,
    progress: Progress | None = None,
) -> ValidationReport:
    """Validate the given files and directories (the repository root when none).

    ``progress`` hears of every file read and object checked (see :data:`Progress`).
    """
    return _validate(
        paths,
        cwd=cwd,
        config_file=config_file,
        environment=environment,
        overrides=overrides,
        base=base,
        steps=_Steps(progress),
    ).report


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
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
) -> CompileReport:
    """Validate, then build every TrainJob and the sweeper into ``sink``.

    Each job goes to the sink as soon as it is built and checked, and is let go: a
    compile holds the validated repository, not its output. The sink is opened once the
    input validated without errors and closed in every case; it is finished (the output
    becomes visible) only when the whole compile found no error, so nothing half-valid
    is ever written. The sweeper's objects (trainc.yaml's ``sweeper`` section) belong to
    no one job: they are the sink's shared objects.
    Raises CompilerBug when an object trainc built fails its own output validation:
    that is trainc's fault, never the user's. ``progress`` hears of every file, object
    and job (see :data:`Progress`).
    """
    steps = _Steps(progress)
    validated = _validate(
        paths,
        cwd=cwd,
        config_file=config_file,
        environment=environment,
        overrides=overrides,
        base=None,
        steps=steps,
    )
    config = validated.config
    report = validated.report
    if config is None or report.exit_code:
        return CompileReport(report, report.diagnostics)
    sink.open(config.root, config.compile.output)
    try:
        return _build_into(sink, validated, config, steps.stage())
    finally:
        sink.close()


def _build_into(
    sink: OutputSink, validated: _Validated, config: RepoConfig, progress: Progress | None
) -> CompileReport:
    from trainc.build.run import build_jobs  # noqa: PLC0415 - compile only
    from trainc.build.sweeper import SweptJob, build_sweeper  # noqa: PLC0415 - compile only
    from trainc.emit.layout import JobOutput  # noqa: PLC0415 - compile only
    from trainc.validate.output import OutputCheck  # noqa: PLC0415 - compile only

    check = OutputCheck(config.kubernetes_version)
    found = list(validated.report.diagnostics)  # warnings only: validation passed
    failed = False
    swept: list[SweptJob] = []
    built = build_jobs(
        validated.objects, config.compile, context=validated.everything, progress=progress
    )
    for job in built:
        found.extend(job.diagnostics)
        swept.append(SweptJob.of(job))
        # After an error, building goes on only to report every job's findings.
        failed = failed or bool(exit_code(job.diagnostics))
        if not failed:
            _check_built(check, job.objects)
            sink.add_job(JobOutput(job.namespace, job.name, job.objects))
    sweeper = build_sweeper(config, swept)
    diagnostics = sort_diagnostics((*found, *sweeper.diagnostics))
    if exit_code(diagnostics):
        return CompileReport(validated.report, diagnostics)
    _check_built(check, sweeper.objects)
    sink.finish(sweeper.objects)
    return CompileReport(validated.report, diagnostics, len(swept))


def _check_built(check: OutputCheck, objects: Sequence[JsonObject]) -> None:
    problems = check.problems(objects)
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
