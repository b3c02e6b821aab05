"""Kubernetes typing and naming of data before CEL sees it (``docs/upstream.md``, "API server")."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.schema.cel.cost import Shape
from trainc.schema.cel.declared import DeclaredRule
from trainc.schema.cel.engine import CelCompileError, compile_expression
from trainc.schema.cel.values import RESERVED, escape, rule_sites, unescape, visible_names

from .builders import codes, rule, schema_of, violations


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("replicas", "replicas"),
        ("x-prop", "x__dash__prop"),
        ("a.b", "a__dot__b"),
        ("a/b", "a__slash__b"),
        ("a__b", "a__underscores__b"),
        ("a___b", "a__underscores___b"),
        ("_private", "_private"),
        ("-x", "__dash__x"),
        ("namespace", "__namespace__"),
        ("in", "__in__"),
        ("true", "__true__"),
        ("1abc", None),
        ("", None),
        ("a b", None),
        ("a:b", None),
        ("ünicode", None),
    ],
)
def test_escape_follows_kubernetes(name: str, escaped: str | None) -> None:
    assert escape(name) == escaped


@pytest.mark.parametrize("name", ["x-prop", "a.b/c", "a__b", "namespace", "in", "plain"])
def test_unescape_inverts_escape(name: str) -> None:
    escaped = escape(name)
    assert escaped is not None
    assert unescape(escaped) == name


def test_reserved_words_cel_can_select_keep_their_own_name_too() -> None:
    assert visible_names("namespace") == ("__namespace__", "namespace")
    assert visible_names("as") == ("__as__", "as")
    for word in ("true", "false", "null", "in"):
        assert visible_names(word) == (f"__{word}__",)
    assert visible_names("9lives") == ("9lives",)
    assert len(RESERVED) == 21


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_the_engine_selects_exactly_the_reserved_words_kept_unescaped(word: str) -> None:
    try:
        compile_expression(f"has(self.{word})", ("self",))
    except CelCompileError:
        selectable = False
    else:
        selectable = True
    assert selectable == (word in visible_names(word))


def _object_schema(validations: list[Any], **properties: Any) -> Any:
    return schema_of(
        {
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "generateName": {"type": "string"},
                        "namespace": {"type": "string"},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    },
                },
                "spec": {
                    "type": "object",
                    "properties": properties,
                    "x-kubernetes-validations": validations,
                },
            },
        }
    )


def _holds(expression: str, spec: Any, **properties: Any) -> bool:
    schema = _object_schema([rule(expression)], **properties)
    found = violations({"metadata": {"name": "x"}, "spec": spec}, schema)
    assert all(d.code == "cel.test.rule" for d in found), found
    return not found


STRINGS = {"type": "string"}


@pytest.mark.parametrize(
    "expression",
    [
        "self.x__dash__prop == 'a'",
        "self.a__dot__b == 'b'",
        "self.a__slash__b == 'c'",
        "self.u__underscores__v == 'd'",
        "self.__namespace__ == 'e'",
        "self.namespace == 'e'",
        "has(self.namespace) && has(self.__namespace__)",
        "self.__in__ == 'f'",
        "!has(self.__true__)",
    ],
)
def test_escaped_properties_are_selectable(expression: str) -> None:
    spec = {"x-prop": "a", "a.b": "b", "a/b": "c", "u__v": "d", "namespace": "e", "in": "f"}
    properties = dict.fromkeys([*spec, "true"], STRINGS)
    assert _holds(expression, spec, **properties)


def test_unescaped_names_of_escaped_properties_are_not_visible() -> None:
    properties = {"x-prop": STRINGS}
    assert _holds("!('x-prop' in self)", {"x-prop": "a"}, **properties)


def test_map_keys_are_never_escaped() -> None:
    labels = {"type": "object", "additionalProperties": STRINGS}
    spec = {"labels": {"app.kubernetes.io/name": "x", "in": "y"}}
    assert _holds(
        "self.labels['app.kubernetes.io/name'] == 'x' && 'in' in self.labels", spec, labels=labels
    )


def test_numbers_are_doubles_even_when_written_as_integers() -> None:
    properties = {"ratio": {"type": "number"}, "count": {"type": "integer"}}
    spec = {"ratio": 1, "count": 1}
    assert _holds("type(self.ratio) == double && self.ratio == 1.0", spec, **properties)
    assert _holds("type(self.count) == int && self.count == 1", spec, **properties)
    assert _holds("self.ratio == 1 && self.count == 1.0", spec, **properties)
    assert _holds("self.ratio < 2 && self.count > 0.5", spec, **properties)


def test_int_or_string_keeps_its_type() -> None:
    properties = {"port": {"x-kubernetes-int-or-string": True}}
    assert _holds("type(self.port) == int", {"port": 8080}, **properties)
    assert _holds("type(self.port) == string", {"port": "http"}, **properties)


def test_date_time_values_stay_strings() -> None:
    properties = {"at": {"type": "string", "format": "date-time"}}
    assert _holds("type(self.at) == string", {"at": "2026-01-01T00:00:00Z"}, **properties)


def test_root_metadata_shows_only_name_and_generate_name() -> None:
    schema = _object_schema([])
    schema.document["x-kubernetes-validations"] = [
        rule("self.metadata.name == 'x' && self.metadata.generateName == 'x-'"),
        rule("!has(self.metadata.namespace) && !has(self.metadata.labels)", "test.hidden"),
        rule("self.kind == 'Test'", "test.kind"),
    ]
    data = {
        "kind": "Test",
        "metadata": {"name": "x", "generateName": "x-", "namespace": "n", "labels": {"a": "b"}},
        "spec": {},
    }
    assert violations(data, schema) == []


def test_nested_metadata_is_not_restricted() -> None:
    schema = _object_schema(
        [rule("self.template.metadata.namespace == 'n'")],
        template={
            "type": "object",
            "properties": {"metadata": {"$ref": "#/definitions/Meta"}},
        },
    )
    schema.document["definitions"] = {
        "Meta": {"type": "object", "properties": {"namespace": STRINGS}}
    }
    data = {"metadata": {"name": "x"}, "spec": {"template": {"metadata": {"namespace": "n"}}}}
    assert violations(data, schema) == []


def test_undeclared_properties_are_invisible() -> None:
    properties = {"known": STRINGS}
    schema = _object_schema([rule("!has(self.extra)")], **properties)
    schema.document["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"] = True
    found = violations({"metadata": {"name": "x"}, "spec": {"known": "a", "extra": 1}}, schema)
    assert found == []


def _everything(rule: DeclaredRule) -> bool:
    return True


def test_sites_come_parents_first_with_their_shapes() -> None:
    item = {"type": "string", "x-kubernetes-validations": [rule("size(self) < 10")]}
    schema = _object_schema(
        [rule("true")],
        names={"type": "array", "items": item, "x-kubernetes-validations": [rule("true")]},
    )
    data: Any = {"metadata": {"name": "x"}, "spec": {"names": ["ab", "abcd"]}}
    sites = rule_sites(data, schema, _everything)
    assert [site.path for site in sites] == [
        ("spec",),
        ("spec", "names"),
        ("spec", "names", 0),
        ("spec", "names", 1),
    ]
    assert sites[0].shape == Shape(nodes=4, longest_list=2, longest_string=4)
    assert sites[1].value == ["ab", "abcd"]
    assert sites[3].shape == Shape(longest_string=4)


def test_canonical_order_sorts_sets_and_map_lists_at_any_depth() -> None:
    entry = {
        "type": "object",
        "properties": {
            "name": STRINGS,
            "tags": {
                "type": "array",
                "items": STRINGS,
                "x-kubernetes-list-type": "set",
            },
        },
    }
    schema = _object_schema(
        [rule("true")],
        entries={
            "type": "array",
            "items": entry,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
        },
        order={"type": "array", "items": STRINGS, "x-kubernetes-list-type": "atomic"},
    )
    spec: Any = {
        "entries": [{"name": "b", "tags": ["z", "y"]}, {"name": "a", "tags": ["x"]}],
        "order": ["b", "a"],
    }
    (site,) = rule_sites(
        {"metadata": {"name": "x"}, "spec": spec}, schema, _everything, canonical=True
    )
    assert site.value == {
        "entries": [{"name": "a", "tags": ["x"]}, {"name": "b", "tags": ["y", "z"]}],
        "order": ["b", "a"],
    }
    (plain,) = rule_sites({"metadata": {"name": "x"}, "spec": spec}, schema, _everything)
    assert plain.value == spec


def test_free_form_values_are_passed_through() -> None:
    schema = _object_schema(
        [rule("self.params.any.depth[0] == 1")],
        params={"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    )
    data = {"metadata": {"name": "x"}, "spec": {"params": {"any": {"depth": [1]}}}}
    assert codes(violations(data, schema)) == []
