"""The emitted kinds' schemas (JobSet, both PodGroups): what trainc checks its output against."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from ruamel.yaml import YAML

from trainc.crdgen.jsonschema import render_jsonschema
from trainc.model.introspect import fields_of
from trainc.model.jobset import JobSet
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    POD_GROUP_KIND,
    VOLCANO_API_VERSION,
)
from trainc.model.podgroup import CoschedulingPodGroup, VolcanoPodGroup
from trainc.model.schemafiles import OUTPUT_SCHEMAS, SCHEMA_TARGETS

_KINDS = [
    (JOBSET_API_VERSION, JOBSET_KIND, JobSet),
    (COSCHEDULING_API_VERSION, POD_GROUP_KIND, CoschedulingPodGroup),
    (VOLCANO_API_VERSION, POD_GROUP_KIND, VolcanoPodGroup),
]


@functools.cache
def _validator(api_version: str, kind: str) -> Any:
    return jsonschema_rs.Draft4Validator(render_jsonschema(OUTPUT_SCHEMAS[api_version, kind]))


def _errors(document: JsonObject) -> list[str]:
    validator = _validator(str(document["apiVersion"]), str(document["kind"]))
    return sorted(error.message for error in validator.iter_errors(document))


def _pod_group(api_version: str, **spec: Any) -> JsonObject:
    return {
        "apiVersion": api_version,
        "kind": POD_GROUP_KIND,
        "metadata": {"name": "job", "namespace": "team-a"},
        "spec": spec,
    }


@pytest.mark.parametrize(("api_version", "kind", "model"), _KINDS)
def test_models_pin_the_constants_they_are_filed_under(
    api_version: str, kind: str, model: type
) -> None:
    hints = {field.python_name: field.type for field in fields_of(model)}
    assert getattr(hints["api_version"], "values", None) == (api_version,)
    assert getattr(hints["kind"], "values", None) == (kind,)
    assert OUTPUT_SCHEMAS[api_version, kind].model is model
    assert OUTPUT_SCHEMAS[api_version, kind] in SCHEMA_TARGETS


def test_output_schemas_are_filed_like_kubeconform_expects() -> None:
    assert sorted(target.path for target in OUTPUT_SCHEMAS.values()) == [
        "jsonschema/jobset.x-k8s.io/jobset_v1alpha2.json",
        "jsonschema/scheduling.volcano.sh/podgroup_v1beta1.json",
        "jsonschema/scheduling.x-k8s.io/podgroup_v1alpha1.json",
    ]
    assert len({target.name for target in SCHEMA_TARGETS}) == len(SCHEMA_TARGETS)


def test_pod_groups_as_trainc_builds_them_are_valid() -> None:
    resources = {"cpu": "1250m", "memory": "2560Mi"}
    assert not _errors(
        _pod_group(
            COSCHEDULING_API_VERSION,
            minMember=3,
            minResources=resources,
            scheduleTimeoutSeconds=30,
        )
    )
    assert not _errors(
        _pod_group(
            VOLCANO_API_VERSION,
            minMember=102,
            minResources=resources,
            queue="q1",
            priorityClassName="system-node-critical",
            networkTopology={"mode": "soft", "highestTierAllowed": 2},
        )
    )


@pytest.mark.parametrize(
    ("api_version", "spec"),
    [
        (COSCHEDULING_API_VERSION, {"minMember": 0}),  # scheduler-plugins: minimum 1
        (COSCHEDULING_API_VERSION, {"minResources": {"cpu": "lots"}}),
        (COSCHEDULING_API_VERSION, {"queue": "q1"}),  # a Volcano field
        (VOLCANO_API_VERSION, {"minMember": -1}),
        (VOLCANO_API_VERSION, {"queue": "Q_1"}),
        (VOLCANO_API_VERSION, {"queue": "q" * 254}),
        (VOLCANO_API_VERSION, {"networkTopology": {"mode": "strict"}}),
        (VOLCANO_API_VERSION, {"networkTopology": {"highestTierAllowed": -1}}),
        (VOLCANO_API_VERSION, {"scheduleTimeoutSeconds": 60}),  # a Coscheduling field
    ],
)
def test_pod_groups_reject_what_their_crds_reject(api_version: str, spec: JsonObject) -> None:
    assert _errors(_pod_group(api_version, **spec))


def test_volcano_allows_an_empty_gang() -> None:
    assert not _errors(_pod_group(VOLCANO_API_VERSION, minMember=0))


@pytest.mark.parametrize(("api_version", "kind", "model"), _KINDS)
def test_status_and_wrong_kinds_are_rejected(api_version: str, kind: str, model: type) -> None:
    del model
    base: JsonObject = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "job"}}
    assert not _errors(base)
    assert _errors({**base, "status": {}})
    schema = render_jsonschema(OUTPUT_SCHEMAS[api_version, kind])
    properties = as_object(schema["properties"])
    assert as_object(properties["apiVersion"])["enum"] == [api_version]
    assert as_object(properties["kind"])["enum"] == [kind]


def test_jobset_schema_checks_the_embedded_spec() -> None:
    jobset: JsonObject = {
        "apiVersion": JOBSET_API_VERSION,
        "kind": JOBSET_KIND,
        "metadata": {"name": "job", "namespace": "team-a", "labels": {"a": "b"}},
        "spec": {
            "suspend": False,
            "replicatedJobs": [
                {
                    "name": "node",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": 2,
                            "completions": 2,
                            "template": {"spec": {"containers": [{"name": "node"}]}},
                        }
                    },
                }
            ],
        },
    }
    assert not _errors(jobset)
    spec = as_object(jobset["spec"])
    assert _errors({**jobset, "spec": {**spec, "replicatedJobs": [{"name": "node"}]}})
    assert _errors({**jobset, "spec": {**spec, "ttlSecondsAfterFinished": -1}})


# ----------------------------------------------------------------- against the upstream CRDs

_CRDS = {
    (COSCHEDULING_API_VERSION, POD_GROUP_KIND): "scheduling.x-k8s.io_podgroups.yaml",
    (VOLCANO_API_VERSION, POD_GROUP_KIND): "scheduling.volcano.sh_podgroups.yaml",
}
_CONSTRAINTS = ("type", "format", "minimum", "maxLength", "pattern", "default", "enum")


def _crd_spec(shared_dir: Path, file: str) -> JsonObject:
    documents = list(YAML(typ="safe").load_all(shared_dir / "upstream" / "crds" / file))
    (crd,) = [d for d in documents if d]
    (version,) = crd["spec"]["versions"]
    return as_object(version["schema"]["openAPIV3Schema"]["properties"]["spec"])


def _resolved(node: JsonObject, definitions: JsonObject) -> JsonObject:
    ref = node.get("$ref")
    return as_object(definitions[ref.rsplit("/", 1)[-1]]) if isinstance(ref, str) else node


def _compare(ours: JsonObject, theirs: JsonObject, definitions: JsonObject, path: str) -> None:
    """Same constraints at every level; descriptions and trainc's extras may differ."""
    ours = _resolved(ours, definitions)
    assert {k: ours[k] for k in _CONSTRAINTS if k in ours} == {
        k: theirs[k] for k in _CONSTRAINTS if k in theirs
    }, path
    if "properties" in theirs:
        mine, upstream = as_object(ours["properties"]), as_object(theirs["properties"])
        assert sorted(mine) == sorted(upstream), path
        for name in upstream:
            _compare(
                as_object(mine[name]), as_object(upstream[name]), definitions, f"{path}.{name}"
            )
    for key in ("items", "additionalProperties"):
        if isinstance(theirs.get(key), dict):
            _compare(as_object(ours[key]), as_object(theirs[key]), definitions, f"{path}.{key}")


@pytest.mark.parametrize("key", sorted(_CRDS))
def test_pod_group_specs_match_the_upstream_crds(shared_dir: Path, key: tuple[str, str]) -> None:
    schema = render_jsonschema(OUTPUT_SCHEMAS[key])
    spec = as_object(as_object(schema["properties"])["spec"])
    _compare(spec, _crd_spec(shared_dir, _CRDS[key]), as_object(schema["definitions"]), "spec")
