"""The loader's entry points: paths (or a git revision) in, trainer objects and findings out.

Every file, from the working tree or from git, takes the same path: bounded read, strict
UTF-8, Jinja2 for ``.j2`` files, YAML with positions, then classification.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, sort_diagnostics
from trainc.errors import UsageError
from trainc.load.discover import discover_files
from trainc.load.documents import Document, LoadedObject
from trainc.load.globs import literal_directory, path_filter
from trainc.load.input_settings import InputSettings
from trainc.load.listings import Listings
from trainc.load.objects import classify_documents
from trainc.load.reader import decode_input, read_file, read_input, read_stream
from trainc.load.runtime_files import runtime_candidates
from trainc.load.seen import Seen
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.kinds import RUNTIME_KINDS
from trainc.records import dataclass

if TYPE_CHECKING:
    from trainc.cache.store import Store
from trainc.diagnostics import Rule, Severity

LOAD_RUNTIME_OUTSIDE_PATHS = Rule(
    "load.runtime-outside-paths",
    Severity.WARNING,
    "a runtime is defined outside inputs.runtimes, where runs on a few files look",
)


#: The suffix of a Jinja2 template input, rendered before it is parsed.
TEMPLATE_SUFFIX = ".j2"
#: ``{{ ... }}`` in a file that is no ``.j2`` template: Helm's or another tool's Go
#: template text, which is YAML only once that tool has rendered it.
_TEMPLATE_TEXT = re.compile(r"\{\{.*\}\}")
_TEMPLATE_HINT = (
    "the file holds template text ({{ ... }}) that only its tool's rendering turns into "
    "YAML: leave it out with inputs.exclude in trainc.yaml, and check what it renders "
    "instead (helm template NAME CHART | trainc validate -)"
)


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What loading produced: objects sorted by (path, document, place in a List), and
    the names of the Namespace objects the files hold, sorted."""

    objects: tuple[LoadedObject, ...]
    sources: Mapping[str, SourceFile]
    diagnostics: tuple[Diagnostic, ...]
    files: int
    namespaces: tuple[str, ...] = ()


#: How diagnostics and sources name the standard input (``trainc validate -``): never a
#: repository path, which is relative and has no angle brackets at its start.
STDIN_NAME = "<stdin>"


