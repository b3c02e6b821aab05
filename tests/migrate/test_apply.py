"""The edits of a migration applied to plain data and to ruamel's commented tree alike."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ruamel.yaml import YAML

from trainc.migrate import roundtrip
from trainc.migrate.apply import Conflict, PlainKit, apply_edits
from trainc.model.json import JsonObject
from trainc.schema.rewrites import AddEntry, Delete, Edit, Ref, Rename, Set, Template


def _plain(text: str, edits: list[Edit]) -> Any:
    data = YAML(typ="safe").load(text)
    apply_edits(data, edits, PlainKit())
    return data


def _round_trip(text: str, edits: list[Edit]) -> str:
    loaded = roundtrip.load(text)
    apply_edits(loaded.tree, edits, roundtrip.RoundTripKit())
    return roundtrip.dump(loaded)


def _both(text: str, edits: list[Edit]) -> tuple[Any, str]:
    """The plain result, and the round-trip text, which must read back as the same data."""
    plain = _plain(text, copy.deepcopy(edits))
    written = _round_trip(text, edits)
    assert YAML(typ="safe").load(written) == plain
    return plain, written


def test_a_move_takes_the_place_of_the_field_it_replaces() -> None:
    text = "spec:\n  a: 1\n  old:\n    x: 1  # kept\n  b: 2\n"
    edits: list[Edit] = [
        Set(("spec", "new", "inner"), Ref(("spec", "old")), replaces=("spec", "old"))
    ]

    plain, written = _both(text, edits)

    assert list(plain["spec"]) == ["a", "new", "b"]
    # ruamel keeps a comment's column, or one space after a value that moved past it.
    assert written == "spec:\n  a: 1\n  new:\n    inner:\n      x: 1 # kept\n  b: 2\n"


def test_a_move_onto_a_field_that_is_set_is_a_conflict() -> None:
    text = "spec:\n  old: {x: 1}\n  new: {y: 2}\n"
    with pytest.raises(Conflict, match=r"spec\.new is already set"):
        _plain(text, [Set(("spec", "new"), Ref(("spec", "old")), replaces=("spec", "old"))])


def test_a_replaced_string_keeps_its_quotes() -> None:
    _, written = _both('apiVersion: "a/v2"  # x\n', [Set(("apiVersion",), "a/v1")])

    assert written == 'apiVersion: "a/v1"  # x\n'


def test_a_deleted_field_leaves_the_comments_that_introduce_the_next_one() -> None:
    text = "a:\n  keep: 1\n  gone: auto  # about gone\n  # about next\n  next: 2\n"

    plain, written = _both(text, [Delete(("a", "gone"))])

    assert plain == {"a": {"keep": 1, "next": 2}}
    assert written == "a:\n  keep: 1\n  # about next\n  next: 2\n"


def test_a_rename_keeps_place_value_and_comment() -> None:
    text = "p:\n  torchSpec:  # draft\n    n: 1\n  z: 0\n"

    plain, written = _both(
        text, [Delete(("p", "torchSpec", "n")), Rename(("p", "torchSpec"), "torch")]
    )

    assert list(plain["p"]) == ["torch", "z"]
    assert written.startswith("p:\n  torch: {}")


def test_a_rename_onto_a_field_that_is_set_is_a_conflict() -> None:
    with pytest.raises(Conflict):
        _plain("p: {torchSpec: {}, torch: {}}\n", [Rename(("p", "torchSpec"), "torch")])


def _entry(field: str, fields: dict[str, Any]) -> AddEntry:
    return AddEntry(("spec", "patches"), "manager", "example.com/m", fields, ("spec", field))


def test_entries_of_one_manager_merge_and_name_their_jobs_once() -> None:
    text = "spec:\n  one: {a: 1}\n  two: {b: 2}\n  three: {c: 3}\n"

    def jobs(field: str, name: str) -> dict[str, Template]:
        return {"jobs": [{"name": name, field: Ref(("spec", field))}]}

    plain, _ = _both(
        text,
        [
            _entry("one", jobs("one", "node")),
            _entry("two", jobs("two", "node")),
            _entry("three", jobs("three", "x")),
        ],
    )

    assert plain == {
        "spec": {
            "patches": [
                {
                    "manager": "example.com/m",
                    "jobs": [
                        {"name": "node", "one": {"a": 1}, "two": {"b": 2}},
                        {"name": "x", "three": {"c": 3}},
                    ],
                }
            ]
        }
    }


def test_two_entries_setting_one_field_conflict() -> None:
    fields: dict[str, Any] = {"spec": Ref(("spec", "one"))}
    with pytest.raises(Conflict, match="both set"):
        _plain("spec: {one: {}, two: {}}\n", [_entry("one", fields), _entry("two", dict(fields))])


def test_an_entry_whose_manager_is_taken_is_a_conflict() -> None:
    text = "spec:\n  patches: [{manager: example.com/m}]\n  one: {}\n"
    with pytest.raises(Conflict, match="already has an entry"):
        _plain(text, [_entry("one", {"x": Ref(("spec", "one"))})])


def test_a_new_entry_is_appended_to_an_existing_list() -> None:
    text = "spec:\n  patches:\n    - manager: example.com/other\n  one: {a: 1}\n"

    plain, _ = _both(text, [_entry("one", {"x": Ref(("spec", "one"))})])

    assert [entry["manager"] for entry in plain["spec"]["patches"]] == [
        "example.com/other",
        "example.com/m",
    ]


def test_a_subtree_used_twice_is_copied_not_aliased() -> None:
    text = "spec:\n  one: {a: 1}\n"
    value: Template = [
        {"name": "x", "v": Ref(("spec", "one"))},
        {"name": "y", "v": Ref(("spec", "one"))},
    ]

    _, written = _both(text, [Set(("spec", "both"), value, replaces=("spec", "one"))])

    assert "&" not in written
    assert "*" not in written


@pytest.mark.parametrize(
    ("text", "layout"),
    [
        ("a:\n  b:\n  - x: 1\n", roundtrip.Layout(2, 2, 0)),
        ("a:\n  b:\n    - x: 1\n", roundtrip.Layout(2, 4, 2)),
        ("a:\n    b:\n        - x: 1\n", roundtrip.Layout(4, 6, 4)),
        ("a: 1\n", roundtrip.Layout(2, 4, 2)),
    ],
)
def test_layout_is_guessed_from_the_document(text: str, layout: roundtrip.Layout) -> None:
    assert roundtrip.Layout.guess(text) == layout


def test_plain_kit_inserts_renames_and_deletes_in_order() -> None:
    data: JsonObject = {"a": 1, "b": 2}
    kit = PlainKit()
    kit.insert(data, 1, "n", 0)
    kit.rename(data, "a", "z")
    kit.delete(data, "b", None)
    assert list(data.items()) == [("z", 1), ("n", 0)]
