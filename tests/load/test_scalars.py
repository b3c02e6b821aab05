from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import StreamMark
from ruamel.yaml.nodes import ScalarNode

from tests.load.yamltext import AMBIGUOUS
from trainc.load.scalars import TAG_PREFIX, Version, typed_scalar

TYPED = ("null", "bool", "int", "float")
NUMERIC = st.text(alphabet="0123456789_+-.:eEoxbBXinfINFa yYnN٣", max_size=8)
TEXTS = st.one_of(st.sampled_from(AMBIGUOUS), NUMERIC, st.text(max_size=6))


def ruamel_value(tag: str, text: str, version: Version) -> object:
    """What trainc read before scalars were typed in one place: ruamel's constructor."""
    yaml = YAML(typ="rt")
    yaml.version = version
    constructor = yaml.constructor
    node = ScalarNode(TAG_PREFIX + tag, text, StreamMark("f.yaml", 0, 0, 0))
    methods: dict[str, Callable[[], object]] = {
        "null": lambda: None,
        "bool": lambda: SafeConstructor.construct_yaml_bool(constructor, node),
        "int": lambda: SafeConstructor.construct_yaml_int(constructor, node),
        "float": lambda: SafeConstructor.construct_yaml_float(constructor, node),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return methods[tag]()
        except (ValueError, KeyError, IndexError):
            return "<invalid>"


def our_value(tag: str, text: str, version: Version) -> object:
    try:
        return typed_scalar(TAG_PREFIX + tag, text, version)
    except (ValueError, KeyError, IndexError):
        return "<invalid>"


@given(st.sampled_from(TYPED), TEXTS, st.sampled_from([(1, 1), (1, 2)]))
def test_scalars_are_typed_as_ruamel_types_them(tag: str, text: str, version: Version) -> None:
    # repr: 1, 1.0 and True differ, -0.0 differs from 0.0, and nan equals nan.
    assert repr(our_value(tag, text, version)) == repr(ruamel_value(tag, text, version))


@pytest.mark.parametrize(
    ("tag", "text", "version", "value"),
    [
        ("int", "010", (1, 1), 8),
        ("int", "010", (1, 2), 10),
        ("int", "-1_000", (1, 1), -1000),
        ("int", "0o17", (1, 1), 15),  # an explicit !!int reads the 1.2 prefix too
        ("int", "1:20", (1, 1), 80),
        ("float", "1:20.5", (1, 1), 80.5),
        ("float", "-.INF", (1, 1), -math.inf),
        ("float", "1e3", (1, 1), 1000.0),
        ("bool", "Y", (1, 2), True),
        ("null", "anything", (1, 1), None),
        ("timestamp", "2001-12-14", (1, 1), "2001-12-14"),
        ("str", "010", (1, 1), "010"),
    ],
)
def test_typed_values(tag: str, text: str, version: Version, value: object) -> None:
    assert typed_scalar(TAG_PREFIX + tag, text, version) == value


@pytest.mark.parametrize(("tag", "text"), [("int", "twelve"), ("int", ""), ("bool", "maybe")])
def test_text_that_does_not_fit_its_tag_raises(tag: str, text: str) -> None:
    with pytest.raises((ValueError, KeyError, IndexError)):
        typed_scalar(TAG_PREFIX + tag, text, (1, 1))
