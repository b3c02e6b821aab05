"""What every façade run shares: the repository's config, the validation run over its
inputs, and each TrainJob built once.

What only compile needs (the builders, the emitter, the output check) is imported in the
functions that use it: validation, the pre-commit hook's command, starts faster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeAlias

from trainc.checks.namespaces import check_namespaces, known_namespaces
from trainc.checks.webhooks.elsewhere import clash_needles
from trainc.config.file import CONFIG_FILE_NAME, RepoConfigFile
from trainc.config.judgement import Judgement
from trainc.config.kubernetes_version import check_kubernetes_version
from trainc.config.rule_codes import check_rule_settings
from trainc.config.settings import Overrides, RepoConfig, build_config, find_paths_root
from trainc.config.sweeper import check_sweeper_resources
from trainc.config.warnings import check_config
from trainc.diagnostics import Diagnostic, exit_code, sort_diagnostics
from trainc.engine.cache import Cache
from trainc.engine.file_pass import check_files
from trainc.engine.left_out import explain_missing_runtimes
from trainc.engine.pipeline import Emitter, OnResolved, validate_objects
from trainc.engine.workers import check_jobs, usable_cores
from trainc.errors import UsageError
from trainc.load.declared import declared_trainjobs
from trainc.load.discover import repo_path
from trainc.load.documents import Document, LoadedObject
from trainc.load.inputs import (
    LoadResult,
    find_inputs,
    gather,
    load_base,
    load_context,
    load_order,
    load_single_file,
    require_inputs,
    require_stream_documents,
)
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.json import get_path
from trainc.model.kinds import RUNTIME_KINDS
from trainc.model.schematree import load_kind_schema
from trainc.policy.apply import load_policies
from trainc.policy.files import in_policy_directory, named_policy_files
from trainc.schema.defaults import apply_defaults, drop_nulls
from trainc.schema.structural import check_schema

if TYPE_CHECKING:
    from trainc.build.job import BuiltJob
    from trainc.cache.store import Store
    from trainc.checks.transitions.base import BaseRevision
    from trainc.resolve.resolved import ResolvedJob


#: ``progress(done, total)``, called while a run works through its files, objects and jobs.
#: ``done`` never decreases and ``total`` only grows, as each stage learns its size; a
#: front end may draw it (the library never does), and None costs nothing.
Progress: TypeAlias = Callable[[int, int], None]


class Steps:
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


class ExitCodeFromFindings:
    """A run's exit code from its findings: 0 when none is an error (warnings allowed),
    1 otherwise. Mixed into the report of every command that judges the input."""

    __slots__ = ()
    diagnostics: tuple[Diagnostic, ...]

    @property
    def exit_code(self) -> int:
        """0 when no finding is an error, 1 otherwise."""
        return exit_code(self.diagnostics)


@dataclass(frozen=True, slots=True)
class ValidationReport(ExitCodeFromFindings):
    """The outcome of ``trainc validate``: sorted diagnostics and what was read.

    ``policy_files`` counts the policy files among the named paths, which are checked
    but are no input files.
    """

    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    files: int
    objects: int
    policy_files: int = 0
    root: Path | None = None
    """The repository root the findings' paths are relative to (where trainc.yaml is)."""
    untracked: tuple[str, ...] = ()
    """Input files of the repository left out because git does not track them."""