def load_inputs(
    paths: Iterable[str | Path],
    *,
    config: InputSettings,
    stream: BinaryIO | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LoadResult:
    """Load the files under ``paths`` (files or directories, relative to the cwd).

    ``stream`` (the standard input of ``trainc validate -``) is read to its end as one
    more input file named :data:`STDIN_NAME`, such as the YAML stream ``kustomize build``
    or ``helm template`` prints: its documents are objects like any file's, and its
    findings count lines from the start of the stream. Raises UsageError for a path that
    does not exist or lies outside ``config.root``.
    """
    found = find_inputs(paths, config=config, stream=stream)
    files = []
    for done, path in enumerate(found.paths, 1):
        files.append(load_file(path, found.read(path), config))
        if progress is not None:
            progress(done, len(found.paths))
    return gather(files, found, config)


@dataclass(frozen=True, slots=True)
class InputFiles:
    """The input files found, in discovery order (the standard input first), and what
    discovery found wrong (a path outside the root, an excluded file named).

    A file is read when asked (:meth:`read`), so a run need not hold every file's bytes
    at once; the standard input, which cannot be read twice, is held.
    """

    paths: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    settings: InputSettings
    stdin: bytes | Diagnostic | None = None
    untracked: tuple[str, ...] = ()
    """Input files left out because git does not track them (see :func:`find_inputs`)."""

    def read(self, path: str) -> bytes | Diagnostic:
        """The bytes of ``path`` within the limits, or why there are none."""
        if path == STDIN_NAME and self.stdin is not None:
            return self.stdin
        return read_input(self.settings.root, path, self.settings.limits)


def find_inputs(
    paths: Iterable[str | Path],
    *,
    config: InputSettings,
    stream: BinaryIO | None = None,
    tracked: Collection[str] | None = None,
) -> InputFiles:
    """Find the input files under ``paths`` (see :func:`load_inputs`); the standard
    input, when given, is read to its end and comes first.

    With ``tracked`` (the files git's index holds, :func:`~.gitref.tracked_files`), a
    file found is an input only when it or a directory above it (a tracked link) is
    tracked: a work-in-progress file nobody added is not part of what a commit judges.
    """
    select = path_filter(config.include, config.exclude)
    found = discover_files(paths, root=config.root, select=select)
    files: list[str] = []
    untracked: list[str] = []
    for path in found.files:
        (files if tracked is None or _tracked(path, tracked) else untracked).append(path)
    head = (STDIN_NAME,) if stream is not None else ()
    stdin = None if stream is None else read_stream(stream, STDIN_NAME, config.limits)
    return InputFiles((*head, *files), tuple(found.diagnostics), config, stdin, tuple(untracked))


def _tracked(path: str, tracked: Collection[str]) -> bool:
    """Whether git tracks ``path`` or a directory above it (a link into the repository)."""
    parts = path.split("/")
    return any("/".join(parts[:depth]) in tracked for depth in range(len(parts), 0, -1))


@dataclass(frozen=True, slots=True)
class FileLoad:
    """One file loaded: its source (None when it could not be decoded), the objects its
    documents hold, the findings of reading, rendering and parsing it, and the names of
    the Namespaces it declares."""

    source: SourceFile | None
    objects: tuple[LoadedObject, ...]
    diagnostics: tuple[Diagnostic, ...]
    namespaces: tuple[str, ...] = ()


def load_file(path: str, data: bytes | Diagnostic, config: InputSettings) -> FileLoad:
    """Decode, render, parse and classify one file's bytes (or say why it has none).

    Depends on nothing but its arguments: a worker process may load a file, and a cache
    may keep the result under the file's path and bytes and ``config``.
    """
    source = _decoded(path, data)
    if isinstance(source, Diagnostic):
        return FileLoad(None, (), (source,))
    if path.endswith(TEMPLATE_SUFFIX):
        # jinja2 is imported only when a template is actually read (startup time).
        from trainc.load.template import render_template  # noqa: PLC0415

        rendered = render_template(path, source.text, config.template_values, config.limits)
        if isinstance(rendered, Diagnostic):
            return FileLoad(source, (), (rendered,))
        source = rendered
    parsed = parse_documents(source, config.limits, skim=True)
    skipped: set[Diagnostic] = set()
    objects: list[LoadedObject] = []
    found: list[Diagnostic] = []
    namespaces: list[str] = []
    for document in parsed.documents:
        classified = classify_documents((document,))
        objects.extend(classified.objects)
        found.extend(classified.diagnostics)
        namespaces.extend(classified.namespaces)
        if not classified.objects and not any(d.is_error for d in classified.diagnostics):
            # A skipped document (an OpenAPI spec with ``200:`` keys, Helm values) is
            # not trainc's to judge; only malformed YAML and bounds fail the run.
            skipped.update(parsed.findings.get(document.index, ()))
    found.extend(d for d in parsed.diagnostics if d not in skipped)
    if source.original is None and _TEMPLATE_TEXT.search(source.text):
        found = [replace(d, hint=_TEMPLATE_HINT) if d.is_error else d for d in found]
    return FileLoad(source, tuple(objects), tuple(found), tuple(namespaces))


def require_stream_documents(files: Iterable[FileLoad]) -> None:
    """Raise UsageError when the standard input held no document at all.

    In ``kustomize build DIR | trainc validate -`` a failed producer prints nothing, and
    a shell pipe reports the exit code of its last command only: an empty stream that
    passed would hide the failure and pass CI having checked nothing. As ``kubectl apply
    -f -`` refuses an empty stream, so does trainc. A stream whose documents are all
    skipped (other kinds) has findings, and is not empty.
    """
    for file in files:
        source = file.source
        if source is None or source.path != STDIN_NAME or file.objects or file.diagnostics:
            continue
        raise UsageError(
            "the standard input (-) holds no Kubernetes objects: when a command feeds it "
            "(kustomize build DIR | trainc validate -), that command printed none, most "
            "likely because it failed, which a shell pipe hides (run it on its own, or "
            "with `set -o pipefail`, to see its error)"
        )


def require_inputs(paths: Sequence[str | Path], found: InputFiles) -> None:
    """Raise UsageError when directories were named and none holds an input file.

    ``trainc validate jobs/`` that finds nothing to read (a typo in ``inputs.include``, a
    directory of ``.yml`` files when only ``.yaml`` is included) would otherwise pass
    CI having checked nothing. A named file that ``inputs.exclude`` leaves out is no
    error: pre-commit names every changed YAML file, CI workflows included. Nor is the
    repository root, named or not: a new repository may hold nothing yet. A run with
    findings about what it left out (a kustomize directory, a link out of the
    repository) reports those instead.
    """
    if not paths or found.paths or found.diagnostics:
        return
    root = found.settings.root
    if any(Path(path).absolute() == root or not Path(path).is_dir() for path in paths):
        return  # the repository named, as when no path is: a new one may hold nothing yet
    named = ", ".join(_shown(Path(path), root) for path in paths)
    raise UsageError(
        f"{named}: no input files, so nothing to check (a directory is searched for files "
        f"matching inputs.include: {', '.join(found.settings.include)})"
    )


def _shown(path: Path, root: Path) -> str:
    """``path`` as the repository names it, or as given when it lies elsewhere."""
    absolute = path.absolute()
    return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)


