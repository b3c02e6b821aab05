"""The run of a repository: its inputs read and checked file by file, the context that
resolves the named paths' runtimes, the policies and trainc.yaml's own checks, then
every object and TrainJob validated (:mod:`trainc.engine.pipeline`).

Every command that reads the repository runs this, with the job stages it needs
(:class:`~trainc.engine.job_pass.JobStages`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from trainc.cache.packed import PackedStore
from trainc.cache.store import Store
from trainc.checks.namespaces import check_namespaces, known_namespaces
from trainc.checks.webhooks.elsewhere import clash_needles
from trainc.config.judgement import Judgement
from trainc.config.kubernetes_version import check_kubernetes_version
from trainc.config.read import ConfigResult
from trainc.config.rule_codes import check_rule_settings
from trainc.config.settings import RepoConfig
from trainc.config.sweeper import check_sweeper_resources
from trainc.config.warnings import check_config
from trainc.diagnostics import exit_code, sort_diagnostics
from trainc.engine.admission import read_run_cluster
from trainc.engine.cache import Cache, head_key
from trainc.engine.file_pass import check_files
from trainc.engine.job_pass import JobStages, KeptJob
from trainc.engine.left_out import explain_missing_runtimes
from trainc.engine.pipeline import PassChoices, Surroundings, validate_objects
from trainc.engine.progress import Progress, Steps
from trainc.engine.report import ValidationReport
from trainc.load.declared import declared_trainjobs
from trainc.load.discover import repo_path
from trainc.load.documents import LoadedObject
from trainc.load.inputs import (
    InputFiles,
    LoadResult,
    find_inputs,
    gather,
    load_context,
    load_order,
    require_inputs,
    require_stream_documents,
)
from trainc.load.seen import Seen
from trainc.load.source import SourceFile
from trainc.model.json import get_path
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.policy.apply import load_policies
from trainc.policy.files import in_policy_directory, named_policy_files
from trainc.records import dataclass

if TYPE_CHECKING:
    from trainc.checks.transitions.base import BaseRevision  # loaded by --base runs only
    from trainc.engine.spill import SpillFile  # made by runs without a cache only


@dataclass(frozen=True, slots=True)
class Run:
    """One run over a repository whose trainc.yaml was read.

    ``targets`` are the paths named (the repository when none), as the loader reads
    them, and ``stdin`` one more input named ``<stdin>``. ``base`` is the revision
    ``--base`` compares with; ``jobs`` how many processes may check files and judge
    TrainJobs; with a ``cache``, files and TrainJobs whose inputs did not change since a
    run that kept them are not checked again (``docs/cache.md``). Without
    ``untracked``, a run over the whole repository in a git work tree reads only the
    files git tracks (its index): what a commit holds, not a work-in-progress file beside
    it. Named paths are read as named. ``progress`` hears of every file, object and job.
    """

    loaded_config: ConfigResult
    config: RepoConfig
    targets: tuple[Path, ...] = ()
    stdin: BinaryIO | None = None
    base: BaseRevision | None = None
    jobs: int = 1
    cache: Store | None = None
    untracked: bool = True
    progress: Progress | None = None

    @property
    def named(self) -> bool:
        """Whether the run is on named paths (or the standard input) rather than on the
        whole repository; the repository's root named (pre-commit's ``args: [ml]`` for
        a repository in ml/) is the whole repository."""
        root = self.config.root
        return self.stdin is not None or any(repo_path(p, root) != "" for p in self.targets)

    @property
    def named_paths(self) -> tuple[str, ...]:
        """The targets in repository form, as TrainJob files are named (``""`` for the
        root); none: the whole repository. Reading the inputs refused any path outside
        the root before this is asked."""
        named = (repo_path(path, self.config.root) for path in self.targets)
        return tuple(path for path in named if path is not None)


@dataclass(frozen=True, slots=True)
class Validated:
    """A repository's report, and each resolved TrainJob when the run kept them."""

    report: ValidationReport
    kept: tuple[KeptJob, ...] = ()


