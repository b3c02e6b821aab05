from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from trainc.crdgen import k8sdefs
from trainc.crdgen.crd import openapi_schema
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.kinds import INPUT_KINDS, KINDS_BY_NAME, RUNTIME_KINDS
from trainc.model.markers import Rule, class_markers
from trainc.model.runtime import TrainingRuntimeSpec

SchemaIndex = dict[str, JsonObject]
Rules = list[tuple[JsonValue, JsonValue]]
"""CEL rules of one schema node as (rule, message) pairs."""

# Keywords compared at every path both CRDs share (descriptions are trainc's own prose).
_COMPARED = (
    *("type", "format", "enum", "default", "required", "anyOf", "pattern"),
    *("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties"),
    *("x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"),
    *("x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields"),
)

# Where trainc knowingly differs from upstream HEAD, and why. Anything else is a bug in the
# model, in k8sdefs.GO_MARKERS, or a new upstream change to port.
_INTENDED: dict[tuple[str, str], str] = {
    ("", "required"): "trainc requires apiVersion, kind, metadata and spec in git",
    (".spec.template.spec.replicatedJobs[].replicas", "minimum"): (
        "JobSet HEAD has minimum 0; Trainer's vendored JobSet copy predates it"
    ),
}

# What trainc adds to the runtimes (KEP-2899): the TTL field and, on the spec, the rules
# that keep lifecycle settings out of the embedded JobSet and Jobs.
_ADDED_PATHS = {".spec.ttlSecondsAfterFinished"}
_KEP_2899_RULE_IDS = {"runtime.no-jobset-ttl", "runtime.no-job-deadline", "runtime.no-job-ttl"}
_ADDED_RULES: dict[str, Rules] = {
    ".spec": [
        (marker.rule, marker.message)
        for marker in class_markers(TrainingRuntimeSpec)
        if isinstance(marker, Rule) and marker.id in _KEP_2899_RULE_IDS
    ]
}


def _index(node: JsonObject, path: str = "", out: SchemaIndex | None = None) -> SchemaIndex:
    """Every schema node by path: ``.a.b`` for properties, ``[]`` items, ``{}`` map values."""
    found: SchemaIndex = {} if out is None else out
    found[path] = node
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, child in properties.items():
            assert isinstance(child, dict)
            _index(child, f"{path}.{name}", found)
    for key, suffix in (("items", "[]"), ("additionalProperties", "{}")):
        child = node.get(key)
        if isinstance(child, dict):
            _index(child, path + suffix, found)
    return found


def _entries(node: JsonObject) -> list[JsonObject]:
    entries = node.get("x-kubernetes-validations")
    return [entry for entry in as_list(entries) if isinstance(entry, dict)]


def _rules(node: JsonObject) -> Rules:
    return [(entry.get("rule"), entry.get("message")) for entry in _entries(node)]


def _load_crd_schema(path: Path) -> JsonObject:
    """The ``openAPIV3Schema`` of a one-version CRD file."""
    (crd,) = [doc for doc in _YAML.load_all(path.read_text(encoding="utf-8")) if doc]
    schema = get_path(crd, ("spec", "versions", 0, "schema", "openAPIV3Schema"))
    assert isinstance(schema, dict)
    return schema


_YAML = YAML(typ="safe", pure=False)


@pytest.fixture(scope="module")
def upstream(shared_dir: Path) -> dict[str, SchemaIndex]:
    """The HEAD upstream CRD schemas by kind, path-indexed; parsed once (they are large)."""
    crds = shared_dir / "upstream" / "crds"
    return {
        info.kind: _index(_load_crd_schema(crds / f"{info.group}_{info.plural}.yaml"))
        for info in INPUT_KINDS
    }


@pytest.fixture(scope="module")
def generated(crds: dict[str, JsonObject]) -> dict[str, SchemaIndex]:
    out: dict[str, SchemaIndex] = {}
    for kind, crd in crds.items():
        schema = get_path(crd, ("spec", "versions", 0, "schema", "openAPIV3Schema"))
        assert isinstance(schema, dict)
        out[kind] = _index(schema)
    return out


