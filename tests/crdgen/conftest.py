"""Generated output shared by the crdgen tests: rendering takes seconds, so it happens once."""

from __future__ import annotations

import pytest

from trainc.crdgen.crd import render_crd
from trainc.crdgen.files import render_schemas
from trainc.crdgen.jsonschema import render_jsonschema
from trainc.model.json import JsonObject
from trainc.model.kinds import INPUT_KINDS
from trainc.model.schemafiles import SCHEMA_TARGETS


@pytest.fixture(scope="session")
def rendered() -> dict[str, bytes]:
    """Every generated file, as ``trainc schemas`` would write it."""
    return render_schemas()


@pytest.fixture(scope="session")
def crds() -> dict[str, JsonObject]:
    """The generated CRD of each API kind, by kind."""
    return {info.kind: render_crd(info) for info in INPUT_KINDS}


@pytest.fixture(scope="session")
def jsonschemas() -> dict[str, JsonObject]:
    """The generated JSON Schema of each target, by target name."""
    return {target.name: render_jsonschema(target) for target in SCHEMA_TARGETS}
