"""Cache keys: digests of everything a cached result depends on.

A key is a digest of its parts, each length-prefixed so that no two different part lists
give the same bytes. Every key starts from :func:`code_fingerprint`, which changes
whenever trainc itself might compute something else: its version, the Python and library
versions, and the files it runs from (its modules, generated schemas and bundled
policies), by name, size and modification time. An upgrade, an edit of a development
checkout or a regenerated schema thus makes every entry a miss; nothing stale is read.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import trainc
from trainc.resources import data_dir

#: The libraries whose behaviour shapes findings or output (parsing, schemas, CEL,
#: templates, the core Kubernetes schemas the output check reads from kubernetes-validate,
#: the command line's own messages, which a preloaded server must print as a new process
#: would), as their installed metadata directories spell them (``name-version``).
_LIBRARIES = (
    "cel_expr_python",
    "click",
    "jinja2",
    "jsonschema_rs",
    "kubernetes_validate",
    "pyyaml",
    "ruamel_yaml",
)


def digest(parts: Iterable[bytes | str]) -> str:
    """The hex key of ``parts``: equal lists give equal keys, different lists different ones."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """A digest of what this trainc is made of; see the module docstring."""
    parts: list[str] = [trainc.__version__, sys.version]
    parts.extend(_installed_libraries())
    roots = (Path(trainc.__file__).parent, data_dir("schemas"), data_dir("policies"))
    for root in roots:
        parts.extend(_file_stamps(root))
    return digest(parts)


def _installed_libraries() -> list[str]:
    """The ``*.dist-info`` names (name and version) of :data:`_LIBRARIES` on ``sys.path``.

    Read from directory listings: importing :mod:`importlib.metadata` alone costs more
    than a whole pre-commit run may spend here.
    """
    found = []
    for entry in sys.path:
        try:
            names = [path.name.lower() for path in Path(entry or ".").iterdir()]
        except OSError:
            continue
        found += [n for n in names if n.endswith(".dist-info") and n.startswith(_LIBRARIES)]
    return sorted(found)


def _file_stamps(root: Path) -> Iterator[str]:
    """``path size mtime`` of the files under ``root``, in a stable order.

    Strings and ``os.stat``, not :class:`~pathlib.Path`: every run stats the ~450 files
    of trainc itself, and pathlib's joins and ``relative_to`` cost more than the stats
    (about 7 ms of the pre-commit hook against 2)."""
    stamps = []
    base = len(os.path.join(root, ""))  # noqa: PTH118 - see above
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
        for name in files:
            path = os.path.join(directory, name)  # noqa: PTH118 - see above
            try:
                info = os.stat(path)  # noqa: PTH116 - see above
            except OSError:
                continue
            stamps.append(f"{path[base:]} {info.st_size} {info.st_mtime_ns}")
    return iter(sorted(stamps))