@dataclass(frozen=True, slots=True)
class ConfigResult:
    """The repository config, or the diagnostics that prevented reading it.

    ``document`` is the parsed trainc.yaml, so later findings about its entries (an
    unknown policy name) can point at the line; ``root`` is the repository root, which
    the findings' paths are relative to.
    """

    config: RepoConfig | None
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    document: Document | None = None
    root: Path | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """The repository a command is asked about: ``paths``, relative to ``cwd`` (the
    repository when none), and how to read its trainc.yaml (see :func:`load_config`)."""

    paths: Sequence[Path]
    cwd: Path
    config_file: Path | None = None
    environment: str | None = None
    overrides: Overrides | None = None

    def open(self) -> ConfigResult:
        """The repository's root and configuration."""
        return load_config(
            cwd=self.cwd,
            paths=self.paths,
            config_file=self.config_file,
            environment=self.environment,
            overrides=self.overrides,
        )

    @property
    def targets(self) -> list[Path]:
        """The paths as the loader reads them, wherever the process runs."""
        return [self.cwd / path for path in self.paths]


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
    none are given (see :func:`~trainc.config.settings.find_paths_root`). An explicit
    ``config_file`` sets the root to its directory instead. A missing explicit file is a
    usage error; a malformed one is reported as diagnostics in that file.
    ``overrides`` (an Argo CD Application's choices) adjust the file as
    :func:`~trainc.config.settings.build_config` documents.
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
            return ConfigResult(config, (), {}, root=root)
    relative = path.relative_to(root).as_posix()
    source, documents, diagnostics = load_single_file(path, relative)
    sources = {relative: source} if source is not None else {}
    if diagnostics:
        return ConfigResult(None, tuple(diagnostics), sources, root=root)
    data = documents[0].data if documents else {}
    schema = load_kind_schema("Config")
    cleaned = drop_nulls(data if data is not None else {})
    findings = check_schema(cleaned, schema)
    if findings:
        document = documents[0]
        located = tuple(
            document.finding(f.path, "config.invalid", f.message, hint=f.hint) for f in findings
        )
        return ConfigResult(None, located, sources, root=root)
    file = decode(RepoConfigFile, apply_defaults(cleaned, schema))
    config = build_config(
        root, file, config_file=relative, environment=environment, overrides=overrides
    )
    return ConfigResult(config, (), sources, documents[0] if documents else None, root)


def run_validation(
    paths: Sequence[Path],
    loaded_config: ConfigResult,
    config: RepoConfig,
    *,
    base: BaseRevision | None,
    steps: Steps,
    builds: Builds,
    stdin: BinaryIO | None = None,
    on_resolved: OnResolved | None = None,
    emitter: Emitter[Any] | None = None,
    jobs: int = 1,
    cache: Store | None = None,
    untracked: bool = True,
) -> ValidationReport:
    """Load ``paths`` (the repository when none, plus ``stdin``) and validate them.

    The shared run of every command: the inputs, the context that resolves the named
    paths' runtimes, the policies and the repository settings, then every validation
    layer; ``builds`` builds each sound job once, ``on_resolved`` hears of each resolved
    TrainJob. With a ``cache``, files and TrainJobs whose inputs did not change since a
    run that kept them are not checked again (``docs/cache.md``). Without ``untracked``,
    a run over the whole repository in a git work tree reads only the files git tracks
    (its index): what a commit holds, not a work-in-progress file beside it. Named paths
    are read as named.
    """
    # The repository's root named (pre-commit's ``args: [ml]`` for a repository in ml/)
    # is the whole repository.
    named = stdin is not None or any(repo_path(path, config.root) != "" for path in paths)
    run_cache = Cache.for_run(cache, config) if cache is not None else None
    tracked = None if named or untracked else _tracked_files(config.root)
    found = find_inputs(
        paths if named else [config.root], config=config, stream=stdin, tracked=tracked
    )
    # A policy directory holds no input files, yet naming it checks its policies.
    require_inputs([path for path in paths if not in_policy_directory(path, config)], found)
    files = check_files(found, config, cache=run_cache, jobs=jobs, progress=steps.stage())
    if stdin is not None:
        require_stream_documents(file.load for file in files)
    inputs = gather((file.load for file in files), found, config)
    checked_inputs = sorted(
        (checked for file in files for checked in file.objects),
        key=lambda checked: load_order(checked.loaded),
    )
    # Named paths (and the standard input) are the targets; the rest of the repository is
    # only context, so a TrainJob validated alone (pre-commit) still finds its runtime.
    context = load_context(inputs.sources, config=config, store=cache) if named else None
    context_objects = _named_runtimes(context.objects, inputs.objects) if context else ()
    # Named files' objects still clash with every object of the repository's other files;
    # a stream on the standard input is most often the rendering of those very files.
    declared = None
    if context is not None and stdin is None:
        runtimes = (*context.objects, *inputs.objects)
        needles = clash_needles(inputs.objects, runtimes)
        declared = declared_trainjobs(needles, skip=inputs.sources, config=config)
    policies = load_policies(config, config_document=loaded_config.document)
    sweeper = check_sweeper_resources(config, loaded_config.document)
    rules = check_rule_settings(config, loaded_config.document)
    version = check_kubernetes_version(loaded_config.document)
    settings = check_config(config, loaded_config.document)
    sources = {
        **loaded_config.sources,
        **settings.sources,
        **policies.sources,
        **(context.sources if context else {}),
        **inputs.sources,
    }
    judgement = Judgement.for_run(config, sources.values())
    before = judgement(
        (
            *inputs.diagnostics,
            *policies.diagnostics,
            *sweeper,
            *rules,
            *version,
            *settings.diagnostics,
        )
    )
    outcome = validate_objects(
        (*checked_inputs, *context_objects),
        config,
        policies,
        base=base,
        context_files=frozenset(context.sources) if context else frozenset(),
        elsewhere=context.objects if context else (),
        declared=declared,
        clean=not exit_code(before),
        progress=steps.stage(),
        job_progress=steps.stage(),
        on_resolved=on_resolved,
        check_built=builds.check,
        emitter=emitter,
        jobs=jobs,
        cache=run_cache,
        judgement=judgement,
    )
    known = known_namespaces(config, inputs.namespaces, whole_repository=not named)
    namespaces = judgement(check_namespaces(outcome.objects, known))
    targets = inputs.sources if named else sources
    problems = judgement.problems(targets, _answerable(targets, inputs, named=named))
    found_all = (*before, *outcome.diagnostics, *namespaces, *problems)
    diagnostics = sort_diagnostics(explain_missing_runtimes(found_all, inputs.objects, config))
    sources = {path: src for path, src in sources.items() if path not in outcome.hidden}
    return ValidationReport(
        diagnostics,
        sources,
        inputs.files,
        len(inputs.objects),
        policy_files=named_policy_files(paths, config, policies.sources) if paths else 0,
        root=config.root,
        untracked=found.untracked,
    )


def _answerable(targets: Mapping[str, SourceFile], inputs: LoadResult, *, named: bool) -> set[str]:
    """The target files whose unused suppressions the run can tell: every one when it
    covers the whole repository. A run on named paths judges only their TrainJobs, so a
    suppression in a runtime may serve a TrainJob it never saw: only the named files
    that define no runtime are answered for."""
    if not named:
        return set(targets)
    runtimes = {obj.path for obj in inputs.objects if obj.kind in RUNTIME_KINDS}
    return set(targets) - runtimes


def _tracked_files(root: Path) -> frozenset[str] | None:
    """What git tracks under ``root`` (:func:`~trainc.load.gitref.tracked_files`)."""
    # Only whole-repository runs ask git: a pre-commit run on named files starts faster.
    from trainc.load.gitref import tracked_files  # noqa: PLC0415

    return tracked_files(root)


def base_revision(ref: str, config: RepoConfig) -> BaseRevision:
    """The repository at git revision ``ref``, for ``--base`` runs."""
    # Only --base runs compare with a revision: loaded here, not by every run.
    from trainc.checks.transitions.base import BaseRevision  # noqa: PLC0415

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


def named_paths(targets: Sequence[Path], *, root: Path) -> tuple[str, ...]:
    """The command line's ``targets`` in repository form, as TrainJob files are named
    (``""`` for the root); none: the whole repository. Reading the inputs refused any
    path outside ``root`` before this is asked."""
    named = (repo_path(path, root) for path in targets)
    return tuple(path for path in named if path is not None)


def config_failure(loaded_config: ConfigResult) -> ValidationReport:
    """The report of a run that could not read its trainc.yaml."""
    return ValidationReport(
        sort_diagnostics(loaded_config.diagnostics),
        loaded_config.sources,
        1,
        0,
        root=loaded_config.root,
    )


def worker_count(jobs: int | None) -> int:
    """The worker processes a run may use: ``jobs``, or every usable core."""
    return usable_cores() if jobs is None else check_jobs(jobs)


class Builds:
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
        from trainc.build.job import build_job  # noqa: PLC0415 - see compile_paths
        from trainc.checks.apply_limits import check_apply_limits  # noqa: PLC0415

        built = build_job(job)
        self._last = (job, built)
        if self._keep:
            self.kept.append((job, built))
        return check_apply_limits(job, built.objects, server_side=self._server_side)

    def take(self, job: ResolvedJob) -> BuiltJob:
        """The objects of ``job``, built by :meth:`check` just before, or now."""
        from trainc.build.job import build_job  # noqa: PLC0415 - see compile_paths

        if self._last is not None and self._last[0] is job:
            built = self._last[1]
            self._last = None
            return built
        return build_job(job)
