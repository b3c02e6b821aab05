from __future__ import annotations

from collections.abc import Iterator

import jsonschema_rs
import pytest

from trainc.crdgen import k8sdefs
from trainc.crdgen.crd import openapi_schema
from trainc.crdgen.openapi import subschemas
from trainc.model.introspect import ListOf, MapOf, Struct, TypeNode, fields_of
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    as_list,
    as_object,
    format_path,
    get_path,
)
from trainc.model.kinds import INPUT_KINDS, KindInfo
from trainc.model.markers import Rule, class_markers
from trainc.model.schemafiles import SCHEMA_TARGETS
from trainc.model.schematree import KindSchema, SchemaNode

_TARGETS = [target.name for target in SCHEMA_TARGETS]

_API_VERSION = "trainer.kubeflow.org/v1alpha1"


def _trainjob(
    *, runtime_ref: JsonObject | None = None, trainer: JsonObject | None = None
) -> JsonObject:
    """A TrainJob as a data scientist writes it; parts replaceable by keyword."""
    return {
        "apiVersion": _API_VERSION,
        "kind": "TrainJob",
        "metadata": {"name": "llm", "namespace": "team-a", "labels": {"team": "a"}},
        "spec": {
            "runtimeRef": runtime_ref if runtime_ref is not None else {"name": "torch-distributed"},
            "activeDeadlineSeconds": 3600,
            "trainer": trainer
            if trainer is not None
            else {
                "numNodes": 2,
                "image": "ghcr.io/example/train:1",
                "env": [{"name": "EPOCHS", "value": "3"}],
                "resourcesPerNode": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}},
            },
        },
    }


def _runtime(
    *, torch: JsonObject | None = None, job_metadata: JsonObject | None = None
) -> JsonObject:
    """A ClusterTrainingRuntime as a platform admin writes it; parts replaceable by keyword."""
    container: JsonObject = {
        "name": "node",
        "image": "pytorch/pytorch:2",
        "ports": [{"containerPort": 29500}],
    }
    job_template: JsonObject = {
        "metadata": job_metadata
        if job_metadata is not None
        else {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }
    return {
        "apiVersion": _API_VERSION,
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "torch-distributed"},
        "spec": {
            "mlPolicy": {"numNodes": 1, "torch": torch if torch is not None else {}},
            "ttlSecondsAfterFinished": 600,
            "template": {"spec": {"replicatedJobs": [{"name": "node", "template": job_template}]}},
        },
    }


def _errors(jsonschemas: dict[str, JsonObject], name: str, document: JsonValue) -> list[str]:
    """Each error as ``<instance path>: <failed keyword>``, sorted."""
    validator = jsonschema_rs.Draft4Validator(jsonschemas[name])
    return sorted(
        f"{format_path(error.instance_path)}: {error.schema_path[-1]}"
        for error in validator.iter_errors(document)
    )


@pytest.mark.parametrize("name", _TARGETS)
def test_schemas_are_valid_draft_04(name: str, jsonschemas: dict[str, JsonObject]) -> None:
    assert jsonschemas[name]["$schema"] == "http://json-schema.org/draft-04/schema#"
    jsonschema_rs.meta.validate(jsonschemas[name])


def _nodes(node: JsonObject) -> Iterator[JsonObject]:
    yield node
    for child in subschemas(node):
        yield from _nodes(child)


def _all_nodes(document: JsonObject) -> Iterator[JsonObject]:
    yield from _nodes(document)
    for definition in as_object(document.get("definitions", {})).values():
        assert isinstance(definition, dict)
        yield from _nodes(definition)


@pytest.mark.parametrize("name", _TARGETS)
def test_definitions_are_exactly_the_referenced_ones(
    name: str, jsonschemas: dict[str, JsonObject]
) -> None:
    document = jsonschemas[name]
    referenced = {k8sdefs.ref_target(node) for node in _all_nodes(document)} - {None}
    assert referenced == set(as_object(document.get("definitions", {})))


@pytest.mark.parametrize("name", _TARGETS)
def test_objects_with_properties_reject_unknown_fields(
    name: str, jsonschemas: dict[str, JsonObject]
) -> None:
    for node in _all_nodes(jsonschemas[name]):
        if "properties" in node:
            assert node["additionalProperties"] is False, sorted(as_object(node["properties"]))
        if node.get("x-kubernetes-list-type") == "set":
            assert node["uniqueItems"] is True
        else:
            assert "uniqueItems" not in node


def test_free_form_values_stay_open(jsonschemas: dict[str, JsonObject]) -> None:
    values = get_path(jsonschemas["Config"], ("properties", "values"))
    assert values == {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "description": "Values available to `*.j2` templates.",
    }
    assert _errors(jsonschemas, "Config", {"values": {"any": {"nested": [1]}}}) == []


