"""Kubernetes core type definitions, loaded once and normalised into CRD structural form.

The schemas come from the OpenAPI definitions that the ``kubernetes-validate`` package
ships, at a pinned Kubernetes version: generated files must not change with the
version a user's cluster runs. Normalisation makes them what controller-gen would have
written for the same Go types (``docs/upstream.md``, "API server"): one type per node,
quantities and int-or-strings as ``anyOf`` with ``x-kubernetes-int-or-string``, no
client-only extensions, and the markers declared in Go (defaults, a few validations)
that the OpenAPI document lacks. The strategic-merge patch metadata stays: it is the
one record of the Go patch tags that runtime patches merge by (``docs/upstream.md``,
"Runtime patches"), and the CRD
writer removes it. References stay as ``$ref: "#/definitions/<name>"``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources

from trainc.errors import CompilerBug
from trainc.model import patterns
from trainc.model.json import JsonObject, JsonValue

KUBERNETES_VERSION = "1.36"
"""Kubernetes minor of the embedded core types; Trainer HEAD builds against k8s.io/api v0.36."""

DEFINITIONS_PREFIX = "#/definitions/"
"""How generated schemas reference a definition by name."""

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"

QUANTITY_PATTERN = patterns.QUANTITY.anchored

_INT_OR_STRING: JsonObject = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "x-kubernetes-int-or-string": True,
}

# Types the OpenAPI document spells as a oneOf, replaced by controller-gen's structural form.
_STRUCTURAL_FORMS: Mapping[str, JsonObject] = {
    QUANTITY: {**_INT_OR_STRING, "pattern": QUANTITY_PATTERN},
    INT_OR_STRING: _INT_OR_STRING,
}

# Keywords with no meaning for trainc: client discovery data and
# kubernetes-validate's own additions (strict-mode ``additionalProperties: false`` is
# applied to trainc's JSON Schemas later; ``enum`` only pins apiVersion/kind of
# top-level kinds, which embedded templates may leave out).
_DROPPED = frozenset(
    {
        "x-kubernetes-group-version-kind",
        "x-kubernetes-unions",
        "enum",
    }
)

# Go types that embed LocalObjectReference. controller-gen flattens the embedded struct
# into them, so they inherit its ``name: ""`` default and its atomic map type; the
# OpenAPI definitions keep neither.
_EMBEDS_LOCAL_OBJECT_REFERENCE = (
    "io.k8s.api.core.v1.ConfigMapEnvSource",
    "io.k8s.api.core.v1.ConfigMapKeySelector",
    "io.k8s.api.core.v1.ConfigMapProjection",
    "io.k8s.api.core.v1.ConfigMapVolumeSource",
    "io.k8s.api.core.v1.LocalObjectReference",
    "io.k8s.api.core.v1.SecretEnvSource",
    "io.k8s.api.core.v1.SecretKeySelector",
    "io.k8s.api.core.v1.SecretProjection",
)

_CONDITION = "io.k8s.apimachinery.pkg.apis.meta.v1.Condition"

# Markers written in the Go types (``+default``, ``+kubebuilder:validation:*``) that the
# OpenAPI definitions drop but controller-gen writes into every CRD embedding the type,
# keyed by (definition, property). tests/crdgen/test_crd.py pins this table against the
# upstream Trainer CRDs, which is how the set was found.
GO_MARKERS: Mapping[tuple[str, str], JsonObject] = {
    **{(name, "name"): {"default": ""} for name in _EMBEDS_LOCAL_OBJECT_REFERENCE},
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "fsType"): {"default": "ext4"},
    ("io.k8s.api.core.v1.AzureDiskVolumeSource", "readOnly"): {"default": False},
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): {"default": "TCP"},
    ("io.k8s.api.core.v1.FileKeySelector", "optional"): {"default": False},
    ("io.k8s.api.core.v1.GRPCAction", "service"): {"default": ""},
    ("io.k8s.api.core.v1.ISCSIVolumeSource", "iscsiInterface"): {"default": "default"},
    ("io.k8s.api.core.v1.RBDVolumeSource", "keyring"): {"default": "/etc/ceph/keyring"},
    ("io.k8s.api.core.v1.RBDVolumeSource", "pool"): {"default": "rbd"},
    ("io.k8s.api.core.v1.RBDVolumeSource", "user"): {"default": "admin"},
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "fsType"): {"default": "xfs"},
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", "storageMode"): {"default": "ThinProvisioned"},
    (_CONDITION, "message"): {"maxLength": 32768},
    (_CONDITION, "observedGeneration"): {"minimum": 0},
    (_CONDITION, "reason"): {
        "maxLength": 1024,
        "minLength": 1,
        "pattern": patterns.CONDITION_REASON.anchored,
    },
    (_CONDITION, "status"): {"enum": ["True", "False", "Unknown"]},
    (_CONDITION, "type"): {
        "maxLength": 316,
        "pattern": patterns.CONDITION_TYPE.anchored,
    },
}

# Object-level markers the same way, keyed by definition.
_GO_TYPE_MARKERS: Mapping[str, JsonObject] = {
    name: {"x-kubernetes-map-type": "atomic"} for name in _EMBEDS_LOCAL_OBJECT_REFERENCE
}


def definition_ref(name: str) -> JsonObject:
    """A reference to the named definition, as generated schemas write it."""
    return {"$ref": DEFINITIONS_PREFIX + name}


def ref_target(node: Mapping[str, JsonValue]) -> str | None:
    """Name of the definition ``node`` references, or None when it is not a reference."""
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _normalise(value: JsonValue) -> JsonValue:
    """One schema node (and everything under it) in structural form."""
    if isinstance(value, list):
        return [_normalise(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: JsonObject = {}
    for key, item in value.items():
        if key in _DROPPED or (key == "additionalProperties" and item is False):
            continue
        if key == "type" and isinstance(item, list):
            (out[key],) = (kind for kind in item if kind != "null")
        elif key == "$ref" and isinstance(item, str):
            out[key] = DEFINITIONS_PREFIX + item.rsplit("/", 1)[-1]
        elif key == "properties" and isinstance(item, dict):
            out[key] = {name: _normalise(prop) for name, prop in item.items()}
        elif key == "required" and isinstance(item, list):
            out[key] = sorted(item, key=str)  # a set; controller-gen writes it sorted
        else:
            out[key] = _normalise(item)
    return out


def _with_go_markers(name: str, definition: JsonObject) -> JsonObject:
    properties = definition.get("properties")
    if not isinstance(properties, dict):
        return definition
    patched = dict(properties)
    for (owner, prop), keywords in GO_MARKERS.items():
        if owner == name:
            node = patched[prop]
            if not isinstance(node, dict):
                raise CompilerBug(f"{name}.{prop} is not a schema")
            patched[prop] = {**node, **keywords}
    return {**definition, **_GO_TYPE_MARKERS.get(name, {}), "properties": patched}


@functools.cache
def _raw_definitions() -> Mapping[str, JsonValue]:
    path = (
        resources.files("kubernetes_validate")
        / "kubernetes-json-schema"
        / f"v{KUBERNETES_VERSION}.0-local"
        / "_definitions.json"
    )
    document = json.loads(path.read_text(encoding="utf-8"))
    definitions: dict[str, JsonValue] = document["$defs"]
    return definitions


@functools.cache
def definition(name: str) -> JsonObject:
    """The normalised schema of one Kubernetes definition, e.g. ``io.k8s.api.core.v1.PodSpec``.

    Callers get a shared object: copy before changing it.
    """
    if name in _STRUCTURAL_FORMS:
        return _STRUCTURAL_FORMS[name]
    raw = _raw_definitions().get(name)
    if raw is None:
        raise CompilerBug(f"Kubernetes {KUBERNETES_VERSION} has no definition {name!r}")
    normalised = _normalise(raw)
    if not isinstance(normalised, dict):
        raise CompilerBug(f"definition {name} is not an object schema")
    return _with_go_markers(name, normalised)
