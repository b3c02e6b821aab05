"""Field paths as users type them and as findings print them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import json_trees
from trainc.model.json import (
    JsonValue,
    PathChain,
    chain_path,
    format_path,
    get_path,
    has_path,
    held_prefix,
    parse_path,
)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("spec", ("spec",)),
        ("spec.replicatedJobs[0].name", ("spec", "replicatedJobs", 0, "name")),
        (
            "metadata.labels[app.kubernetes.io/name]",
            ("metadata", "labels", "app.kubernetes.io/name"),
        ),
        ("containers[node].image", ("containers", "node", "image")),
        ("[0][1]", (0, 1)),
    ],
)
def test_parse_path_reads_what_format_path_writes(text: str, path: tuple[str | int, ...]) -> None:
    assert parse_path(text) == path


@pytest.mark.parametrize("text", ["", ".a", "a.", "a..b", "a[b", "a]b"])
def test_text_that_is_no_path_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a field path"):
        parse_path(text)


keys = st.one_of(
    st.integers(min_value=0, max_value=99),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True),
    # A key of digits alone reads back as a list index: format_path brackets both alike.
    st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,8}/)?[a-z0-9]{1,5}", fullmatch=True).filter(
        lambda key: not key.isdigit()
    ),
)


@given(st.lists(keys, min_size=1, max_size=6))
def test_round_trip(path: list[str | int]) -> None:
    assert parse_path(format_path(path)) == tuple(path)


def test_has_path_tells_a_null_from_a_missing_field() -> None:
    value: JsonValue = {"a": [{"b": None}]}
    assert has_path(value, ("a", 0, "b"))
    assert get_path(value, ("a", 0, "b")) is None
    assert not has_path(value, ("a", 0, "c"))
    assert not has_path(value, ("a", 1))
    assert not has_path(value, ("a", "0"))


def test_held_prefix_is_the_longest_start_of_the_path_the_value_holds() -> None:
    """Where a finding about an unset value goes: the node that would hold it."""
    pod: JsonValue = {"containers": [{"name": "a", "securityContext": {}}], "hostNetwork": None}
    assert held_prefix(pod, ("containers", 0, "securityContext", "runAsUser")) == (
        "containers",
        0,
        "securityContext",
    )
    assert held_prefix(pod, ("containers", 1, "ports")) == ("containers",)
    assert held_prefix(pod, ("containers", "0")) == ("containers",)  # a list needs an index
    assert held_prefix(pod, ("hostNetwork",)) == ("hostNetwork",)  # null is held
    assert held_prefix(pod, ("volumes", 0)) == ()
    assert held_prefix(pod, ()) == ()


path_keys = st.lists(st.sampled_from(["a", "b", "", 0, 1, 2, -1]), max_size=4)


def _at(value: JsonValue, path: list[str | int]) -> JsonValue:
    for key in path:
        value = value[key]  # type: ignore[index]
    return value


@given(json_trees, path_keys)
def test_get_path_is_the_value_there_or_none(value: JsonValue, path: list[str | int]) -> None:
    """A missing step, a step of the wrong shape and a null on the way all give None."""
    expected = _at(value, path) if has_path(value, tuple(path)) else None
    assert get_path(value, tuple(path)) is expected


@given(st.lists(keys, max_size=6))
def test_a_chain_stands_for_the_path_of_its_keys(path: list[str | int]) -> None:
    chain: PathChain = None
    for key in path:
        chain = (chain, key)
    assert chain_path(chain) == tuple(path)
