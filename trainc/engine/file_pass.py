"""Each input file read and its objects checked on their own: the per-file half of a run.

Loading a file and checking each of its objects against its schema, defaults and CEL
rules (:func:`~trainc.schema.layers.check_document`) needs nothing but the file and the
run's settings, so it is the unit both of the cache (a file whose bytes did not change is
not read again) and of the worker processes (a big run checks its files on every core).
Results come back in the files' order: the run is the one a single process makes.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.keys import digest as content_digest
from trainc.checks.webhooks.cross_object import check_trainjob, document_order
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.engine.cache import FILES, WHOLES, Cache, ObjectKeys
from trainc.engine.outlines import can_outline, outline, share_strings
from trainc.engine.progress import Progress
from trainc.engine.workers import ordered, workers_for
from trainc.errors import CompilerBug, UsageError
from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.load.inputs import STDIN_NAME, FileLoad, InputFiles, load_file
from trainc.load.pathnames import os_name
from trainc.load.prefilter import may_define_runtime
from trainc.load.reader import read_input
from trainc.load.source import SourceFile
from trainc.load.suppressions import MARKER
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.records import dataclass
from trainc.resolve.index import RuntimeIndex
from trainc.schema.layers import check_document

if TYPE_CHECKING:
    from trainc.engine.spill import Spilled, SpillFile  # the run makes one without a cache only


@dataclass(frozen=True, slots=True)
class Whole:
    """Where the whole of an outlined object is: the pickle of its file's check in the
    run's spill file when no cache keeps it (``spilled``, :mod:`trainc.engine.spill`),
    else the cache entry ``key``; and the file itself (its path, and the digest of the
    bytes checked), read and checked again when neither is there. ``data`` holds the
    bytes of a file that cannot be read again (the standard input).

    It is what a worker judging the object is sent (:mod:`trainc.engine.job_pass`): a
    few short strings, where the outline is a tree of the run's own objects."""

    path: str
    digest: str
    ordinal: int
    key: str | None = None
    spilled: Spilled | None = None
    data: bytes | None = None


@dataclass(frozen=True, slots=True)
class _Read:
    """A file as the first pass over the inputs read it: the digest of its bytes, and
    the bytes themselves while the run needs them (or why there are none)."""

    path: str
    data: bytes | Diagnostic | None
    digest: str | None
    runtime: bool = False
    #: The cache key of the file's check, when the stat index found it kept.
    key: str | None = None


def _stat(files: InputFiles, path: str) -> os.stat_result | None:
    """What ``stat`` says of an input file, taken before it is read; None when it says
    nothing. Strings, no Path objects: tens of thousands of calls."""
    try:
        return os.stat(os.path.join(files.settings.root, os_name(path)))  # noqa: PTH116, PTH118
    except OSError:
        return None


def _unchanged(files: InputFiles, path: str, cache: Cache | None) -> _Read | None:
    """``path`` as the stat index knows it, when the file is unchanged since the run that
    kept its check (:mod:`trainc.cache.stat_index`) and that check is still kept; None:
    the file is read."""
    index = cache.index if cache is not None else None
    if cache is None or index is None or path == STDIN_NAME:
        return None
    info = _stat(files, path)
    known = index.unchanged(path, info) if info is not None else None
    if known is None:
        return None
    _, digest, runtime = known
    key = cache.key((path, digest))
    return _Read(path, None, digest, runtime, key) if cache.store.has(FILES, key) else None


def _read_again(path: str, digest: str, read: Callable[[str], bytes | Diagnostic]) -> bytes:
    """The bytes of ``path`` read again, which must be the bytes read first."""
    data = read(path)
    if not isinstance(data, bytes) or content_digest((data,)) != digest:
        raise UsageError(f"{path}: the file changed while trainc was reading it; run again")
    return data