def gather(files: Iterable[FileLoad], found: InputFiles, config: InputSettings) -> LoadResult:
    """The load of the files ``found``, from each file's :func:`load_file`."""
    loader = _Loader(config)
    loader.diagnostics.extend(found.diagnostics)
    for file in files:
        loader.keep(file)
    loader.diagnostics.extend(_outside_runtime_globs(loader.objects, config))
    return loader.result(len(found.paths))


def load_context(
    skip: Iterable[str],
    *,
    config: InputSettings,
    store: Store | None = None,
    seen: Seen | None = None,
) -> LoadResult:
    """The runtimes defined elsewhere in the repository, for references from named paths.

    When a user (or pre-commit) validates a few files, a TrainJob among them still needs
    its runtime, wherever in the repository that lives (or under ``inputs.runtimes``,
    which spares reading every file of a large repository). Only files that may define a
    runtime are parsed (reading is cheap, parsing is not: see :mod:`.prefilter`), files in
    ``skip`` (the targets) are left out, and the result holds runtimes only: the context
    is for lookup, never reported on. With a cache ``store``, files unchanged since an
    earlier run are not even read (:mod:`.runtime_files`); ``seen`` is what the run has
    seen of the file system (:mod:`.seen`).
    """
    select = path_filter(config.runtimes or config.include, config.exclude)
    walked = _glob_directories(config.root, config.runtimes) if config.runtimes else [config.root]
    seen = seen or Seen()
    # Without inputs.runtimes this is the walk of the clashes' search (.declared): the
    # same globs, the same kept listings.
    listings = None
    if store is not None and not config.runtimes:
        listings = Listings(store, config, since_ns=seen.since_ns)
    found = discover_files(walked, root=config.root, select=select, seen=seen, listings=listings)
    if listings is not None:
        listings.save()
    loader = _Loader(config)
    candidates = runtime_candidates(
        found.files, skip=set(skip), config=config, store=store, seen=seen
    )
    for path, data in candidates:
        loader.add(path, data)
    result = loader.result(0)
    runtimes = tuple(obj for obj in result.objects if obj.kind in RUNTIME_KINDS)
    return LoadResult(runtimes, result.sources, (), 0)


def _glob_directories(root: Path, globs: tuple[str, ...]) -> list[Path]:
    """The existing directories a walk for ``globs`` starts from."""
    directories = (root / literal_directory(glob) for glob in globs)
    return [directory for directory in directories if directory.is_dir()]


