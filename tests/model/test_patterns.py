"""The text formats and their words: every regular expression a user can meet has them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from trainc.model import patterns
from trainc.model.json import JsonValue
from trainc.model.patterns import TextPattern, described, described_in_rule

SCHEMAS = Path(__file__).parents[2] / "schemas" / "jsonschema"
ALL = [value for value in vars(patterns).values() if isinstance(value, TextPattern)]


def _walk(value: JsonValue, key: str) -> Iterator[str]:
    """Every string stored under ``key`` anywhere in ``value``."""
    if isinstance(value, dict):
        for name, item in value.items():
            if name == key and isinstance(item, str):
                yield item
            else:
                yield from _walk(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key)


def _generated(key: str) -> set[str]:
    return {
        found
        for path in sorted(SCHEMAS.rglob("*.json"))
        for found in _walk(json.loads(path.read_text(encoding="utf-8")), key)
    }


def test_every_pattern_of_the_generated_schemas_is_described_in_words() -> None:
    found = _generated("pattern")
    assert patterns.QUANTITY.anchored in found
    assert {pattern for pattern in found if described(pattern) is None} == set()


def test_every_format_a_generated_cel_rule_matches_is_described_in_words() -> None:
    rules = [rule for rule in _generated("rule") if ".matches(" in rule]
    assert rules
    for rule in rules:
        tested = re.findall(r"\.matches\('([^']*)'\)", rule)
        assert [p.anchored for p in described_in_rule(rule)] == tested, rule


@pytest.mark.parametrize("text_pattern", ALL, ids=[p.noun for p in ALL])
def test_examples_have_the_format_and_the_words_hold_no_expression(
    text_pattern: TextPattern,
) -> None:
    assert all(text_pattern.matches(example) for example in text_pattern.examples)
    assert not text_pattern.matches("has a space")
    for words in (text_pattern.noun, text_pattern.explained):
        assert not re.search(r"\[[^\]]*-[^\]]*\]|\(\?|\\[.dsS]|\)\*", words), words


def test_a_format_is_explained_with_its_examples() -> None:
    assert patterns.DNS1123_SUBDOMAIN.explained.endswith(
        "must start and end with an alphanumeric character (e.g. 'example.com')"
    )
    assert patterns.LABEL_VALUE.explained.endswith("(e.g. 'MyValue', 'my_value' or '12345')")
    assert patterns.QUANTITY.explained == patterns.QUANTITY.rule


def test_lookups_find_anchored_expressions_only() -> None:
    assert described("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") is patterns.DNS1123_LABEL
    assert described("[a-z0-9]([-a-z0-9]*[a-z0-9])?") is None
    assert described("^x+$") is None
    rule = (
        f"self.a.matches('{patterns.STORAGE_URI.anchored}') && "
        f"self.b.matches('{patterns.DNS1035_LABEL.anchored}') && self.c.matches('^x+$')"
    )
    assert described_in_rule(rule) == (patterns.STORAGE_URI, patterns.DNS1035_LABEL)
    assert described_in_rule("self == oldSelf") == ()
