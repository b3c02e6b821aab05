"""The one-line description of what a transition changed."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.schema.cel.changes import describe_change


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"a": 1}, {"a": 2}, "changed a: 1 → 2"),
        ({"a": 1}, {}, "changed a: 1 → (unset)"),
        ({}, {"__namespace__": "x", "namespace": "x"}, 'changed namespace: (unset) → "x"'),
        ([1, 2], [1, 3], "changed [1]: 2 → 3"),
        ([1], [1, 2], "changed: [1] → [1, 2]"),
        ({"a": list(range(100))}, {"a": []}, "changed a: 100 items → []"),
        ("x" * 100, "y", f'changed: "{"x" * 58}… → "y"'),
        (1, 1, "changed"),
    ],
)
def test_describe_change(old: Any, new: Any, expected: str) -> None:
    assert describe_change(old, new) == expected


def test_describe_change_names_the_whole_path() -> None:
    assert describe_change({"a": 1}, {"a": 2}, ("spec", "x")) == "changed spec.x.a: 1 → 2"
    assert describe_change(1, 1, ("spec",)) == "changed spec"