def validate_repository(run: Run, stages: JobStages) -> Validated:
    """Load the run's inputs and validate them, every layer; ``stages`` says what becomes
    of each TrainJob beyond its checks."""
    with run_cache(run, stages) as cache:
        return validate_with(run, stages, cache)


@contextmanager
def run_cache(run: Run, stages: JobStages) -> Iterator[Cache | None]:
    """The run's cache, if it has one. A run over the whole repository keeps its entries
    in packs and its input files in a stat index (:mod:`trainc.cache.packed`), written
    when the run ends without an exception: a re-run reads and writes what changed."""
    if run.cache is None or run.named:
        yield Cache.for_run(run.cache, run.config) if run.cache is not None else None
        return
    # Only a whole-repository run reads its entries back in bulk (the hook's are few).
    from trainc.cache.collection import collected_again, collection_paused  # noqa: PLC0415

    with collected_again():
        with collection_paused():  # the head's stat index: one record per input file
            key = head_key(run.config, _command_parts(run, stages))
            packed = PackedStore.open(run.cache, key, run.config.root)
        try:
            yield Cache.for_run(packed, run.config)
            packed.finish()
        finally:
            packed.close()


def _command_parts(run: Run, stages: JobStages) -> tuple[str, ...]:
    """What a command makes of a repository, for its head's key: a run with ``--base``
    keeps no verdicts, and must not drop those of the runs without it."""
    output = stages.output.cache_key if stages.output is not None else ""
    based = "base" if run.base is not None else ""
    return ("built" if stages.build else "", "kept" if stages.keep else "", output, based)


def found_inputs(run: Run) -> InputFiles:
    """The run's input files, as discovery finds them."""
    config, named = run.config, run.named
    tracked = None if named or run.untracked else _tracked_files(config.root)
    return find_inputs(
        run.targets if named else [config.root], config=config, stream=run.stdin, tracked=tracked
    )


def validate_with(run: Run, stages: JobStages, run_cache: Cache | None) -> Validated:
    """:func:`validate_repository` with the run's cache (:func:`run_cache`); without
    one, the whole objects behind the outlines wait in a spill file
    (:mod:`trainc.engine.spill`), gone when the run ends."""
    if run_cache is not None:
        return _validate(run, stages, run_cache, None)
    # Imported here: the pre-commit hook runs with a cache and need not import it.
    from trainc.engine.spill import SpillFile  # noqa: PLC0415

    with SpillFile() as spill:
        return _validate(run, stages, None, spill)