def _outside_runtime_globs(
    objects: Iterable[LoadedObject], config: InputSettings
) -> list[Diagnostic]:
    """Warnings for runtimes defined where ``inputs.runtimes`` says runtimes are not.

    The standard input is no place in the repository: a runtime a pipeline brings along
    is where it belongs.
    """
    if not config.runtimes:
        return []
    inside = path_filter(config.runtimes, ())
    return [
        obj.document.finding(
            ("kind",),
            LOAD_RUNTIME_OUTSIDE_PATHS.code,
            f"{obj.kind} {obj.name} is defined outside inputs.runtimes "
            f"({', '.join(config.runtimes)}): a run on a few files will not find it",
            hint="move the file there, or add its path to inputs.runtimes in trainc.yaml",
        )
        for obj in objects
        if obj.kind in RUNTIME_KINDS and obj.path != STDIN_NAME and not inside.selects(obj.path)
    ]


def load_base(ref: str, *, config: InputSettings) -> LoadResult:
    """Load the input files of the whole repository as they were at git revision ``ref``.

    Raises UsageError when the root is not in a git repository or ``ref`` is unknown.
    """
    from trainc.load.gitref import read_revision  # noqa: PLC0415  # only --base runs git

    select = path_filter(config.include, config.exclude)
    revision = read_revision(ref, root=config.root, select=select, limits=config.limits)
    loader = _Loader(config)
    loader.diagnostics.extend(revision.diagnostics)
    for path, data in revision.files:
        loader.add(path, data)
    return loader.result(revision.selected)


def _decoded(path: str, data: bytes | Diagnostic) -> SourceFile | Diagnostic:
    """The file's text as a source, or the finding from reading or decoding it."""
    text = data if isinstance(data, Diagnostic) else decode_input(path, data)
    return text if isinstance(text, Diagnostic) else SourceFile(path=path, text=text)


class SingleFile(NamedTuple):
    """One file read outside discovery (``trainc.yaml``): its source, documents, findings."""

    source: SourceFile | None
    documents: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]


def load_single_file(file: Path, path: str, limits: InputLimits | None = None) -> SingleFile:
    """Read and parse one YAML file with the loader's bounds, reporting it as ``path``.

    For the repository config, which is read before its own limits are known (hence the
    default :class:`InputLimits`); ``source`` is None when the file could not be decoded.
    """
    limits = limits or InputLimits()
    source = _decoded(path, read_file(file, path, limits))
    if isinstance(source, Diagnostic):
        return SingleFile(None, (), (source,))
    parsed = parse_documents(source, limits)
    return SingleFile(source, parsed.documents, parsed.diagnostics)


def load_order(obj: LoadedObject) -> tuple[str, int, tuple[int, int]]:
    """The order of a load's objects: by path, document, then place in a ``List``."""
    return (obj.path, obj.document.index, obj.document.positions.get((), (0, 0)))


class _Loader:
    """Accumulates the sources, objects and findings of one load."""

    def __init__(self, config: InputSettings) -> None:
        self.config = config
        self.objects: list[LoadedObject] = []
        self.sources: dict[str, SourceFile] = {}
        self.diagnostics: list[Diagnostic] = []
        self.namespaces: set[str] = set()

    def add(self, path: str, data: bytes | Diagnostic) -> None:
        """Load one file's bytes (or record why it has none)."""
        self.keep(load_file(path, data, self.config))

    def keep(self, file: FileLoad) -> None:
        """Add what loading one file gave."""
        if file.source is not None:
            self.sources[file.source.path] = file.source
        self.objects.extend(file.objects)
        self.diagnostics.extend(file.diagnostics)
        self.namespaces.update(file.namespaces)

    def result(self, files: int) -> LoadResult:
        objects = sorted(self.objects, key=load_order)
        return LoadResult(
            objects=tuple(objects),
            sources=MappingProxyType(dict(sorted(self.sources.items()))),
            diagnostics=sort_diagnostics(self.diagnostics),
            files=files,
            namespaces=tuple(sorted(self.namespaces)),
        )
