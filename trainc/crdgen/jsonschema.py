"""Draft-04 JSON Schemas for editors, kubeconform and trainc's own validator.

Draft 4 is the dialect closest to Kubernetes structural schemas (``docs/upstream.md``,
"API server"). Kubernetes types stay shared ``definitions``;
every Kubernetes extension is kept,
because ``trainc.checks`` reads defaults, list-map keys and CEL rules (with their
``x-trainc-id``) from these files, and ``trainc.resolve`` the strategic-merge patch
metadata (the Go types' patch tags). Two translations make plain JSON Schema tools catch
what the API server would: unknown fields fail (``additionalProperties: false``, which
the server expresses by pruning) and set-type lists reject duplicates (``uniqueItems``).
"""

from __future__ import annotations

from trainc.crdgen.openapi import map_subschemas, model_schema
from trainc.errors import CompilerBug
from trainc.model.json import JsonObject
from trainc.model.schemafiles import SchemaTarget

DRAFT_04 = "http://json-schema.org/draft-04/schema#"


def _strict(node: JsonObject) -> JsonObject:
    out = map_subschemas(node, _strict)
    if "properties" in out and out.get("x-kubernetes-preserve-unknown-fields") is not True:
        out["additionalProperties"] = False
    if out.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    return out


def _pin_type_meta(root: JsonObject, target: SchemaTarget) -> JsonObject:
    """Constrain ``apiVersion`` and ``kind`` so a file is checked against the right kind."""
    info = target.kind
    properties = root.get("properties")
    if info is None or not isinstance(properties, dict):
        return root
    pinned = dict(properties)
    for key, value in (("apiVersion", f"{info.group}/{info.version}"), ("kind", info.kind)):
        prop = properties[key]
        if not isinstance(prop, dict):
            raise CompilerBug(f"{target.name}.{key} is not a schema")
        pinned[key] = {**prop, "enum": [value]}
    return {**root, "properties": pinned}


def render_jsonschema(target: SchemaTarget) -> JsonObject:
    """The JSON Schema of one target: a kind, ``trainc.yaml`` or a ValidationPolicy."""
    schema = model_schema(target.model)
    root = _pin_type_meta(_strict(schema.root), target)
    document: JsonObject = {"$schema": DRAFT_04, **root}
    if schema.definitions:
        document["definitions"] = {
            name: _strict(definition) for name, definition in schema.definitions.items()
        }
    return document
