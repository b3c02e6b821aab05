"""The API model as one OpenAPI v3 schema tree, with Kubernetes types as named references.

This is the single translation of dataclasses and markers into schema keywords; the CRD
writer inlines the references and the JSON Schema writer keeps them as ``definitions``,
so both files always describe the same API. Rule entries carry trainc's rule id under
``x-trainc-id``, and lists their strategic-merge patch metadata; the CRD writer removes
both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import assert_never

from trainc.crdgen import k8sdefs
from trainc.crdgen.docstrings import class_docs
from trainc.errors import CompilerBug
from trainc.model.introspect import (
    Enum,
    Free,
    K8sRef,
    ListOf,
    MapOf,
    Scalar,
    Struct,
    TypeNode,
    fields_of,
)
from trainc.model.json import JsonObject, JsonValue
from trainc.model.markers import (
    Default,
    Format,
    FreeForm,
    Json,
    K8s,
    ListType,
    MapType,
    Marker,
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
    class_markers,
)
from trainc.model.meta import EmbeddedObjectMeta

RULE_ID_KEY = "x-trainc-id"
"""Key of trainc's rule id inside an ``x-kubernetes-validations`` entry."""

_PATCH_STRATEGY = "x-kubernetes-patch-strategy"
_PATCH_MERGE_KEY = "x-kubernetes-patch-merge-key"
PATCH_KEYWORDS = (_PATCH_MERGE_KEY, _PATCH_STRATEGY)
"""Strategic-merge patch metadata (Go patch tags): ``trainc.resolve`` merges runtime patches
by it; a CRD schema has no such keywords (``docs/upstream.md``, "Runtime patches")."""

_VALUE_KEYWORDS: Mapping[type, str] = {
    Minimum: "minimum",
    Maximum: "maximum",
    MinLength: "minLength",
    MaxLength: "maxLength",
    MinItems: "minItems",
    MaxItems: "maxItems",
    MinProperties: "minProperties",
    Default: "default",
}


@dataclass(frozen=True, slots=True)
class ModelSchema:
    """A model's schema and the Kubernetes definitions it references, transitively."""

    root: JsonObject
    definitions: Mapping[str, JsonObject]


def map_subschemas(node: JsonObject, change: Callable[[JsonObject], JsonObject]) -> JsonObject:
    """A copy of ``node`` with ``change`` applied to each direct child schema.

    Children are the values of ``properties``, ``items``, an ``additionalProperties``
    schema and ``anyOf`` members; defaults, enums and rules are data and stay untouched.
    """
    out = dict(node)
    properties = node.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {name: change(_schema(sub)) for name, sub in properties.items()}
    for key in ("items", "additionalProperties"):
        sub = node.get(key)
        if isinstance(sub, dict):
            out[key] = change(sub)
    members = node.get("anyOf")
    if isinstance(members, list):
        out["anyOf"] = [change(_schema(member)) for member in members]
    return out


def subschemas(node: JsonObject) -> Iterator[JsonObject]:
    """The direct child schemas of ``node``, in the order :func:`map_subschemas` visits."""
    found: list[JsonObject] = []

    def keep(child: JsonObject) -> JsonObject:
        found.append(child)
        return child

    map_subschemas(node, keep)
    return iter(found)


def _schema(value: JsonValue) -> JsonObject:
    if not isinstance(value, dict):
        raise CompilerBug(f"expected a schema object, got {value!r}")
    return value


def _patch_keywords(node: JsonValue) -> JsonObject:
    """The strategic-merge patch metadata of a schema node; empty when it has none."""
    if not isinstance(node, dict):
        return {}
    return {key: node[key] for key in PATCH_KEYWORDS if key in node}


def _rule(rule: Rule) -> JsonObject:
    entry: JsonObject = {"rule": rule.rule, "message": rule.message, RULE_ID_KEY: rule.id}
    optional = {
        "messageExpression": rule.message_expression,
        "reason": rule.reason,
        "fieldPath": rule.field_path,
    }
    entry.update({key: value for key, value in optional.items() if value is not None})
    return entry


def _marker_keywords(marker: Marker) -> JsonObject:
    """The keywords one marker contributes (rules are collected by the caller)."""
    out: JsonObject = {}
    match marker:
        case (
            Minimum()
            | Maximum()
            | MinLength()
            | MaxLength()
            | MinItems()
            | MaxItems()
            | MinProperties()
            | Default()
        ):
            out[_VALUE_KEYWORDS[type(marker)]] = marker.value
        case Pattern():
            out["pattern"] = marker.regex
        case Format():
            out["format"] = marker.name
        case ListType():
            out["x-kubernetes-list-type"] = marker.kind
            if marker.keys:
                out["x-kubernetes-list-map-keys"] = list(marker.keys)
        case MapType():
            out["x-kubernetes-map-type"] = marker.kind
        case PatchMerge():
            out[_PATCH_STRATEGY] = "merge"
            out[_PATCH_MERGE_KEY] = marker.key
        case FreeForm():
            out["x-kubernetes-preserve-unknown-fields"] = True
        case Json() | K8s() | Rule():
            pass
        case _:
            assert_never(marker)
    return out


