"""Independent YAML readers, to prove that what trainc writes reads back as written.

Kubernetes tooling reads YAML 1.1 (go-yaml v2 in kubectl, Helm and Argo CD; PyYAML in the
Python client), editors and newer tools YAML 1.2. ruamel.yaml reads both versions, and
PyYAML, when installed, adds a second YAML 1.1 implementation: its pure-Python loader and
libyaml's C parser, whose scanners were written apart from ruamel's.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

from ruamel.yaml import YAML

from trainc.model.json import JsonValue

Reader = Callable[[str], list[JsonValue]]


def _ruamel_1_2(text: str) -> list[JsonValue]:
    return list(YAML(typ="safe", pure=True).load_all(text))


def _ruamel_1_1(text: str) -> list[JsonValue]:
    """ruamel applies a forced version to the first document of a stream only, so YAML
    1.1 documents are parsed one by one (a block scalar is indented and a keep-chomped
    one is closed by ``...``, so a ``---`` line at column 0 is always a separator)."""
    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 1)
    return [loader.load(chunk) for chunk in re.split(r"^---\n", text, flags=re.MULTILINE)]


def _pyyaml_readers() -> dict[str, Reader]:
    try:
        # PyYAML is optional here, and imported by name so that neither it nor its stubs
        # are needed; trainc itself never reads YAML through it (ruff TID251).
        pyyaml = importlib.import_module("yaml")
    except ImportError:
        return {}
    readers: dict[str, Reader] = {
        "pyyaml": lambda text: list(pyyaml.load_all(text, Loader=pyyaml.SafeLoader)),
    }
    if hasattr(pyyaml, "CSafeLoader"):
        readers["libyaml"] = lambda text: list(pyyaml.load_all(text, Loader=pyyaml.CSafeLoader))
    return readers


#: Every available reader by name: YAML 1.2 first, then the YAML 1.1 ones.
READERS: dict[str, Reader] = {
    "ruamel-1.2": _ruamel_1_2,
    "ruamel-1.1": _ruamel_1_1,
    **_pyyaml_readers(),
}


def read_with_every_reader(text: str) -> dict[str, list[JsonValue]]:
    """The documents of ``text`` as each reader sees them."""
    return {name: read(text) for name, read in READERS.items()}