@pytest.mark.parametrize("info", INPUT_KINDS, ids=lambda info: info.kind)
def test_api_kinds_pin_api_version_and_kind(
    info: KindInfo, jsonschemas: dict[str, JsonObject]
) -> None:
    properties = jsonschemas[info.kind]["properties"]
    assert get_path(properties, ("apiVersion", "enum")) == ["trainer.kubeflow.org/v1alpha1"]
    assert get_path(properties, ("kind", "enum")) == [info.kind]
    assert jsonschemas[info.kind]["required"] == ["apiVersion", "kind", "metadata", "spec"]


def test_root_metadata_is_the_full_object_meta(jsonschemas: dict[str, JsonObject]) -> None:
    metadata = get_path(jsonschemas["TrainJob"], ("properties", "metadata", "$ref"))
    assert metadata == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def test_realistic_objects_validate(jsonschemas: dict[str, JsonObject]) -> None:
    assert _errors(jsonschemas, "TrainJob", _trainjob()) == []
    assert _errors(jsonschemas, "ClusterTrainingRuntime", _runtime()) == []


def test_mistakes_a_user_makes_are_reported_with_their_path(
    jsonschemas: dict[str, JsonObject],
) -> None:
    trainer: JsonObject = {"nmae": 3, "resourcesPerNode": {"limits": {"memory": "16 GB"}}}
    job = {**_trainjob(runtime_ref={}, trainer=trainer), "apiVersion": "kubeflow.org/v1"}
    assert _errors(jsonschemas, "TrainJob", job) == [
        "apiVersion: enum",
        "spec.runtimeRef: required",
        "spec.trainer.resourcesPerNode.limits.memory: pattern",
        "spec.trainer: additionalProperties",
    ]


def test_set_lists_reject_duplicates(jsonschemas: dict[str, JsonObject]) -> None:
    torch: JsonObject = {
        "envInjection": {"targets": [{"jobName": "node", "containerNames": ["a", "a"]}]}
    }
    assert _errors(jsonschemas, "ClusterTrainingRuntime", _runtime(torch=torch)) == [
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames: uniqueItems"
    ]


def test_embedded_templates_reject_full_object_meta_fields(
    jsonschemas: dict[str, JsonObject],
) -> None:
    runtime = _runtime(job_metadata={"generateName": "x-"})
    assert _errors(jsonschemas, "ClusterTrainingRuntime", runtime) == [
        "spec.template.spec.replicatedJobs[0].template.metadata: additionalProperties"
    ]


def test_policy_and_config_schemas_follow_their_models(jsonschemas: dict[str, JsonObject]) -> None:
    policy: JsonObject = {
        "apiVersion": "trainc.dev/v1alpha1",
        "kind": "ValidationPolicy",
        "metadata": {"name": "gpus"},
        "spec": {
            "matchConstraints": {"resourceRules": [{"resources": ["trainjobs", "*"]}]},
            "validations": [{"expression": "true", "message": "ok"}],
            "params": {"max": 8},
        },
    }
    assert _errors(jsonschemas, "ValidationPolicy", policy) == []
    assert _errors(jsonschemas, "Config", {"kubernetesVersion": "1.33", "namespace": "ml"}) == []
    assert _errors(jsonschemas, "Config", {"kubernetesVersion": "v1.33"}) == [
        "kubernetesVersion: pattern"
    ]


# --- CEL rules: the model, the CRD and the JSON Schema agree -----------------------------


def _model_rules(node: TypeNode, path: FieldPath = ()) -> Iterator[tuple[FieldPath, Rule]]:
    """Every rule of the model with the wire path it guards (``0`` stands for any item)."""
    own = [marker for marker in node.markers if isinstance(marker, Rule)]
    if isinstance(node, Struct):
        own = [m for m in class_markers(node.cls) if isinstance(m, Rule)] + own
        for field in fields_of(node.cls):
            yield from _model_rules(field.type, (*path, field.wire_name))
    elif isinstance(node, ListOf):
        yield from _model_rules(node.item, (*path, 0))
    elif isinstance(node, MapOf):
        yield from _model_rules(node.value, (*path, "key"))
    for rule in own:
        yield path, rule


def _crd_node(schema: JsonObject, path: FieldPath) -> JsonObject:
    node: JsonValue = schema
    for part in path:
        node = get_path(node, ("items",) if isinstance(part, int) else ("properties", part))
    assert isinstance(node, dict), path
    return node