@dataclass(frozen=True, slots=True)
class CrossChecked:
    """The webhook checks of a TrainJob on its runtime, made with the file's check (see
    :func:`check_files`): valid for the runtime whose content key is ``runtime``."""

    runtime: str
    findings: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class CheckedObject:
    """One object checked on its own: what that found, and the object with its defaults
    (None when the API server would not serve it at all).

    ``whole`` is set when ``defaulted`` is an outline (:mod:`trainc.engine.outlines`):
    :func:`whole_object` gets the object itself. ``cross`` are its webhook checks on its
    runtime when they were made with it.
    """

    loaded: LoadedObject
    findings: tuple[Diagnostic, ...]
    defaulted: DefaultedObject | None
    whole: Whole | None = None
    cross: CrossChecked | None = None


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """One file loaded, and each of its objects checked."""

    load: FileLoad
    objects: tuple[CheckedObject, ...]


def check_object(obj: LoadedObject, config: RepoConfig) -> CheckedObject:
    """``obj`` checked on its own (see :func:`~trainc.schema.layers.check_document`)."""
    findings, defaulted = check_document(obj, config)
    return CheckedObject(obj, tuple(findings), defaulted)


def check_file(path: str, data: bytes | Diagnostic, config: RepoConfig) -> CheckedFile:
    """Load one file (:func:`~trainc.load.inputs.load_file`) and check its objects."""
    load = load_file(path, data, config)
    return CheckedFile(load, tuple(check_object(obj, config) for obj in load.objects))


def whole_object(
    whole: Whole, cache: Cache | None, spill: SpillFile | None, config: RepoConfig
) -> DefaultedObject:
    """The object an outline stands for: from the run's spill file, from its file's
    cache entry, or checked again."""
    checked: object = None
    if whole.spilled is not None and spill is not None:
        checked = pickle.loads(spill.get(whole.spilled))  # noqa: S301 - this run's own bytes
    elif cache is not None and whole.key is not None:
        checked = cache.load(WHOLES, whole.key, CheckedFile)
    if not isinstance(checked, CheckedFile):
        data = whole.data or _read_again(
            whole.path, whole.digest, lambda path: read_input(config.root, path, config.limits)
        )
        checked = check_file(whole.path, data, config)
    found = checked.objects[whole.ordinal].defaulted
    if found is None:
        raise CompilerBug(f"{whole.path}: the object outlined as #{whole.ordinal} is gone")
    return found


def _outlined(checked: CheckedFile, config: RepoConfig) -> CheckedFile:
    """``checked`` with each TrainJob as its outline, in its load as well; the file's
    text released when the run will most likely never read it again (:func:`_releasable`)."""
    source = checked.load.source
    if source is not None and _releasable(checked, config):
        source = source.released_copy()
    objects = tuple(_outlined_object(obj, source) for obj in checked.objects)
    load = replace(checked.load, source=source, objects=tuple(obj.loaded for obj in objects))
    return CheckedFile(load, objects)


def _outlined_object(obj: CheckedObject, source: SourceFile | None) -> CheckedObject:
    if obj.defaulted is None or not can_outline(obj.defaulted):
        return obj
    shape = outline(obj.defaulted, source)
    return replace(obj, loaded=shape.loaded, defaulted=shape)


def _releasable(checked: CheckedFile, config: RepoConfig) -> bool:
    """Whether a run keeps ``checked``'s file without its text: a file of TrainJobs
    alone, each an outline whose whole object is kept elsewhere, with no finding so far
    and no suppression marker (the run looks for suppressions in every file's text), read
    from disk as it is (a template's lines map to its own; the standard input cannot be
    read again), in a run without ``cluster:`` (whose admission scans every input's
    text for the cluster's objects). A finding the job pass makes about one of its
    TrainJobs quotes the file read again (:meth:`SourceFile.quote`)."""
    load, source = checked.load, checked.load.source
    if source is None or config.cluster is not None or load.diagnostics:
        return False
    if source.path == STDIN_NAME or source.original is not None or MARKER in source.text:
        return False
    return bool(checked.objects) and all(
        obj.defaulted is not None
        and can_outline(obj.defaulted)
        and not obj.findings
        and (obj.cross is None or not obj.cross.findings)
        for obj in checked.objects
    )


