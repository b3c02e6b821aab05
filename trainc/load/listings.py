"""What a walk made of each directory, remembered between runs by the directory's stat.

A run on named files (the pre-commit hook) walks the whole repository to find the
TrainJobs that may clash with the named ones (:mod:`.declared`). Listing its directories
and matching every entry against the include and exclude globs took about 17 ms of CPU
in a repository of 10,000 files, although between two commits almost no directory
gains, loses or renames an entry. As git's untracked cache does
(https://git-scm.com/docs/git-update-index#_untracked_cache), this index remembers, for
each directory the walk reached without a link, its stamp (:mod:`~trainc.cache.stat_index`:
size, modification and status-change times, inode, device) with what the walk made of
its entries: the subdirectories it entered and the files it selected. A later run stats
the directory and, when the stamp is the same, takes those instead of listing it.

Adding, removing or renaming an entry changes its directory's modification and
status-change times on every POSIX file system (a rename changes both directories'),
and the stamp is taken before the listing, so a directory changed while it is listed is
listed again by the next run; racy stamps (:func:`~trainc.cache.stat_index.racy`) are
never kept. A file edited in place leaves its directory's stamp alone, and needs to:
the listing does not change, and the clash index stats every file
(:mod:`.named_files`). Directories whose listing the walk judges by more than names are
never kept and always listed: those holding a symbolic link (whose target may change
with no directory stamp changing), packages (kustomize directories, Helm charts), and
any directory reached through a link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from trainc.cache.stat_index import PackedStamp, settled
from trainc.load.file_indexes import index_key
from trainc.load.input_settings import InputSettings

if TYPE_CHECKING:
    from trainc.cache.store import Store

SECTION = "listings"
#: What the walk made of one directory's entries: the names of the subdirectories it
#: entered, and the repository paths of the files it selected.
Outcome: TypeAlias = tuple[tuple[str, ...], tuple[str, ...]]
#: directory (repository path, "" for the root) → (its stamp, the walk's outcome)
_Entries: TypeAlias = dict[str, tuple[PackedStamp, Outcome]]


class Listings:
    """The index as one walk (of the whole repository, with ``config``'s globs) reads and
    rewrites it."""

    def __init__(self, store: Store, config: InputSettings, *, since_ns: int) -> None:
        self._store = store
        self._key = index_key(SECTION, config, config.include, config.exclude)
        found = store.load(SECTION, self._key, dict)
        self._known: _Entries = found or {}
        self._entries: _Entries = {}
        self._since_ns = since_ns

    def known(self, relative: str, stamp: PackedStamp | None) -> Outcome | None:
        """The outcome kept for the directory ``relative``, when its ``stamp`` is the
        one kept with it."""
        entry = self._known.get(relative)
        if stamp is None or entry is None or entry[0] != stamp:
            return None
        self._entries[relative] = entry
        return entry[1]

    def record(self, relative: str, stamp: PackedStamp | None, outcome: Outcome) -> None:
        """Keep what the walk made of ``relative``, stamped ``stamp`` before its listing."""
        if stamp is not None:
            self._entries[relative] = (stamp, outcome)

    def save(self) -> None:
        """Rewrite the index when this walk's trusted entries differ from the kept ones
        (a directory changed, came or left)."""
        trusted = settled(self._entries, since_ns=self._since_ns)
        if trusted != self._known:
            self._store.save(SECTION, self._key, trusted)
