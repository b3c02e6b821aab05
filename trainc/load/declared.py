"""The TrainJobs declared in the repository outside a run's named files, by what can clash.

A TrainJob's name is also the name of its JobSet, PodGroup and ConfigMaps, and with its
runtime's claim templates the name of its PersistentVolumeClaims: two TrainJobs clash
when one of those names repeats in a namespace. A run on named files (the pre-commit
hook) must still see the TrainJobs of the rest of the repository to tell, or a copied job
file whose name was not changed passes, and the whole-repository run blames the
committed original.

Parsing every file would make that run as slow as a whole-repository one. But a file can
only hold a clashing TrainJob if its bytes name it: the caller gives the names a clash
needs (``needles``: the named TrainJobs' names, and the names a claim clash needs), and
only the files that contain one are parsed (:mod:`.named_files`, which with a cache
reads only the files that changed or may hold a name). Reading is cheap, parsing is not
(see :mod:`.prefilter`). Of each TrainJob found only what names it is kept
(:class:`Declared`).
A name that only a template renders, or written with YAML escapes, is not found; nor,
when a whole directory is named, one behind an anchor or a tag.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from trainc.load.discover import discover_files
from trainc.load.documents import LoadedObject
from trainc.load.globs import path_filter
from trainc.load.input_settings import InputSettings
from trainc.load.inputs import load_file
from trainc.load.listings import Listings
from trainc.load.named_files import files_naming
from trainc.load.seen import Seen
from trainc.model.json import get_path
from trainc.model.kinds import TRAINJOB
from trainc.records import dataclass

if TYPE_CHECKING:
    from trainc.cache.store import Store


@dataclass(frozen=True, slots=True)
class Declared:
    """A TrainJob of a file the run does not check: its name, its namespace as written
    (None when it names none), where its name is (``path``, ``line``), and its
    ``runtimeRef`` as written (``kind`` and ``name``, None when not strings)."""

    name: str
    namespace: str | None
    path: str
    line: int
    runtime_kind: str | None
    runtime_name: str | None

    @property
    def where(self) -> str:
        """``file:line`` of its name, for messages."""
        return f"{self.path}:{self.line}"


def declared_trainjobs(
    needles: Iterable[str],
    *,
    skip: Iterable[str],
    config: InputSettings,
    store: Store | None = None,
    seen: Seen | None = None,
) -> tuple[Declared, ...]:
    """The TrainJobs of the repository's input files but those in ``skip``, in file order,
    of every file whose bytes contain one of ``needles`` (none without needles); a cache
    ``store`` spares reading the files that cannot (:mod:`.named_files`) and listing the
    directories that did not change (:mod:`.listings`), and what the run has ``seen`` of
    the file system listing directories and taking stats again (:mod:`.seen`).

    A file that cannot be read declares nothing here: a run on it reports why.
    """
    wanted = frozenset(needle.encode() for needle in needles if needle)
    if not wanted:
        return ()
    select = path_filter(config.include, config.exclude)
    seen = seen or Seen()
    listings = Listings(store, config, since_ns=seen.since_ns) if store is not None else None
    found = discover_files(
        [config.root], root=config.root, select=select, seen=seen, listings=listings
    )
    if listings is not None:
        listings.save()
    declared: list[Declared] = []
    named = files_naming(found.files, wanted, skip=set(skip), config=config, store=store, seen=seen)
    for path, data in named:
        objects = load_file(path, data, config).objects
        declared += (_declared(obj) for obj in objects if obj.kind == TRAINJOB.kind)
    return tuple(declared)


def _declared(obj: LoadedObject) -> Declared:
    kind = get_path(obj.data, ("spec", "runtimeRef", "kind"))
    name = get_path(obj.data, ("spec", "runtimeRef", "name"))
    return Declared(
        obj.name,
        obj.namespace,
        obj.path,
        obj.document.locate(("metadata", "name")).line,
        kind if isinstance(kind, str) else None,
        name if isinstance(name, str) else None,
    )