def _keyword_differences(ours: SchemaIndex, theirs: SchemaIndex) -> list[str]:
    """Compared keywords that differ at paths both schemas have, unless intended."""
    return [
        f"{path or '<root>'} {key}: ours={ours[path].get(key)!r} upstream={theirs[path].get(key)!r}"
        for path in sorted(set(ours) & set(theirs))
        for key in _COMPARED
        if ours[path].get(key) != theirs[path].get(key) and (path, key) not in _INTENDED
    ]


def _rule_differences(
    ours: SchemaIndex, theirs: SchemaIndex, expected_added: Mapping[str, Rules]
) -> list[str]:
    """Upstream rules (rule and message, verbatim) missing at a shared path, or extras."""
    differences = []
    for path in sorted(set(ours) & set(theirs)):
        mine, upstream_rules = _rules(ours[path]), _rules(theirs[path])
        lost = [rule for rule in upstream_rules if rule not in mine]
        added = [rule for rule in mine if rule not in upstream_rules]
        if lost:
            differences.append(f"{path or '<root>'}: upstream rules missing: {lost}")
        if added != expected_added.get(path, []):
            differences.append(f"{path or '<root>'}: rules not in upstream: {added}")
    return differences


_KINDS = [info.kind for info in INPUT_KINDS]


@pytest.mark.parametrize("kind", _KINDS)
def test_every_upstream_field_path_exists(
    kind: str, upstream: dict[str, SchemaIndex], generated: dict[str, SchemaIndex]
) -> None:
    missing = sorted(set(upstream[kind]) - set(generated[kind]))
    assert missing == [], f"{kind}: upstream HEAD fields the model lacks"


@pytest.mark.parametrize("kind", _KINDS)
def test_only_kep_2899_fields_are_added(
    kind: str, upstream: dict[str, SchemaIndex], generated: dict[str, SchemaIndex]
) -> None:
    added = set(generated[kind]) - set(upstream[kind])
    assert added == (_ADDED_PATHS if kind in RUNTIME_KINDS else set())


@pytest.mark.parametrize("kind", _KINDS)
def test_keywords_match_upstream_at_shared_paths(
    kind: str, upstream: dict[str, SchemaIndex], generated: dict[str, SchemaIndex]
) -> None:
    differences = _keyword_differences(generated[kind], upstream[kind])
    assert differences == [], "\n".join(differences)


@pytest.mark.parametrize("kind", _KINDS)
def test_cel_rules_and_messages_match_upstream_verbatim(
    kind: str, upstream: dict[str, SchemaIndex], generated: dict[str, SchemaIndex]
) -> None:
    expected_added = _ADDED_RULES if kind in RUNTIME_KINDS else {}
    differences = _rule_differences(generated[kind], upstream[kind], expected_added)
    assert differences == [], "\n".join(differences)


def test_embedded_jobset_spec_matches_the_jobset_crd(
    shared_dir: Path, generated: dict[str, SchemaIndex]
) -> None:
    # The JobSet CRD at the pinned JobSet revision is newer than Trainer's vendored copy
    # (replicas has its minimum there), so trainc's JobSetSpec must equal it exactly.
    crd = shared_dir / "upstream" / "crds" / "jobset.x-k8s.io_jobsets.yaml"
    spec = get_path(_load_crd_schema(crd), ("properties", "spec"))
    assert isinstance(spec, dict)
    jobset = _index(spec)
    prefix = ".spec.template.spec"
    ours = {
        path.removeprefix(prefix): node
        for path, node in generated["TrainingRuntime"].items()
        if path == prefix or path.startswith((prefix + ".", prefix + "["))
    }
    assert sorted(set(ours) ^ set(jobset)) == []
    differences = _keyword_differences(ours, jobset) + _rule_differences(ours, jobset, {})
    assert differences == [], "\n".join(differences)


def test_runtimes_gain_the_kep_2899_ttl(generated: dict[str, SchemaIndex]) -> None:
    for kind in RUNTIME_KINDS:
        assert generated[kind][".spec.ttlSecondsAfterFinished"] == {
            "type": "integer",
            "format": "int32",
            "minimum": 0,
            "description": generated[kind][".spec.ttlSecondsAfterFinished"]["description"],
        }


