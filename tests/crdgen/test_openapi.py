from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from trainc.crdgen import k8sdefs
from trainc.crdgen.openapi import map_subschemas, model_schema, subschemas
from trainc.model.json import JsonObject, as_object, get_path
from trainc.model.k8s import EnvVar, JobTemplateSpec, ObjectMeta, PodSecurityContext
from trainc.model.markers import (
    ATOMIC,
    ATOMIC_MAP,
    LIST_SET,
    Default,
    FreeForm,
    Json,
    Maximum,
    MaxItems,
    MaxLength,
    Minimum,
    MinItems,
    MinLength,
    MinProperties,
    PatchMerge,
    Pattern,
    Rule,
    immutable,
    list_map,
    schema,
)
from trainc.model.scalars import Int32, Time

_POD_TEMPLATE = "io.k8s.api.core.v1.PodTemplateSpec"


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """An entry of a keyed list."""

    key: str
    """Identifies the entry."""

    weight: Annotated[float | None, Maximum(1.5)] = None


@schema(
    MinProperties(1),
    Rule(
        rule="has(self.name)",
        message="name is required",
        id="sample.has-name",
        message_expression="'missing ' + 'name'",
        reason="FieldValueRequired",
        field_path=".name",
    ),
)
@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """A sample object."""

    api_version: str
    """Version."""

    metadata: ObjectMeta
    """Root metadata."""

    name: Annotated[str, MinLength(1), MaxLength(10), Pattern("^[a-z]+$")]
    """The name."""

    count: Annotated[Int32 | None, Minimum(0), Default(3)] = None
    """How many."""

    enabled: Annotated[bool | None, Default(False)] = None
    mode: Annotated[Literal["fast", ""] | None, Default("fast")] = None
    updated: Time | None = None
    tags: Annotated[list[Annotated[str, MaxLength(8)]] | None, LIST_SET, MaxItems(3)] = None
    args: Annotated[list[str] | None, ATOMIC, MinItems(1)] = None
    items: Annotated[list[Item] | None, list_map("key"), PatchMerge("key")] = None
    labels: dict[str, str] | None = None
    settings: Annotated[Item | None, ATOMIC_MAP] = None
    values: Annotated[JsonObject | None, FreeForm()] = None
    env: Annotated[list[EnvVar] | None, list_map("name")] = None
    security: Annotated[PodSecurityContext | None, immutable("sample.security-immutable")] = None
    template: JobTemplateSpec | None = None
    """Jobs made from this."""

    dns_name: Annotated[str | None, Json("DNSName")] = None


_SAMPLE = model_schema(Sample)


def _prop(name: str) -> JsonObject:
    node = get_path(_SAMPLE.root, ("properties", name))
    assert isinstance(node, dict)
    return node


def test_struct_becomes_an_object_with_required_fields_in_declaration_order() -> None:
    root = _SAMPLE.root
    assert root["type"] == "object"
    assert root["description"] == "A sample object."
    assert root["required"] == ["apiVersion", "metadata", "name"]
    assert root["minProperties"] == 1
    assert isinstance(root["properties"], dict)
    assert list(root["properties"]) == [
        "apiVersion",
        "metadata",
        "name",
        "count",
        "enabled",
        "mode",
        "updated",
        "tags",
        "args",
        "items",
        "labels",
        "settings",
        "values",
        "env",
        "security",
        "template",
        "DNSName",
    ]


def test_class_rules_keep_every_kubernetes_field_and_carry_the_trainc_id() -> None:
    assert _SAMPLE.root["x-kubernetes-validations"] == [
        {
            "rule": "has(self.name)",
            "message": "name is required",
            "messageExpression": "'missing ' + 'name'",
            "reason": "FieldValueRequired",
            "fieldPath": ".name",
            "x-trainc-id": "sample.has-name",
        }
    ]


def test_scalar_markers_map_to_openapi_keywords() -> None:
    assert _prop("name") == {
        "type": "string",
        "minLength": 1,
        "maxLength": 10,
        "pattern": "^[a-z]+$",
        "description": "The name.",
    }
    assert _prop("count") == {
        "type": "integer",
        "format": "int32",
        "minimum": 0,
        "default": 3,
        "description": "How many.",
    }
    assert _prop("enabled") == {"type": "boolean", "default": False}
    assert _prop("updated") == {"type": "string", "format": "date-time"}


def test_literal_becomes_an_enum_in_declaration_order() -> None:
    assert _prop("mode") == {"type": "string", "enum": ["fast", ""], "default": "fast"}


def test_list_markers_apply_to_the_list_and_item_markers_to_items() -> None:
    assert _prop("tags") == {
        "type": "array",
        "items": {"type": "string", "maxLength": 8},
        "x-kubernetes-list-type": "set",
        "maxItems": 3,
    }
    assert _prop("args") == {
        "type": "array",
        "items": {"type": "string"},
        "x-kubernetes-list-type": "atomic",
        "minItems": 1,
    }


def test_list_map_items_carry_their_class_description_and_keys() -> None:
    items = _prop("items")
    assert items["x-kubernetes-list-type"] == "map"
    assert items["x-kubernetes-list-map-keys"] == ["key"]
    assert items["items"] == {
        "type": "object",
        "description": "An entry of a keyed list.",
        "required": ["key"],
        "properties": {
            "key": {"type": "string", "description": "Identifies the entry."},
            "weight": {"type": "number", "maximum": 1.5},
        },
    }


