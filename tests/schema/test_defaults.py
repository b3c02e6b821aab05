"""Dropping nulls before the structural check, as the API server does."""

from __future__ import annotations

import copy

from hypothesis import given

from tests.schema.cel.builders import HOSTILE
from trainc.model.json import JsonValue
from trainc.schema.defaults import drop_nulls


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
