"""CustomResourceDefinition manifests for the trainer.kubeflow.org kinds.

A CRD schema must be structural and self-contained (no ``$ref``), so every Kubernetes
definition is inlined where it is used, and the root ``metadata`` is the bare
``{type: object}`` the API server expects (it validates ObjectMeta itself). Keywords only
trainc reads (rule ids, strategic-merge patch metadata) stay in the JSON Schemas.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.crdgen import k8sdefs
from trainc.crdgen.openapi import PATCH_KEYWORDS, RULE_ID_KEY, map_subschemas, model_schema
from trainc.errors import CompilerBug
from trainc.model.json import JsonObject, JsonValue
from trainc.model.kinds import KindInfo

GENERATED_BY_ANNOTATION = "trainc.dev/generated-by"


class _Inliner:
    """Replaces references by their (memoised, already inlined) definitions."""

    def __init__(self, definitions: Mapping[str, JsonObject]) -> None:
        self._definitions = definitions
        self._done: dict[str, JsonObject] = {}
        self._active: list[str] = []

    def inline(self, node: JsonObject) -> JsonObject:
        """``node`` with every reference below it replaced; a sibling description wins."""
        name = k8sdefs.ref_target(node)
        if name is None:
            return _crd_keywords(map_subschemas(node, self.inline))
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        return _crd_keywords({**self._resolved(name), **siblings})

    def _resolved(self, name: str) -> JsonObject:
        if name in self._active:
            raise CompilerBug(f"recursive Kubernetes type cannot be inlined: {name}")
        if name not in self._done:
            self._active.append(name)
            self._done[name] = self.inline(self._definitions[name])
            self._active.pop()
        return self._done[name]


def _crd_keywords(node: JsonObject) -> JsonObject:
    """Drop what only trainc reads: rule ids, patch metadata, empty ``properties``.

    The API server rejects the patch keywords, which a CRD schema does not define, and
    drops the empty ``properties`` of empty structs; GitOps tools would then report the
    stored CRD as drifted from the file.
    """
    out = {key: value for key, value in node.items() if key not in PATCH_KEYWORDS}
    if out.get("properties") == {}:
        del out["properties"]
    rules = out.get("x-kubernetes-validations")
    if isinstance(rules, list):
        out["x-kubernetes-validations"] = [
            {key: value for key, value in rule.items() if key != RULE_ID_KEY}
            if isinstance(rule, dict)
            else rule
            for rule in rules
        ]
    return out


def openapi_schema(info: KindInfo) -> JsonObject:
    """The ``openAPIV3Schema`` of one kind: fully inlined, no trainc-only keys."""
    schema = model_schema(info.model)
    root = _Inliner(schema.definitions).inline(schema.root)
    properties = root.get("properties")
    if not isinstance(properties, dict):
        raise CompilerBug(f"{info.kind} has no properties")
    return {**root, "properties": {**properties, "metadata": {"type": "object"}}}


def _printer_columns(info: KindInfo) -> list[JsonValue]:
    return [
        {
            "name": column.name,
            "type": column.type,
            "jsonPath": column.json_path,
            "description": column.description,
        }
        for column in info.printer_columns
    ]


def render_crd(info: KindInfo) -> JsonObject:
    """The ``apiextensions.k8s.io/v1`` CRD of one kind, with its only version ``v1alpha1``."""
    version: JsonObject = {
        "name": info.version,
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": openapi_schema(info)},
    }
    if info.printer_columns:
        version["additionalPrinterColumns"] = _printer_columns(info)
    if info.status_subresource:
        version["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{info.plural}.{info.group}",
            "annotations": {GENERATED_BY_ANNOTATION: "trainc"},
        },
        "spec": {
            "group": info.group,
            "names": {
                "kind": info.kind,
                "listKind": f"{info.kind}List",
                "plural": info.plural,
                "singular": info.singular,
            },
            "scope": info.scope,
            "versions": [version],
        },
    }