def test_patch_merge_marker_writes_the_strategic_merge_patch_keywords() -> None:
    assert _prop("items")["x-kubernetes-patch-strategy"] == "merge"
    assert _prop("items")["x-kubernetes-patch-merge-key"] == "key"
    assert "x-kubernetes-patch-strategy" not in _prop("args")


def test_maps_free_form_objects_and_map_types() -> None:
    assert _prop("labels") == {"type": "object", "additionalProperties": {"type": "string"}}
    assert _prop("values") == {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    assert _prop("settings")["x-kubernetes-map-type"] == "atomic"


def test_wire_name_marker_overrides_camel_case() -> None:
    assert get_path(_SAMPLE.root, ("properties", "DNSName", "type")) == "string"


def test_kubernetes_types_are_references_with_the_field_description() -> None:
    assert _prop("env")["items"] == k8sdefs.definition_ref("io.k8s.api.core.v1.EnvVar")
    assert _prop("template") == {
        "$ref": "#/definitions/io.k8s.api.batch.v1.JobTemplateSpec",
        "description": "Jobs made from this.",
    }


def test_markers_on_a_kubernetes_type_copy_its_top_level_instead_of_a_ref_sibling() -> None:
    security = _prop("security")
    assert "$ref" not in security
    definition = k8sdefs.definition("io.k8s.api.core.v1.PodSecurityContext")
    assert security["properties"] == definition["properties"]
    assert security["x-kubernetes-validations"] == [
        {
            "rule": "self == oldSelf",
            "message": "field is immutable",
            "x-trainc-id": "sample.security-immutable",
        }
    ]


def test_closure_holds_exactly_the_reachable_definitions() -> None:
    names = set(_SAMPLE.definitions)
    assert list(_SAMPLE.definitions) == sorted(names)
    assert {
        "io.k8s.api.batch.v1.JobTemplateSpec",
        "io.k8s.api.core.v1.EnvVar",
        "io.k8s.api.core.v1.PodSpec",
        "io.k8s.api.core.v1.SELinuxOptions",
        k8sdefs.OBJECT_META,  # the root metadata
        k8sdefs.QUANTITY,
    } <= names
    assert "io.k8s.api.core.v1.Pod" not in names
    referenced = {
        target
        for definition in [_SAMPLE.root, *_SAMPLE.definitions.values()]
        for target in _refs(definition)
    }
    assert referenced == names


@dataclass(frozen=True, slots=True, kw_only=True)
class Secured:
    """Only an inlined Kubernetes type."""

    security: Annotated[PodSecurityContext, immutable("secured.immutable")]
    """Pod security."""


def test_closure_follows_references_inside_an_inlined_kubernetes_type() -> None:
    assert set(model_schema(Secured).definitions) == {
        "io.k8s.api.core.v1.AppArmorProfile",
        "io.k8s.api.core.v1.SELinuxOptions",
        "io.k8s.api.core.v1.SeccompProfile",
        "io.k8s.api.core.v1.Sysctl",
        "io.k8s.api.core.v1.WindowsSecurityContextOptions",
    }


def _refs(node: JsonObject) -> set[str]:
    found = {k8sdefs.ref_target(node)} - {None}
    for child in subschemas(node):
        found |= _refs(child)
    return {name for name in found if name is not None}


def test_embedded_object_meta_replaces_non_root_object_meta() -> None:
    metadata = get_path(_SAMPLE.definitions[_POD_TEMPLATE], ("properties", "metadata"))
    assert isinstance(metadata, dict)
    assert "$ref" not in metadata
    assert isinstance(metadata["properties"], dict)
    assert sorted(metadata["properties"]) == [
        "annotations",
        "finalizers",
        "labels",
        "name",
        "namespace",
    ]
    # Go templates embed the full ObjectMeta, whose finalizers merge as a set under SMP.
    finalizers = get_path(metadata, ("properties", "finalizers"))
    assert get_path(finalizers, ("x-kubernetes-patch-strategy",)) == "merge"
    assert "x-kubernetes-patch-strategy" not in as_object(
        get_path(metadata, ("properties", "labels"))
    )
    # The field's own description wins over the EmbeddedObjectMeta class docstring.
    assert str(metadata["description"]).startswith("Standard object's metadata.")
    # The root keeps the full ObjectMeta by reference.
    assert _prop("metadata")["$ref"] == "#/definitions/" + k8sdefs.OBJECT_META
    full = _SAMPLE.definitions[k8sdefs.OBJECT_META]
    assert get_path(full, ("properties", "managedFields", "type")) == "array"


def test_map_subschemas_visits_schema_positions_only() -> None:
    node: JsonObject = {
        "properties": {"a": {"type": "string"}},
        "items": {"type": "integer"},
        "additionalProperties": {"type": "boolean"},
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "default": {"type": "not a schema"},
        "enum": [{"type": "not a schema"}],
    }
    changed = map_subschemas(node, lambda child: {**child, "seen": True})
    assert changed["properties"] == {"a": {"type": "string", "seen": True}}
    assert changed["items"] == {"type": "integer", "seen": True}
    assert changed["additionalProperties"] == {"type": "boolean", "seen": True}
    assert changed["anyOf"] == [{"type": "integer", "seen": True}, {"type": "string", "seen": True}]
    assert changed["default"] == node["default"]
    assert changed["enum"] == node["enum"]
    assert node["items"] == {"type": "integer"}, "the input is not modified"
    assert len(list(subschemas(node))) == 5
