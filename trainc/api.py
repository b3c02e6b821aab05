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
    from trainc.emit.layout import JobOutput

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
    """The outcome of ``trainc compile``: diagnostics, and the output when there are no errors.

    The output is rendered on demand, in the form the caller wants: ``files`` (the
    directory layout) or ``stream`` (one YAML stream). Rendering YAML is the costliest
    step of a compile, so a run pays only for the form it writes. Both are empty when any
    error was found, so nothing half-valid is ever written.
    """

    validation: ValidationReport
    diagnostics: tuple[Diagnostic, ...]
    jobs: tuple[JobOutput, ...] = ()
    shared: tuple[JsonObject, ...] = ()
    root: Path | None = None
    default_output: str | None = None

    @property
    def exit_code(self) -> int:
        """0 when the output was produced, 1 when the input has errors."""
        return exit_code(self.diagnostics)

    @property
    def files(self) -> Mapping[str, bytes]:
        """Output path → bytes: one file per TrainJob, shared files, kustomization.yaml."""
        from trainc.emit.layout import layout  # noqa: PLC0415 - compile only

        return layout(self.jobs, self.shared) if self.jobs or self.shared else {}

    @property
    def stream(self) -> str:
        """Every object as one YAML stream in canonical order, for ``-o -``."""
        from trainc.emit.layout import render_stream  # noqa: PLC0415 - compile only
        from trainc.emit.order import sort_objects  # noqa: PLC0415 - compile only

        objects = [*(obj for job in self.jobs for obj in job.objects), *self.shared]
        return render_stream(sort_objects(objects))

    @property
    def output_directory(self) -> Path | None:
        """trainc.yaml's ``compile.output``, resolved against the repository root."""
        if self.default_output is None or self.root is None:
            return None
        return self.root / self.default_output


def compile_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
    progress: Progress | None = None,
) -> CompileReport:
    """Validate, then build every TrainJob and the sweeper; output only when nothing is in error.

    The sweeper's objects (trainc.yaml's ``sweeper`` section) belong to no one job: they
    go to the layout's shared files and into the stream.
    Raises CompilerBug when an object trainc built fails its own output validation:
    that is trainc's fault, never the user's. ``progress`` hears of every file, object
    and job (see :data:`Progress`).
    """
    from trainc.build.run import build_all  # noqa: PLC0415 - compile only
    from trainc.build.sweeper import build_sweeper  # noqa: PLC0415 - compile only
    from trainc.emit.layout import JobOutput  # noqa: PLC0415 - compile only
    from trainc.validate.output import check_output  # noqa: PLC0415 - compile only

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
    built = build_all(
        validated.objects, config.compile, context=validated.everything, progress=steps.stage()
    )
    # The loaded and defaulted inputs are no longer needed (the report keeps the sources
    # for its findings): let them go before the output is checked and rendered, which
    # is when a compile holds the most memory.
    del validated
    sweeper = build_sweeper(config, built.jobs)
    diagnostics = sort_diagnostics((*report.diagnostics, *built.diagnostics, *sweeper.diagnostics))
    if exit_code(diagnostics):
        return CompileReport(report, diagnostics)
    objects = [*(obj for job in built.jobs for obj in job.objects), *sweeper.objects]
    problems = check_output(objects, kubernetes_version=config.kubernetes_version)
    if problems:
        raise CompilerBug("emitted objects fail validation:\n  " + "\n  ".join(problems))
    return CompileReport(
        validation=report,
        diagnostics=diagnostics,
        jobs=tuple(JobOutput(job.namespace, job.name, job.objects) for job in built.jobs),
        shared=tuple(sweeper.objects),
        root=config.root,
        default_output=config.compile.output,
    )


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
