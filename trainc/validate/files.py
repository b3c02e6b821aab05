"""Each input file read and its objects checked on their own: the per-file half of a run.

Loading a file and checking each of its objects against its schema, defaults and CEL
rules (:func:`~trainc.validate.prepare.check_document`) needs nothing but the file and the
run's settings, so it is the unit both of the cache (a file whose bytes did not change is
not read again) and of the worker processes (a big run checks its files on every core).
Results come back in the files' order: the run is the one a single process makes.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from trainc.config import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.errors import CompilerBug
from trainc.load.documents import LoadedObject
from trainc.load.inputs import FileLoad, load_file
from trainc.load.prefilter import may_define_runtime
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.objects import DefaultedObject
from trainc.validate.cache import CROSS_CHECKS, FILES, Cache, ObjectKeys, object_key
from trainc.validate.crossobject.run import check_trainjob, document_order
from trainc.validate.outlines import can_outline, outline
from trainc.validate.prepare import check_document
from trainc.validate.workers import ordered, workers_for

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Whole:
    """Where the whole of an outlined object is: the cache entry of its file, and the
    file itself (its path and bytes), checked again when that entry is gone."""

    key: str
    path: str
    data: bytes
    ordinal: int


@dataclass(frozen=True, slots=True)
class CheckedObject:
    """One object checked on its own: what that found, and the object with its defaults
    (None when the API server would not serve it at all).

    ``whole`` is set when ``defaulted`` is an outline (:mod:`trainc.validate.outlines`):
    :func:`whole_object` gets the object itself.
    """

    loaded: LoadedObject
    findings: tuple[Diagnostic, ...]
    defaulted: DefaultedObject | None
    whole: Whole | None = None


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """One file loaded, and each of its objects checked."""

    load: FileLoad
    objects: tuple[CheckedObject, ...]


def check_object(obj: LoadedObject, config: RepoConfig) -> CheckedObject:
    """``obj`` checked on its own (see :func:`~trainc.validate.prepare.check_document`)."""
    findings, defaulted = check_document(obj, config)
    return CheckedObject(obj, tuple(findings), defaulted)


def check_file(path: str, data: bytes | Diagnostic, config: RepoConfig) -> CheckedFile:
    """Load one file (:func:`~trainc.load.inputs.load_file`) and check its objects."""
    load = load_file(path, data, config)
    return CheckedFile(load, tuple(check_object(obj, config) for obj in load.objects))


@dataclass(frozen=True, slots=True)
class _Entry:
    """A file's cache entry: the check with TrainJobs outlined, which a warm run reads,
    and the whole check's pickle, read only when a TrainJob of the file is judged."""

    outlined: CheckedFile
    whole: bytes


def whole_object(whole: Whole, cache: Cache | None, config: RepoConfig) -> DefaultedObject:
    """The object an outline stands for: from its file's cache entry, or checked again."""
    entry = cache.load(FILES, whole.key, _Entry) if cache is not None else None
    checked = pickle.loads(entry.whole) if entry is not None else None  # noqa: S301
    if not isinstance(checked, CheckedFile):
        checked = check_file(whole.path, whole.data, config)
    found = checked.objects[whole.ordinal].defaulted
    if found is None:
        raise CompilerBug(f"{whole.path}: the object outlined as #{whole.ordinal} is gone")
    return found


def _outlined(checked: CheckedFile) -> CheckedFile:
    """``checked`` with each TrainJob as its outline, in its load as well."""
    objects = tuple(_outlined_object(obj) for obj in checked.objects)
    load = replace(checked.load, objects=tuple(obj.loaded for obj in objects))
    return CheckedFile(load, objects)


def _outlined_object(obj: CheckedObject) -> CheckedObject:
    if obj.defaulted is None or not can_outline(obj.defaulted):
        return obj
    shape = outline(obj.defaulted)
    return replace(obj, loaded=shape.loaded, defaulted=shape)