def _entries(node: SchemaNode | JsonObject) -> list[JsonObject]:
    return [
        entry for entry in as_list(node.get("x-kubernetes-validations")) if isinstance(entry, dict)
    ]


@pytest.mark.parametrize("info", INPUT_KINDS, ids=lambda info: info.kind)
def test_every_model_rule_appears_verbatim_in_crd_and_json_schema(
    info: KindInfo, jsonschemas: dict[str, JsonObject]
) -> None:
    rules = list(_model_rules(Struct(info.model)))
    assert rules, "every kind carries CEL rules"
    crd = openapi_schema(info)
    kind_schema = KindSchema(kind=info.kind, document=jsonschemas[info.kind])
    for path, rule in rules:
        expected = {"rule": rule.rule, "message": rule.message}
        optional = {
            "messageExpression": rule.message_expression,
            "reason": rule.reason,
            "fieldPath": rule.field_path,
        }
        expected.update({key: value for key, value in optional.items() if value is not None})
        assert expected in _entries(_crd_node(crd, path)), (format_path(path), rule.id)
        schema_node = kind_schema.node_at(path)
        assert schema_node is not None, format_path(path)
        assert {**expected, "x-trainc-id": rule.id} in _entries(schema_node), format_path(path)


@pytest.mark.parametrize("info", INPUT_KINDS, ids=lambda info: info.kind)
def test_no_rule_appears_that_the_model_does_not_declare(
    info: KindInfo, jsonschemas: dict[str, JsonObject]
) -> None:
    declared = sorted(rule.id for _, rule in _model_rules(Struct(info.model)))
    found = sorted(
        str(entry["x-trainc-id"])
        for node in _all_nodes(jsonschemas[info.kind])
        for entry in _entries(node)
    )
    assert found == declared


# --- strategic merge patch metadata: kept for trainc.resolve (test_crd: not in CRDs) ----

_JOBSET = ("spec", "template", "spec")
_RJOB = (*_JOBSET, "replicatedJobs", 0)
_POD = (*_RJOB, "template", "spec", "template", "spec")
_REQUIRED = ("requiredDuringSchedulingIgnoredDuringExecution",)


@pytest.mark.parametrize(
    ("path", "strategy", "merge_key"),
    [
        ((*_JOBSET, "replicatedJobs"), "merge", "name"),
        ((*_RJOB, "dependsOn"), "merge", "name"),
        ((*_RJOB, "template", "metadata", "finalizers"), "merge", None),
        ((*_RJOB, "template", "metadata", "labels"), None, None),
        ((*_POD, "containers"), "merge", "name"),
        ((*_POD, "initContainers", 0, "env"), "merge", "name"),
        ((*_POD, "containers", 0, "volumeMounts"), "merge", "mountPath"),
        ((*_POD, "containers", 0, "ports"), "merge", "containerPort"),
        ((*_POD, "volumes"), "merge,retainKeys", "name"),
        ((*_POD, "imagePullSecrets"), "merge", "name"),
        ((*_POD, "schedulingGates"), "merge", "name"),
        ((*_POD, "tolerations"), None, None),
        ((*_POD, "affinity", "nodeAffinity", *_REQUIRED, "nodeSelectorTerms"), None, None),
        ((*_JOBSET, "volumeClaimPolicies"), None, None),
    ],
    ids=lambda value: format_path(value) if isinstance(value, tuple) else None,
)
def test_json_schema_keeps_the_go_patch_tags(
    path: FieldPath, strategy: str | None, merge_key: str | None, jsonschemas: dict[str, JsonObject]
) -> None:
    for kind in ("TrainingRuntime", "ClusterTrainingRuntime"):
        node = KindSchema(kind=kind, document=jsonschemas[kind]).node_at(path)
        assert node is not None, format_path(path)
        assert node.get("x-kubernetes-patch-strategy") == strategy
        assert node.get("x-kubernetes-patch-merge-key") == merge_key


def test_schema_tree_reads_defaults_and_rules_through_refs(
    jsonschemas: dict[str, JsonObject],
) -> None:
    runtime = KindSchema(kind="TrainingRuntime", document=jsonschemas["TrainingRuntime"])
    mpi = runtime.node_at(("spec", "mlPolicy", "mpi", "numProcPerNode"))
    assert mpi is not None
    assert mpi["default"] == 1
    assert [e["x-trainc-id"] for e in _entries(mpi)] == ["runtime.mpi-num-proc-per-node"]
    job = ("spec", "template", "spec", "replicatedJobs", 0, "template")
    port = runtime.node_at(
        (*job, "spec", "template", "spec", "containers", 0, "ports", 0, "protocol")
    )
    assert port is not None
    assert port["default"] == "TCP"
