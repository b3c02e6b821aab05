"""Dropping nulls, pruning and defaulting in one walk, as the API server stores an object."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given

from tests.schema.cel.builders import HOSTILE
from trainc.load.inputs import load_single_file
from trainc.model.json import JsonObject, JsonValue
from trainc.model.kinds import KINDS_BY_NAME
from trainc.model.schematree import load_kind_schema
from trainc.schema.defaults import drop_nulls, store


def _without_nulls(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


@given(HOSTILE)
def test_every_null_mapping_entry_is_dropped_and_the_input_kept(value: JsonValue) -> None:
    before = copy.deepcopy(value)
    # repr: a NaN equals itself there.
    assert repr(drop_nulls(value)) == repr(_without_nulls(before))
    assert repr(value) == repr(before)


def test_data_without_a_null_is_not_copied() -> None:
    """Every object trainc builds, and nearly every input, holds no null: the walk
    that checks each object does not copy it first."""
    data: JsonValue = {"spec": {"items": [{"name": "a", "n": 1}, [None]]}}
    assert drop_nulls(data) is data


def test_a_null_deep_down_gives_a_copy_without_it() -> None:
    data: JsonValue = {"spec": {"items": [{"name": "a", "image": None}]}, "status": {}}
    assert drop_nulls(data) == {"spec": {"items": [{"name": "a"}]}, "status": {}}
    assert data == {"spec": {"items": [{"name": "a", "image": None}]}, "status": {}}


_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _examples() -> list[tuple[str, JsonObject]]:
    """Every example object of a kind trainc checks, with its schema's name."""
    documents = [
        document.data
        for path in sorted(_EXAMPLES.glob("*s/**/*.yaml"))
        for document in load_single_file(path, path.name).documents
    ]
    return [
        (str(data["kind"]), data)
        for data in documents
        if isinstance(data, dict) and data.get("kind") in KINDS_BY_NAME
    ]


def _mappings(value: JsonValue) -> list[JsonObject]:
    if isinstance(value, dict):
        return [value, *(m for item in value.values() for m in _mappings(item))]
    if isinstance(value, list):
        return [m for item in value for m in _mappings(item)]
    return []


def _with_nulls(document: JsonObject) -> Iterator[JsonObject]:
    """Copies of ``document`` with a null put into one mapping each: a field of its own
    set to null, an unknown field that is null, an unknown field whose value holds one."""
    for number in range(len(_mappings(document))):
        for change in range(3):
            changed = copy.deepcopy(document)
            mapping = _mappings(changed)[number]
            if change == 0 and mapping:
                mapping[next(iter(mapping))] = None
            elif change == 1:
                mapping["unknownField"] = None
            else:
                mapping["unknownField"] = {"inner": [{"deeper": None}]}
            yield changed


def test_examples_hold_objects_of_every_served_kind_the_walk_stores() -> None:
    kinds = {kind for kind, _ in _examples()}
    assert {"TrainJob", "ClusterTrainingRuntime"} <= kinds


@pytest.mark.parametrize(("kind", "document"), _examples(), ids=lambda v: str(v)[:40])
def test_the_walk_over_data_with_nulls_stores_what_it_stores_without_them(
    kind: str, document: JsonObject
) -> None:
    """Dropping nulls happens inside the walk: the copy, the findings and what the schema
    check is given are those of the object with its nulls dropped first, as the API
    server drops them before anything else, wherever the null sits."""
    schema = load_kind_schema(kind)
    for changed in _with_nulls(document):
        before = copy.deepcopy(changed)
        walked, cleaned = store(changed, schema), store(drop_nulls(changed), schema)
        assert walked.null_free == drop_nulls(before)
        assert walked.defaulted == cleaned.defaulted
        assert walked.findings == cleaned.findings
        assert changed == before


def test_a_null_list_map_key_is_the_key_left_out_so_its_default_identifies_the_item() -> None:
    """``protocol`` defaults to TCP: a port whose protocol is null is a second TCP port 80."""
    ports: list[JsonValue] = [{"containerPort": 80}, {"containerPort": 80, "protocol": None}]
    container: JsonObject = {"name": "node", "image": "x", "ports": ports}
    runtime: JsonObject = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "r"},
        "spec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "spec": {"template": {"spec": {"containers": [container]}}}
                            },
                        }
                    ]
                }
            }
        },
    }
    schema = load_kind_schema("ClusterTrainingRuntime")
    walked = store(runtime, schema)
    assert [f.code for f in walked.findings] == ["schema.duplicate-list-key"]
    assert walked.findings == store(drop_nulls(runtime), schema).findings
    assert walked.findings[0].path[-2:] == ("ports", 1)