def _keywords(node: TypeNode) -> JsonObject:
    """Schema keywords from a node's markers; a struct's class markers come first."""
    markers = node.markers
    if isinstance(node, Struct):
        markers = (*class_markers(node.cls), *markers)
    out: JsonObject = {}
    for marker in markers:
        out.update(_marker_keywords(marker))
    rules: list[JsonValue] = [_rule(marker) for marker in markers if isinstance(marker, Rule)]
    if rules:
        out["x-kubernetes-validations"] = rules
    return out


class _Builder:
    """Translates one model; remembers the Kubernetes definitions it rewrote."""

    def __init__(self) -> None:
        self._definitions: dict[str, JsonObject] = {}

    def node(self, node: TypeNode) -> JsonObject:
        """The schema of one type, with its markers (and a struct's class markers) applied."""
        match node:
            case Scalar():
                base: JsonObject = {"type": node.kind}
            case Enum():
                base = {"type": "string", "enum": list(node.values)}
            case ListOf():
                base = {"type": "array", "items": self.node(node.item)}
            case MapOf():
                base = {"type": "object", "additionalProperties": self.node(node.value)}
            case Struct():
                base = self.struct(node.cls)
            case K8sRef():
                return self.k8s(node)
            case Free():
                base = {"type": "object"}
            case _:
                assert_never(node)
        return {**base, **_keywords(node)}

    def struct(self, cls: type) -> JsonObject:
        """An object schema for an API dataclass; field docstrings become descriptions."""
        docs = class_docs(cls)
        properties: JsonObject = {}
        required: list[JsonValue] = []
        for field in fields_of(cls):
            prop = self.node(field.type)
            description = docs.fields.get(field.python_name)
            properties[field.wire_name] = (
                {**prop, "description": description} if description else prop
            )
            if field.required:
                required.append(field.wire_name)
        out: JsonObject = {"type": "object", "properties": properties}
        if docs.description:
            out["description"] = docs.description
        if required:
            out["required"] = sorted(required, key=str)  # a set; controller-gen sorts it too
        return out

    def k8s(self, node: K8sRef) -> JsonObject:
        """A reference, or a copy of the definition's top level when markers refine it.

        A ``$ref`` hides its sibling keywords from draft-04 validators and from
        ``trainc.model.schematree``, so only a description may stand beside one.
        """
        extra = _keywords(node)
        if not extra:
            return k8sdefs.definition_ref(node.definition)
        return {**self.definition(node.definition), **extra}

    def definition(self, name: str) -> JsonObject:
        """A Kubernetes definition with every embedded ObjectMeta narrowed.

        Objects created from a template keep only labels, annotations, name, namespace
        and finalizers of their metadata, as controller-gen's generateEmbeddedObjectMeta
        writes it. Only the root ``metadata`` of a kind is a full ObjectMeta.
        """
        if name not in self._definitions:
            self._definitions[name] = self._embed_meta(k8sdefs.definition(name))
        return self._definitions[name]

    def _embed_meta(self, node: JsonObject) -> JsonObject:
        if k8sdefs.ref_target(node) == k8sdefs.OBJECT_META:
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            return {**self._embedded_object_meta(), **siblings}
        return map_subschemas(node, self._embed_meta)

    def _embedded_object_meta(self) -> JsonObject:
        """EmbeddedObjectMeta with the patch metadata of the ObjectMeta fields it keeps.

        The Go templates embed the full ObjectMeta, so strategic merge patch merges their
        finalizers as a set (``docs/upstream.md``, "Runtime patches").
        """
        embedded = self.struct(EmbeddedObjectMeta)
        full = _schema(k8sdefs.definition(k8sdefs.OBJECT_META).get("properties"))
        properties: JsonObject = {
            name: {**_schema(prop), **_patch_keywords(full.get(name))}
            for name, prop in _schema(embedded.get("properties")).items()
        }
        return {**embedded, "properties": properties}

    def closure(self, root: JsonObject) -> dict[str, JsonObject]:
        """Every definition reachable from ``root``, by name, sorted."""
        found: dict[str, JsonObject] = {}
        pending = [root]
        while pending:
            node = pending.pop()
            name = k8sdefs.ref_target(node)
            if name is not None and name not in found:
                found[name] = self.definition(name)
                pending.append(found[name])
            pending.extend(subschemas(node))
        return dict(sorted(found.items()))


def model_schema(model: type) -> ModelSchema:
    """The schema of an API dataclass (a kind, trainc.yaml, a policy) and its definitions."""
    builder = _Builder()
    root = builder.node(Struct(model))
    return ModelSchema(root=root, definitions=builder.closure(root))