def _validate(
    run: Run, stages: JobStages, run_cache: Cache | None, spill: SpillFile | None
) -> Validated:
    """:func:`validate_with`, given where the whole objects wait."""
    config, named, cache = run.config, run.named, run.cache
    steps = Steps(run.progress)
    found = found_inputs(run)
    # A policy directory holds no input files, yet naming it checks its policies.
    named_inputs = [path for path in run.targets if not in_policy_directory(path, config)]
    require_inputs(named_inputs, found)
    files = check_files(
        found, config, cache=run_cache, spill=spill, jobs=run.jobs, progress=steps.stage()
    )
    if run.stdin is not None:
        require_stream_documents(file.load for file in files)
    inputs = gather((file.load for file in files), found, config)
    checked_inputs = sorted(
        (checked for file in files for checked in file.objects),
        key=lambda checked: load_order(checked.loaded),
    )
    # Named paths (and the standard input) are the targets; the rest of the repository is
    # only context, so a TrainJob validated alone (pre-commit) still finds its runtime.
    # The rest of the repository is walked twice (runtimes, then clashes): seen once.
    seen = Seen()
    context = load_context(inputs.sources, config=config, store=cache, seen=seen) if named else None
    context_objects = _named_runtimes(context.objects, inputs.objects) if context else ()
    # Named files' objects still clash with every object of the repository's other files;
    # a stream on the standard input is most often the rendering of those very files.
    declared = None
    if context is not None and run.stdin is None:
        runtimes = (*context.objects, *inputs.objects)
        needles = clash_needles(inputs.objects, runtimes)
        declared = declared_trainjobs(
            needles, skip=inputs.sources, config=config, store=cache, seen=seen
        )
    document = run.loaded_config.document
    policies = load_policies(config, config_document=document)
    settings = check_config(config, document)
    # The cluster's manifests are read over the whole repository, whatever files a run names.
    cluster = read_run_cluster(
        config,
        inputs={**(context.sources if context else {}), **inputs.sources},
        config_document=document,
        named=named,
        namespaces={
            obj.namespace or config.namespace
            for obj in (*(context.objects if context else ()), *inputs.objects)
            if obj.kind == TRAINJOB.kind
        },
    )
    sources = {
        **run.loaded_config.sources,
        **settings.sources,
        **policies.sources,
        **(cluster.sources if cluster else {}),
        **(context.sources if context else {}),
        **inputs.sources,
    }
    judgement = Judgement.for_run(config, sources.values())
    before = judgement(
        (
            *inputs.diagnostics,
            *policies.diagnostics,
            *check_sweeper_resources(config, document),
            *check_rule_settings(config, document),
            *check_kubernetes_version(document),
            *settings.diagnostics,
            *(cluster.diagnostics if cluster else ()),
        )
    )
    surroundings = Surroundings(
        context_files=frozenset(context.sources) if context else frozenset(),
        elsewhere=context.objects if context else (),
        declared=declared,
    )
    choices = PassChoices(
        base=run.base,
        clean=not exit_code(before),
        progress=steps.stage(),
        job_progress=steps.stage(),
        stages=stages,
        jobs=run.jobs,
        cache=run_cache,
        judgement=judgement,
        cluster=cluster,
        spill=spill,
    )
    outcome = validate_objects(
        (*checked_inputs, *context_objects),
        config,
        policies,
        surroundings=surroundings,
        choices=choices,
    )
    known = known_namespaces(config, inputs.namespaces, whole_repository=not named)
    namespaces = judgement(check_namespaces(outcome.objects, known))
    targets = inputs.sources if named else sources
    problems = judgement.problems(targets, _answerable(targets, inputs, named=named))
    found_all = (*before, *outcome.diagnostics, *namespaces, *problems)
    diagnostics = sort_diagnostics(explain_missing_runtimes(found_all, inputs.objects, config))
    sources = {path: src for path, src in sources.items() if path not in outcome.hidden}
    report = ValidationReport(
        diagnostics,
        sources,
        inputs.files,
        len(inputs.objects),
        policy_files=(
            named_policy_files(run.targets, config, policies.sources) if run.targets else 0
        ),
        root=config.root,
        untracked=found.untracked,
    )
    return Validated(report, outcome.kept)


def _tracked_files(root: Path) -> frozenset[str] | None:
    """What git tracks under ``root`` (:func:`~trainc.load.gitref.tracked_files`)."""
    # Only whole-repository runs ask git: a pre-commit run on named files starts faster.
    from trainc.load.gitref import tracked_files  # noqa: PLC0415

    return tracked_files(root)


def _answerable(targets: Mapping[str, SourceFile], inputs: LoadResult, *, named: bool) -> set[str]:
    """The target files whose unused suppressions the run can tell: every one when it
    covers the whole repository. A run on named paths judges only their TrainJobs, so a
    suppression in a runtime may serve a TrainJob it never saw: only the named files
    that define no runtime are answered for."""
    if not named:
        return set(targets)
    runtimes = {obj.path for obj in inputs.objects if obj.kind in RUNTIME_KINDS}
    return set(targets) - runtimes


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
