"""Where the cache lives: an explicit directory, the environment, or the user's cache home.

Flags before the environment, and within each, off before a directory: ``--no-cache``,
``--cache-dir``, ``TRAINC_NO_CACHE``, ``TRAINC_CACHE_DIR``, then ``$XDG_CACHE_HOME/trainc``,
then ``~/.cache/trainc`` (the XDG default, which pre-commit and pip use on Linux too).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: Environment variables a CI recipe or a container sets instead of flags.
CACHE_DIR_VARIABLE = "TRAINC_CACHE_DIR"
NO_CACHE_VARIABLE = "TRAINC_NO_CACHE"
#: The cache's size bound (:mod:`.budget`), read by ``trainc.app.cache.cache_max_size``.
MAX_SIZE_VARIABLE = "TRAINC_CACHE_MAX_SIZE"

#: Values of :data:`NO_CACHE_VARIABLE` that leave the cache on (set-but-off spellings).
_OFF = frozenset({"", "0", "false", "no", "off"})


def cache_root(explicit: Path | None, *, disabled: bool, environ: Mapping[str, str]) -> Path | None:
    """The cache directory a run uses, or None when it runs without a cache."""
    if disabled or explicit is not None:
        return None if disabled else explicit
    if environ.get(NO_CACHE_VARIABLE, "").strip().lower() not in _OFF:
        return None
    if environ.get(CACHE_DIR_VARIABLE):
        return Path(environ[CACHE_DIR_VARIABLE])
    home = environ.get("XDG_CACHE_HOME")
    if home and Path(home).is_absolute():  # the XDG spec ignores a relative value
        return Path(home) / "trainc"
    try:
        return Path.home() / ".cache" / "trainc"
    except RuntimeError:  # no home directory to find (HOME unset, no passwd entry)
        return None
