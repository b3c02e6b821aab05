from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from trainc.crdgen import k8sdefs
from trainc.errors import CompilerBug
from trainc.model.json import JsonValue, get_path


def _nodes(value: JsonValue) -> Iterator[dict[str, JsonValue]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _nodes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _nodes(item)


def test_version_is_pinned_to_the_one_trainer_head_builds_against() -> None:
    assert k8sdefs.KUBERNETES_VERSION == "1.36"


def test_types_are_single_and_never_null() -> None:
    pod_spec = k8sdefs.definition("io.k8s.api.core.v1.PodSpec")
    assert get_path(pod_spec, ("properties", "containers", "type")) == "array"
    types = {json.dumps(node["type"]) for node in _nodes(pod_spec) if "type" in node}
    assert "null" not in "".join(types)
    assert all(not t.startswith("[") for t in types)


def test_quantity_is_the_structural_int_or_string_form() -> None:
    assert k8sdefs.definition(k8sdefs.QUANTITY) == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "pattern": k8sdefs.QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": True,
    }
    assert k8sdefs.QUANTITY_PATTERN == (
        r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
        r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
    )


def test_int_or_string_has_no_pattern() -> None:
    assert k8sdefs.definition(k8sdefs.INT_OR_STRING) == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
    }


@pytest.mark.parametrize(
    "name",
    [
        "io.k8s.api.core.v1.PodSpec",
        "io.k8s.api.core.v1.Container",
        "io.k8s.api.core.v1.PersistentVolumeClaim",
        "io.k8s.api.batch.v1.JobSpec",
    ],
)
def test_client_only_keywords_are_dropped(name: str) -> None:
    dropped = {
        "x-kubernetes-group-version-kind",
        "x-kubernetes-unions",
        "enum",
        "oneOf",
    }
    for node in _nodes(k8sdefs.definition(name)):
        properties = node.get("properties")
        keywords = set(node) - (set(properties) if isinstance(properties, dict) else set())
        assert not keywords & dropped, node
        assert node.get("additionalProperties") is not False


def test_references_point_into_definitions() -> None:
    refs = [
        node["$ref"]
        for node in _nodes(k8sdefs.definition("io.k8s.api.core.v1.PodSpec"))
        if "$ref" in node
    ]
    assert refs
    assert all(isinstance(r, str) and r.startswith("#/definitions/io.k8s.") for r in refs)
    assert k8sdefs.ref_target({"$ref": "#/definitions/a.b.C"}) == "a.b.C"
    assert k8sdefs.ref_target({"type": "string"}) is None
    assert k8sdefs.definition_ref("a.b.C") == {"$ref": "#/definitions/a.b.C"}


def test_strategic_merge_patch_metadata_is_kept() -> None:
    # The Go patch tags runtime patches merge by (docs/upstream.md, "Runtime patches").
    pod_spec = k8sdefs.definition("io.k8s.api.core.v1.PodSpec")
    container = k8sdefs.definition("io.k8s.api.core.v1.Container")

    def patch_meta(definition: dict[str, JsonValue], prop: str) -> tuple[JsonValue, JsonValue]:
        node = get_path(definition, ("properties", prop))
        assert isinstance(node, dict), prop
        return node.get("x-kubernetes-patch-strategy"), node.get("x-kubernetes-patch-merge-key")

    assert patch_meta(pod_spec, "containers") == ("merge", "name")
    assert patch_meta(pod_spec, "volumes") == ("merge,retainKeys", "name")
    assert patch_meta(pod_spec, "tolerations") == (None, None)
    assert patch_meta(container, "volumeMounts") == ("merge", "mountPath")
    assert patch_meta(container, "ports") == ("merge", "containerPort")


def test_list_extensions_survive_normalisation() -> None:
    ports = get_path(k8sdefs.definition("io.k8s.api.core.v1.Container"), ("properties", "ports"))
    assert get_path(ports, ("x-kubernetes-list-type",)) == "map"
    assert get_path(ports, ("x-kubernetes-list-map-keys",)) == ["containerPort", "protocol"]


def test_every_go_marker_lands_on_an_existing_property() -> None:
    for (name, prop), keywords in k8sdefs.GO_MARKERS.items():
        node = get_path(k8sdefs.definition(name), ("properties", prop))
        assert isinstance(node, dict), (name, prop)
        assert {key: node.get(key) for key in keywords} == keywords, (name, prop)


def test_go_defaults_complete_list_map_keys() -> None:
    # protocol is a list-map key of container ports: the API server needs its default.
    port = k8sdefs.definition("io.k8s.api.core.v1.ContainerPort")
    assert get_path(port, ("properties", "protocol", "default")) == "TCP"


def test_types_embedding_local_object_reference_inherit_its_markers() -> None:
    for name in ("io.k8s.api.core.v1.ConfigMapVolumeSource", "io.k8s.api.core.v1.SecretEnvSource"):
        definition = k8sdefs.definition(name)
        assert definition["x-kubernetes-map-type"] == "atomic"
        assert get_path(definition, ("properties", "name", "default")) == ""
    # ...while a type that only has a field of that name is left alone.
    secret = k8sdefs.definition("io.k8s.api.core.v1.SecretVolumeSource")
    assert "x-kubernetes-map-type" not in secret


def test_definitions_are_shared_and_cached() -> None:
    first = k8sdefs.definition("io.k8s.api.core.v1.Toleration")
    assert k8sdefs.definition("io.k8s.api.core.v1.Toleration") is first


def test_unknown_definition_names_the_pinned_version() -> None:
    with pytest.raises(CompilerBug, match=r"Kubernetes 1\.36 has no definition 'io\.k8s\.Nope'"):
        k8sdefs.definition("io.k8s.Nope")