def check_files(
    files: InputFiles,
    config: RepoConfig,
    *,
    cache: Cache | None = None,
    spill: SpillFile | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[CheckedFile]:
    """Each of ``files`` checked, in their order.

    The files that may define a runtime (:func:`~trainc.load.prefilter.may_define_runtime`)
    are checked first; the others, most of a repository's, then know every runtime.
    A file the cache holds for its path and bytes is taken from there; the others are
    checked by up to ``jobs`` processes and kept in the cache, with each of their
    TrainJobs' webhook checks on its runtime (:class:`CrossChecked`). TrainJobs come
    back as outlines (see :class:`CheckedObject`), their whole objects kept in the cache
    (or, without one, in ``spill``) until a TrainJob is judged; the bytes of the second
    group of files are read again when they are checked. A run so holds little of each
    file. ``progress(done, total)`` is called after each file. Raises UsageError when a
    file changes between its two reads.
    """
    reads: list[_Read] = []
    runtimes_first: list[int] = []
    for number, path in enumerate(files.paths):
        known = _unchanged(files, path, cache)
        if known is not None:  # its check is in the cache: read when judged, if ever
            reads.append(known)
            if known.runtime:
                runtimes_first.append(number)
            continue
        info = _stat(files, path) if cache is not None and cache.index is not None else None
        data = files.read(path)
        digest = content_digest((data,)) if isinstance(data, bytes) else None
        first = not isinstance(data, bytes) or may_define_runtime(data)
        if first:
            runtimes_first.append(number)
        if info is not None and digest is not None and cache is not None and cache.index:
            cache.index.record(path, info, digest, runtime=first)
        # The others are read again when checked: the run does not hold every file.
        reads.append(_Read(path, data if first or path == STDIN_NAME else None, digest, first))
    before = set(runtimes_first)
    checked: dict[int, CheckedFile] = {}
    for number, found in _FileWork(files, reads, runtimes_first, config, (cache, spill)).run(jobs):
        checked[number] = found
        if progress is not None:
            progress(len(checked), len(reads))
    runtimes = [
        obj.defaulted
        for number in runtimes_first
        for obj in checked[number].objects
        if obj.defaulted is not None and obj.defaulted.kind in RUNTIME_KINDS
    ]
    rest = [number for number in range(len(reads)) if number not in before]
    index = RuntimeIndex(document_order(runtimes))
    for number, found in _FileWork(files, reads, rest, config, (cache, spill), index).run(jobs):
        checked[number] = found
        if progress is not None:
            progress(len(checked), len(reads))
    return [checked[number] for number in range(len(reads))]


#: A file's check with its TrainJobs outlined, and the pickle of the whole check.
_Made: TypeAlias = tuple[CheckedFile, bytes]


class _FileWork:
    """The checks of some of a run's files: the cached ones looked up first, the others
    made in this process or a worker (whose pickle crosses back).

    ``index`` holds every runtime of the run when these files define none: then each
    TrainJob's webhook checks on its runtime are made where the whole TrainJob is at
    hand (:class:`CrossChecked`).
    """

    def __init__(
        self,
        files: InputFiles,
        reads: Sequence[_Read],
        numbers: Sequence[int],
        config: RepoConfig,
        kept: tuple[Cache | None, SpillFile | None],
        index: RuntimeIndex | None = None,
    ) -> None:
        self._files = files
        self._reads = reads
        self._config = config
        cache, self._spill = kept
        self._cache = cache
        self._index = index
        self._runtime_keys = ObjectKeys()
        self._numbers = numbers
        self._keys: dict[int, str] = {}
        self._found: dict[int, CheckedFile] = {}
        self._missing: list[int] = []
        if cache is None or cache.index is None:
            self._look_up(numbers)
            return
        # A whole-repository run reads thousands of entries back; the hook's, a few.
        from trainc.cache.collection import collection_paused  # noqa: PLC0415

        with collection_paused():
            self._look_up(numbers)

    def _look_up(self, numbers: Sequence[int]) -> None:
        """Take the checks of ``numbers`` the cache holds; note the others as missing."""
        cache = self._cache
        for number in numbers:
            read = self._reads[number]
            if cache is None or read.digest is None:
                self._missing.append(number)
                continue
            key = self._keys[number] = read.key or cache.key((read.path, read.digest))
            entry = cache.load(FILES, key, CheckedFile)
            if entry is None:
                self._missing.append(number)
            else:
                cache.retain(WHOLES, key)
                self._found[number] = _with_wholes(entry, self._whole(number))

    def run(self, jobs: int) -> Iterator[tuple[int, CheckedFile]]:
        """Each file's check, in the order of the numbers given."""
        pooled = workers_for(len(self._missing), jobs) > 1
        make: Callable[[int], _Made | bytes] = self._pickled if pooled else self._made
        made = ordered(make, range(len(self._missing)), jobs=jobs)
        for number in self._numbers:
            found = self._found.get(number)
            if found is None:
                result = next(made)
                outlined, whole = result if isinstance(result, tuple) else pickle.loads(result)  # noqa: S301
                kept = self._kept(number, outlined, whole)
                found = _with_wholes(outlined, self._whole(number, kept))
            yield number, found
        made.close()

    def _pickled(self, item: int) -> bytes:
        """:meth:`_made`, as the bytes a worker process sends back."""
        return pickle.dumps(self._made(item), protocol=pickle.HIGHEST_PROTOCOL)

    def _made(self, item: int) -> _Made:
        """The check of the ``item``-th missing file, outlined, and the pickle of the whole
        check."""
        number = self._missing[item]
        read = self._reads[number]
        data = read.data
        if data is None:  # dropped after the first read: bytes, so with a digest
            data = _read_again(read.path, read.digest or "", self._files.read)
        result = check_file(read.path, data, self._config)
        if self._index is not None:
            result = self._cross_checked(result, self._index)
        return _outlined(result, self._config), pickle.dumps(
            result, protocol=pickle.HIGHEST_PROTOCOL
        )

    def _kept(self, number: int, outlined: CheckedFile, whole: bytes) -> Spilled | None:
        """Keep file ``number``'s check in the cache, here in the run's process (a pack
        has one writer); in the spill file when no cache keeps it (then where)."""
        key = self._keys.get(number)
        if self._cache is None or key is None:
            return self._spill.put(whole) if self._spill is not None else None
        self._cache.save(FILES, key, outlined)
        self._cache.store.put(WHOLES, key, whole)
        return None

    def _whole(self, number: int, spilled: Spilled | None = None) -> Whole:
        """Where the whole objects of file ``number`` are (at ordinal 0)."""
        read = self._reads[number]
        kept = read.data if read.path == STDIN_NAME and isinstance(read.data, bytes) else None
        return Whole(read.path, read.digest or "", 0, self._keys.get(number), spilled, kept)

    def _cross_checked(self, checked: CheckedFile, index: RuntimeIndex) -> CheckedFile:
        """``checked`` with each TrainJob's webhook checks on its runtime."""
        objects = list(checked.objects)
        for number, obj in enumerate(objects):
            trainjob = obj.defaulted
            if trainjob is None or trainjob.kind != TRAINJOB.kind:
                continue
            runtime = index.lookup(trainjob)
            if isinstance(runtime, DefaultedObject):
                findings = tuple(check_trainjob(trainjob, runtime))
                cross = CrossChecked(self._runtime_keys[runtime.loaded], findings)
                objects[number] = replace(obj, cross=cross)
        return replace(checked, objects=tuple(objects))


def _with_wholes(outlined: CheckedFile, whole: Whole) -> CheckedFile:
    """``outlined`` with each outline told where its whole object is (``whole``, at the
    outline's place in the file)."""
    path, digest, key = whole.path, whole.digest, whole.key
    for obj in outlined.objects:
        if obj.defaulted is not None and can_outline(obj.defaulted):
            share_strings(obj.defaulted)
    # Made directly, not with ``replace``: a warm run does this for every TrainJob.
    objects = tuple(
        CheckedObject(
            obj.loaded,
            obj.findings,
            obj.defaulted,
            Whole(path, digest, ordinal, key, whole.spilled, whole.data),
            obj.cross,
        )
        if obj.defaulted is not None and can_outline(obj.defaulted)
        else obj
        for ordinal, obj in enumerate(outlined.objects)
    )
    return CheckedFile(outlined.load, objects)