@pytest.mark.parametrize("kind", _KINDS)
def test_schema_is_structural_and_self_contained(
    kind: str, generated: dict[str, SchemaIndex]
) -> None:
    problems = [
        f"{path or '<root>'}: {problem}"
        for path, node in generated[kind].items()
        for problem in _structural_problems(node)
    ]
    assert problems == []


def _structural_problems(node: JsonObject) -> Iterator[str]:
    """What the API server would reject in a CRD schema node, or trainc must not publish."""
    untyped_ok = node.get("x-kubernetes-int-or-string") or node.get(
        "x-kubernetes-preserve-unknown-fields"
    )
    if "type" not in node and not untyped_ok:
        yield "no type"
    if "properties" in node and "additionalProperties" in node:
        yield "properties with additionalProperties"
    trainc_only = ("x-trainc-id", "x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy")
    yield from (key for key in ("$ref", "uniqueItems", "nullable", *trainc_only) if key in node)
    for entry in _entries(node):
        if not set(entry) <= {"rule", "message", "messageExpression", "reason", "fieldPath"}:
            yield f"rule keys {sorted(entry)}"


@pytest.mark.parametrize("kind", _KINDS)
def test_list_map_keys_are_required_or_defaulted(
    kind: str, generated: dict[str, SchemaIndex]
) -> None:
    # The API server rejects a CRD whose list-map key could be absent from an item.
    for path, node in generated[kind].items():
        keys = node.get("x-kubernetes-list-map-keys")
        if not isinstance(keys, list):
            continue
        required = as_list(generated[kind][path + "[]"].get("required"))
        for key in keys:
            assert isinstance(key, str)
            assert key in required or "default" in generated[kind][f"{path}[].{key}"], (path, key)


def test_root_metadata_is_left_to_the_api_server() -> None:
    for info in INPUT_KINDS:
        assert get_path(openapi_schema(info), ("properties", "metadata")) == {"type": "object"}


def test_embedded_templates_get_embedded_object_meta(generated: dict[str, SchemaIndex]) -> None:
    template = generated["TrainingRuntime"][
        ".spec.template.spec.replicatedJobs[].template.metadata"
    ]
    assert set(as_object(template["properties"])) == {
        "annotations",
        "finalizers",
        "labels",
        "name",
        "namespace",
    }


@pytest.mark.parametrize("kind", _KINDS)
def test_crd_names_and_version_come_from_kind_info(kind: str, crds: dict[str, JsonObject]) -> None:
    info = KINDS_BY_NAME[kind]
    crd = crds[kind]
    assert crd["apiVersion"] == "apiextensions.k8s.io/v1"
    assert crd["kind"] == "CustomResourceDefinition"
    assert get_path(crd, ("metadata", "name")) == f"{info.plural}.trainer.kubeflow.org"
    assert get_path(crd, ("metadata", "annotations")) == {"trainc.dev/generated-by": "trainc"}
    assert get_path(crd, ("spec", "names")) == {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": info.plural,
        "singular": kind.lower(),
    }
    assert get_path(crd, ("spec", "scope")) == info.scope
    (version,) = as_list(get_path(crd, ("spec", "versions")))
    assert isinstance(version, dict)
    assert (version["name"], version["served"], version["storage"]) == ("v1alpha1", True, True)
    assert ("subresources" in version) == info.status_subresource
    columns = as_list(version.get("additionalPrinterColumns"))
    assert [as_object(c).get("name") for c in columns] == [c.name for c in info.printer_columns]


def test_trainjob_has_status_and_state_column(crds: dict[str, JsonObject]) -> None:
    version = get_path(crds["TrainJob"], ("spec", "versions", 0))
    assert get_path(version, ("subresources",)) == {"status": {}}
    assert get_path(version, ("additionalPrinterColumns", 0)) == {
        "name": "State",
        "type": "string",
        "jsonPath": ".status.conditions[-1:].type",
        "description": "Latest condition of the TrainJob",
    }


def test_quantities_keep_the_int_or_string_form(generated: dict[str, SchemaIndex]) -> None:
    node = generated["TrainJob"][".spec.trainer.resourcesPerNode.limits{}"]
    assert node == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "pattern": k8sdefs.QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": True,
    }
