"""What validation keeps in the cache, and under which keys (``docs/cache.md``).

Four kinds of entries, all pickles of trainc's own data:

- ``files``: one input file read and each of its objects checked on its own (loading,
  schema, defaults, CEL; :mod:`trainc.engine.file_pass`), with its TrainJobs outlined,
  keyed by the file's path and bytes and the run's :attr:`Cache.scope`;
- ``wholes``: the same check with its TrainJobs whole, under the same key, read only
  when one of them is judged again;
- ``cross-checks``: the webhook checks of one TrainJob on its runtime
  (:func:`~trainc.checks.webhooks.cross_object.check_trainjob`), keyed by the contents of
  both and the scope;
- ``trainjobs``: one TrainJob judged (resolution, its JobSet's and Jobs' checks, the
  apply limits, its policies and, for compile, its rendered output;
  :mod:`trainc.engine.pipeline`), keyed by the contents of the TrainJob and of the runtime
  it found, whether an earlier layer already refused either, what the caller asked for,
  and the scope narrowed by the policies.

The scope covers everything else a result can depend on: trainc's code and libraries
(:func:`~trainc.cache.keys.code_fingerprint`) and the effective settings of trainc.yaml
(environment values, ``kubernetesVersion``, rule severities, limits, compile settings),
but not where the repository lies: every result names files by their path from the root,
so a copy of a repository elsewhere (Argo CD extracts each generation into a new
directory) finds what the original left. A result read back is of the type stored or it
is a miss (:meth:`Store.load`).

A run over the whole repository keeps its entries in packs and its input files in a stat
index (:mod:`trainc.cache.packed`), under a head keyed by :func:`head_key`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import field

from trainc.cache.keys import code_fingerprint, digest
from trainc.cache.packed import PackedStore
from trainc.cache.stat_index import StatIndex
from trainc.cache.store import Store, Stored
from trainc.config.settings import RepoConfig
from trainc.load.documents import LoadedObject
from trainc.load.source import SourceFile
from trainc.records import dataclass

FILES = "files"
WHOLES = "wholes"
CROSS_CHECKS = "cross-checks"
TRAINJOBS = "trainjobs"


@dataclass(frozen=True, slots=True)
class Cache:
    """A store seen from one run: keys start from :attr:`scope`."""

    store: Store | PackedStore
    scope: str

    @classmethod
    def for_run(cls, store: Store | PackedStore, config: RepoConfig) -> Cache:
        """The cache of a run with ``config``."""
        return cls(store, digest((code_fingerprint(), settings_digest(config))))

    def narrowed(self, parts: Iterable[bytes | str]) -> Cache:
        """This cache, its keys also depending on ``parts``."""
        return Cache(self.store, digest((self.scope, *parts)))

    def key(self, parts: Iterable[bytes | str]) -> str:
        """The key of a result that depends on ``parts`` and the scope."""
        return digest((self.scope, *parts))

    def load(self, section: str, key: str, kind: type[Stored]) -> Stored | None:
        """The ``kind`` stored under ``key``, or None (see :meth:`Store.load`)."""
        return self.store.load(section, key, kind)

    def save(self, section: str, key: str, value: object) -> None:
        """Keep ``value`` under ``key``."""
        self.store.save(section, key, value)

    @property
    def index(self) -> StatIndex | None:
        """The run's stat index, when it has one (a whole-repository run's)."""
        return self.store.index if isinstance(self.store, PackedStore) else None

    def retain(self, section: str, key: str) -> None:
        """Keep an entry the run did not read (see :meth:`PackedStore.retain`)."""
        if isinstance(self.store, PackedStore):
            self.store.retain(section, key)


def head_key(config: RepoConfig, parts: Iterable[str]) -> str:
    """The key of a whole-repository run's head: the settings, and what the command makes
    of the repository (``parts``): a validation's entries are not a compile's.

    Not the repository's place: a copy of it in another directory (Argo CD's CMP server
    extracts every generation into a new one) starts from the head the last copy left.
    Its stat index cannot mistake one copy's file for another's (their inodes differ), so
    each copy reads its files once; their checks come from the packs.
    """
    return digest((code_fingerprint(), settings_digest(config), *parts))


def settings_digest(config: RepoConfig) -> str:
    """A digest of ``config`` that is the same in every process for the same settings
    (sets in sorted order: their own order changes with string hashing), wherever the
    repository lies: its root is left out."""
    settings = dataclasses.asdict(config)
    del settings["root"]
    text = json.dumps(settings, sort_keys=True, default=_plain)
    return digest((text,))


def _plain(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot key a setting of type {type(value).__name__}")


def policies_digest(sources: Mapping[str, SourceFile]) -> str:
    """A digest of the policy files a run read (the built-in ones are trainc's code)."""
    return digest(part for path in sorted(sources) for part in (path, sources[path].text))


def object_key(obj: LoadedObject, file_key: str | None = None) -> str:
    """``obj``'s content key: its file (``file_key``, or :func:`file_key` of its source)
    and where in the file it starts, which tells its objects apart however many of them
    a run keeps (an object and its outline share the key)."""
    document = obj.document
    line, column = document.positions.get((), (0, 0))
    return f"{file_key or source_key(document.source)}/{document.index}/{line}:{column}"


def source_key(source: SourceFile) -> str:
    """A digest of a file's path and text (and template, for a rendered one), kept when
    the run releases the text (:attr:`SourceFile.key`)."""
    return source.key


@dataclass(slots=True)
class ObjectKeys:
    """:func:`object_key` of a run's objects, each file's digest made once."""

    _files: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, obj: LoadedObject) -> str:
        source = obj.document.source
        known = self._files.get(source.path)
        if known is None:
            known = self._files[source.path] = source_key(source)
        return object_key(obj, known)
