"""``trainc cache`` as library calls: where the cache is, what it holds, clearing it.

Where is decided by :func:`trainc.cache.location.cache_root`, the rule every command
uses; what belongs to trainc under that directory by :mod:`trainc.cache.layouts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from trainc.cache.layouts import Layout, Removal, find_layouts, remove_layout
from trainc.cache.location import NO_CACHE_VARIABLE, cache_root


@dataclass(frozen=True, slots=True)
class CacheLocation:
    """The cache directory of runs with the given settings.

    ``root`` is named even when the cache is switched off, so that it can still be
    inspected and cleared; it is None only when there is no directory to name (no
    ``--cache-dir``, no variable, no home directory).
    """

    root: Path | None
    #: Whether runs leave the cache alone (``TRAINC_NO_CACHE``).
    disabled: bool


@dataclass(frozen=True, slots=True)
class CleanReport:
    """What :func:`clean_cache` removed, and the ``v<N>`` directories it left alone."""

    removed: tuple[Removal, ...]
    left_alone: tuple[Layout, ...]


def cache_location(explicit: Path | None, environ: Mapping[str, str]) -> CacheLocation:
    """Where the cache of a run with ``--cache-dir explicit`` in ``environ`` is."""
    enabled = {name: value for name, value in environ.items() if name != NO_CACHE_VARIABLE}
    root = cache_root(explicit, disabled=False, environ=enabled)
    used = cache_root(explicit, disabled=False, environ=environ)
    return CacheLocation(root, disabled=root is not None and used is None)


def cache_contents(root: Path) -> list[Layout]:
    """The layout directories under ``root``: trainc's, measured, and any others named so."""
    return find_layouts(root)


def clean_cache(root: Path) -> CleanReport:
    """Remove trainc's layout directories under ``root``; nothing else there is touched."""
    layouts = find_layouts(root)
    removed = tuple(remove_layout(root, layout) for layout in layouts if layout.foreign is None)
    return CleanReport(removed, tuple(layout for layout in layouts if layout.foreign is not None))
