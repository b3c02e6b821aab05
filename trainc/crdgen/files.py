"""The generated ``schemas/`` tree: render it, write it, and tell whether a copy is fresh.

The tree is a pure function of the model and the pinned Kubernetes definitions, so CI
can regenerate it and compare bytes; a stale copy means someone changed the model and
forgot ``trainc schemas``. Only the ``crds/`` and ``jsonschema/`` subtrees are owned:
other files beside them are neither reported nor removed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from trainc.crdgen.crd import render_crd
from trainc.crdgen.jsonschema import render_jsonschema
from trainc.emit.yamlout import dump_yaml
from trainc.model.json import JsonValue
from trainc.model.kinds import INPUT_KINDS
from trainc.model.schemafiles import SCHEMA_TARGETS, crd_path

OWNED_DIRS = ("crds", "jsonschema")
"""Subdirectories of the schemas directory whose every file trainc generates."""


def _json_bytes(document: JsonValue) -> bytes:
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return text.encode("utf-8")


@functools.cache
def _rendered() -> Mapping[str, bytes]:
    # The model and the pinned definitions cannot change within a process, and dumping
    # takes seconds in pure-Python ruamel, so a check followed by a write renders once.
    files = {crd_path(info): dump_yaml([render_crd(info)]).encode("utf-8") for info in INPUT_KINDS}
    files.update({target.path: _json_bytes(render_jsonschema(target)) for target in SCHEMA_TARGETS})
    return MappingProxyType(dict(sorted(files.items())))


def render_schemas() -> dict[str, bytes]:
    """Every generated file, keyed by POSIX path relative to the schemas directory."""
    return dict(_rendered())


def _owned_files(directory: Path) -> set[str]:
    return {
        path.relative_to(directory).as_posix()
        for owned in OWNED_DIRS
        if (directory / owned).is_dir()
        for path in (directory / owned).rglob("*")
        if path.is_file() or path.is_symlink()
    }


def _differences(directory: Path, rendered: Mapping[str, bytes]) -> dict[str, str]:
    """Relative path → ``missing``, ``stale`` or ``extra`` for each file that differs."""
    found: dict[str, str] = {}
    for relative, content in rendered.items():
        path = directory / relative
        if not path.is_file():
            found[relative] = "missing"
        elif path.read_bytes() != content:
            found[relative] = "stale"
    for relative in _owned_files(directory) - rendered.keys():
        found[relative] = "extra"
    return dict(sorted(found.items()))


def check_schemas(directory: Path) -> list[str]:
    """One line per file that ``write_schemas`` would change; empty when fresh."""
    return [
        f"{state}: {relative}" for relative, state in _differences(directory, _rendered()).items()
    ]


def write_schemas(directory: Path) -> list[str]:
    """Bring ``directory`` up to date; returns what changed, as :func:`check_schemas` words it.

    Unchanged files are not rewritten, so their timestamps stay and build tools that
    watch them stay quiet.
    """
    rendered = _rendered()
    changes = _differences(directory, rendered)
    for relative, state in changes.items():
        path = directory / relative
        if state == "extra":
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rendered[relative])
    return [f"{state}: {relative}" for relative, state in changes.items()]
