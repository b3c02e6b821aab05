"""Each input file read and its objects checked on their own: the per-file half of a run.

Loading a file and checking each of its objects against its schema, defaults and CEL
rules (:func:`~trainc.validate.prepare.check_document`) needs nothing but the file and the
run's settings, so it is the unit both of the cache (a file whose bytes did not change is
not read again) and of the worker processes (a big run checks its files on every core).
Results come back in the files' order: the run is the one a single process makes.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from trainc.config import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.errors import CompilerBug
from trainc.load.documents import LoadedObject
from trainc.load.inputs import FileLoad, load_file
from trainc.resolve.objects import DefaultedObject
from trainc.validate.cache import FILES, Cache
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

    A file the cache holds for its path and bytes is taken from there, its TrainJobs as
    outlines (see :class:`CheckedObject`); the others are checked by up to ``jobs``
    processes and kept in the cache. ``progress(done, total)`` is called after each file.
    """
    work = _FileWork(files, config, cache)
    pooled = workers_for(len(work.missing), jobs) > 1
    make: Callable[[int], CheckedFile | bytes] = work.pickled if pooled else work.checked
    made = ordered(make, len(work.missing), jobs=jobs)
    checked: list[CheckedFile] = []
    for number, key in enumerate(work.keys):
        found = work.cached(key)
        if found is None:
            result = next(made)
            found = result if isinstance(result, CheckedFile) else pickle.loads(result)  # noqa: S301
        checked.append(found)
        if progress is not None:
            progress(number + 1, len(files))
    made.close()
    return checked


class _FileWork:
    """The checks of a run's files: the cached ones looked up once, the others made in
    this process (:meth:`checked`) or a worker (:meth:`pickled`, whose bytes cross back)."""

    def __init__(
        self,
        files: Sequence[tuple[str, bytes | Diagnostic]],
        config: RepoConfig,
        cache: Cache | None,
    ) -> None:
        self._files = files
        self._config = config
        self._cache = cache
        self.keys = [
            cache.key((path, data)) if cache is not None and isinstance(data, bytes) else None
            for path, data in files
        ]
        self._found: dict[str, CheckedFile] = {}
        self.missing: list[int] = []
        for number, (key, (path, data)) in enumerate(zip(self.keys, files, strict=True)):
            entry = cache.load(FILES, key, _Entry) if cache is not None and key else None
            if entry is None or not isinstance(data, bytes):
                self.missing.append(number)
            else:
                self._found[str(key)] = _with_wholes(entry.outlined, str(key), path, data)

    def cached(self, key: str | None) -> CheckedFile | None:
        """The cache's check of the file ``key`` names (TrainJobs outlined), if it had one."""
        return None if key is None else self._found.get(key)

    def checked(self, item: int) -> CheckedFile:
        """The ``item``-th file the cache did not hold, checked (and kept there)."""
        return self._made(item)[0]

    def pickled(self, item: int) -> bytes:
        """:meth:`checked`, as the bytes a worker process sends back."""
        return self._made(item)[1]

    def _made(self, item: int) -> tuple[CheckedFile, bytes]:
        """The check of the ``item``-th missing file, and its pickle."""
        number = self.missing[item]
        path, data = self._files[number]
        result = check_file(path, data, self._config)
        whole = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        key = self.keys[number]
        if self._cache is not None and key is not None:
            self._cache.save(FILES, key, _Entry(_outlined(result), whole))
        return result, whole


def _with_wholes(outlined: CheckedFile, key: str, path: str, data: bytes) -> CheckedFile:
    """``outlined`` with each outline told where its whole object is."""
    objects = tuple(
        replace(obj, whole=Whole(key, path, data, ordinal))
        if obj.defaulted is not None and can_outline(obj.defaulted)
        else obj
        for ordinal, obj in enumerate(outlined.objects)
    )
    return replace(outlined, objects=objects)
