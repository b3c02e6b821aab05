"""``trainc cache`` as library calls: where the cache is, what it holds, clearing it.

Where is decided by :func:`trainc.cache.location.cache_root`, the rule every command
uses; what belongs to trainc under that directory by :mod:`trainc.cache.layouts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trainc.cache.budget import DEFAULT_MAX_SIZE, Trimmed, trim_to_bound
from trainc.cache.layouts import Layout, Removal, find_layouts, remove_layout
from trainc.cache.location import MAX_SIZE_VARIABLE, NO_CACHE_VARIABLE, cache_root
from trainc.cache.store import LAYOUT
from trainc.errors import UsageError
from trainc.records import dataclass
from trainc.resolve.quantity import QuantityError, parse_quantity, quantity_value

#: The value of :data:`MAX_SIZE_VARIABLE` that leaves the cache unbounded.
UNBOUNDED = "none"


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


def cache_max_size(environ: Mapping[str, str]) -> int | None:
    """The size bound of the cache in bytes, from ``TRAINC_CACHE_MAX_SIZE``; None: none.

    The value is a Kubernetes quantity, as the ``sizeLimit`` it is kept under is written
    (``512Mi``, ``1Gi``, ``300M``, a number of bytes), or ``none``; unset or empty, the
    default of :data:`trainc.cache.budget.DEFAULT_MAX_SIZE`.
    """
    text = environ.get(MAX_SIZE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_MAX_SIZE
    if text.lower() == UNBOUNDED:
        return None
    try:
        size = quantity_value(parse_quantity(text))
    except QuantityError:
        size = 0
    if size <= 0:
        raise UsageError(
            f"{MAX_SIZE_VARIABLE}={text!r} is not a size: give a quantity such as 256Mi or "
            f"1Gi, or {UNBOUNDED!r} for no bound"
        )
    return size


def trim_cache(root: Path, limit: int) -> Trimmed:
    """Remove the least recently used entries of the cache under ``root`` until it holds
    at most :data:`~trainc.cache.budget.TRIM_TO` of ``limit``, as runs do past it."""
    return trim_to_bound(root / LAYOUT, limit)
