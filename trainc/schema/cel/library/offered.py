"""Every library trainc offers, and which of them the API server of a release offers.

Importing this imports every library; the adapter does so only for an expression that
names one of their functions (:data:`trainc.schema.cel.library.NAMES`).
"""

from __future__ import annotations

from trainc.schema.cel.library.cidr import CIDR_LIBRARY
from trainc.schema.cel.library.declare import Library, Release
from trainc.schema.cel.library.format import FORMAT_LIBRARY
from trainc.schema.cel.library.format import PUBLIC_NAMES as FORMAT_NAMES
from trainc.schema.cel.library.ip import IP_LIBRARY
from trainc.schema.cel.library.lists import LISTS_LIBRARY
from trainc.schema.cel.library.lists import PUBLIC_NAMES as LISTS_NAMES
from trainc.schema.cel.library.quantity import QUANTITY_LIBRARY
from trainc.schema.cel.library.regex import REGEX_LIBRARY
from trainc.schema.cel.library.semver import SEMVER_LIBRARY
from trainc.schema.cel.library.urls import URL_LIBRARY

#: Every library, in the order base.go adds them.
LIBRARIES: tuple[Library, ...] = (
    URL_LIBRARY,
    REGEX_LIBRARY,
    LISTS_LIBRARY,
    QUANTITY_LIBRARY,
    IP_LIBRARY,
    CIDR_LIBRARY,
    FORMAT_LIBRARY,
    SEMVER_LIBRARY,
)

#: Private function names the libraries' rewrites call, and the names upstream uses.
PUBLIC_NAMES = {**FORMAT_NAMES, **LISTS_NAMES}


def libraries_at(release: Release | None) -> tuple[Library, ...]:
    """The libraries the API server of ``release`` offers; ``None``: all of them."""
    return tuple(lib for lib in LIBRARIES if release is None or lib.introduced <= release)
