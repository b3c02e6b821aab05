"""Where trainc's generated schemas and built-in policies live, installed or in a checkout.

A wheel carries them as ``trainc/_data/{schemas,policies}`` (see pyproject.toml); a source
checkout or an editable install reads the repository's own ``schemas/`` and ``policies/``,
which is what ``trainc schemas`` writes and CI checks for freshness.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

DataDir = Literal["schemas", "policies"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: DataDir) -> Path:
    """Directory holding the named data set, preferring the copy inside the package."""
    bundled = _PACKAGE_DIR / "_data" / name
    if bundled.is_dir():
        return bundled
    return source_data_dir(name)


def source_data_dir(name: DataDir) -> Path:
    """The data set's directory in the source checkout (what ``trainc schemas`` writes)."""
    return _PACKAGE_DIR.parent / name