def check_files(
    files: Sequence[tuple[str, bytes | Diagnostic]],
    config: RepoConfig,
    *,
    cache: Cache | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[CheckedFile]:
    """Each of ``files`` (path and bytes, or why there are none) checked, in their order.

    The files that may define a runtime (:func:`~trainc.load.prefilter.may_define_runtime`)
    are checked first; the others, most of a repository's, then know every runtime.
    A file the cache holds for its path and bytes is taken from there; the others are
    checked by up to ``jobs`` processes and kept in the cache, and each of their
    TrainJobs' webhook checks on its runtime too (the run then finds those in the cache:
    see :class:`~trainc.validate.run._CrossChecks`). With a cache, TrainJobs come back
    as outlines (see :class:`CheckedObject`), whose whole objects stay in the cache
    until a TrainJob is judged: a run holds little of each. ``progress(done, total)`` is
    called after each file.
    """
    runtimes_first = [
        number
        for number, (_, data) in enumerate(files)
        if not isinstance(data, bytes) or may_define_runtime(data)
    ]
    first = set(runtimes_first)
    checked: dict[int, CheckedFile] = {}
    for number, found in _FileWork(files, runtimes_first, config, cache).run(jobs):
        checked[number] = found
        if progress is not None:
            progress(len(checked), len(files))
    runtimes = [
        obj.defaulted
        for number in runtimes_first
        for obj in checked[number].objects
        if obj.defaulted is not None and obj.defaulted.kind in RUNTIME_KINDS
    ]
    rest = [number for number in range(len(files)) if number not in first]
    index = RuntimeIndex(document_order(runtimes))
    for number, found in _FileWork(files, rest, config, cache, index).run(jobs):
        checked[number] = found
        if progress is not None:
            progress(len(checked), len(files))
    return [checked[number] for number in range(len(files))]


class _FileWork:
    """The checks of some of a run's files: the cached ones looked up first, the others
    made in this process or a worker (whose pickle crosses back).

    ``index`` holds every runtime of the run when these files define none: then each
    TrainJob's webhook checks on its runtime are made where the whole TrainJob is at
    hand, and kept in the cache.
    """

    def __init__(
        self,
        files: Sequence[tuple[str, bytes | Diagnostic]],
        numbers: Sequence[int],
        config: RepoConfig,
        cache: Cache | None,
        index: RuntimeIndex | None = None,
    ) -> None:
        self._files = files
        self._config = config
        self._cache = cache
        self._index = index
        self._runtime_keys = ObjectKeys()
        self._numbers = numbers
        self._keys: dict[int, str] = {}
        self._found: dict[int, CheckedFile] = {}
        self._missing: list[int] = []
        for number in numbers:
            path, data = files[number]
            if cache is None or not isinstance(data, bytes):
                self._missing.append(number)
                continue
            key = self._keys[number] = cache.key((path, data))
            entry = cache.load(FILES, key, _Entry)
            if entry is None:
                self._missing.append(number)
            else:
                self._found[number] = _with_wholes(entry.outlined, key, path, data)

    def run(self, jobs: int) -> Iterator[tuple[int, CheckedFile]]:
        """Each file's check, in the order of the numbers given."""
        pooled = workers_for(len(self._missing), jobs) > 1
        make: Callable[[int], CheckedFile | bytes] = self._pickled if pooled else self._checked
        made = ordered(make, len(self._missing), jobs=jobs)
        for number in self._numbers:
            found = self._found.get(number)
            if found is None:
                result = next(made)
                found = result if isinstance(result, CheckedFile) else pickle.loads(result)  # noqa: S301
                key = self._keys.get(number)
                data = self._files[number][1]
                if key is not None and isinstance(data, bytes):
                    found = _with_wholes(found, key, self._files[number][0], data)
            yield number, found
        made.close()

    def _checked(self, item: int) -> CheckedFile:
        """The ``item``-th file the cache did not hold, checked (and kept there)."""
        return self._made(item)

    def _pickled(self, item: int) -> bytes:
        """:meth:`_checked`, as the bytes a worker process sends back."""
        return pickle.dumps(self._made(item), protocol=pickle.HIGHEST_PROTOCOL)

    def _made(self, item: int) -> CheckedFile:
        """The check of the ``item``-th missing file: outlined when kept in the cache."""
        number = self._missing[item]
        path, data = self._files[number]
        result = check_file(path, data, self._config)
        key = self._keys.get(number)
        if self._cache is None or key is None:
            return result
        outlined = _outlined(result)
        whole = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        self._cache.save(FILES, key, _Entry(outlined, whole))
        if self._index is not None:
            self._keep_cross_checks(result, self._cache, self._index)
        return outlined

    def _keep_cross_checks(self, checked: CheckedFile, cache: Cache, index: RuntimeIndex) -> None:
        """Keep the webhook checks of each TrainJob of ``checked`` on its runtime."""
        for obj in checked.objects:
            trainjob = obj.defaulted
            if trainjob is None or trainjob.kind != TRAINJOB.kind:
                continue
            runtime = index.lookup(trainjob)
            if not isinstance(runtime, DefaultedObject):
                continue
            key = cache.key((object_key(trainjob.loaded), self._runtime_keys[runtime.loaded]))
            if not cache.store.has(CROSS_CHECKS, key):
                cache.save(CROSS_CHECKS, key, check_trainjob(trainjob, runtime))


def _with_wholes(outlined: CheckedFile, key: str, path: str, data: bytes) -> CheckedFile:
    """``outlined`` with each outline told where its whole object is."""
    objects = tuple(
        replace(obj, whole=Whole(key, path, data, ordinal))
        if obj.defaulted is not None and can_outline(obj.defaulted)
        else obj
        for ordinal, obj in enumerate(outlined.objects)
    )
    return replace(outlined, objects=objects)
