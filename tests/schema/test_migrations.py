import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from tests.support.builders import located, object_from_yaml, objects_from_file
from tests.support.documents import make_object
from trainc.load.documents import LoadedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import API_VERSION
from trainc.schema.migrations import check_migrations


def _trainjob(spec: JsonObject | None = None, *, api_version: str = API_VERSION) -> LoadedObject:
    return make_object(
        {
            "apiVersion": api_version,
            "kind": "TrainJob",
            "metadata": {"name": "job"},
            "spec": {"runtimeRef": {"name": "torch-distributed"}, **(spec or {})},
        }
    )


def _runtime(ml_policy: JsonValue) -> LoadedObject:
    return make_object(
        {
            "apiVersion": API_VERSION,
            "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "torch-distributed"},
            "spec": {"mlPolicy": ml_policy, "template": {"spec": {}}},
        }
    )


KEP_TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v2alpha1
kind: TrainJob
metadata:
  name: pytorch-distributed
spec:
  runtimeRef:
    name: pytorch-distributed-gpu
  datasetConfig:
    storageUri: s3://datasets/yelp-review
    env:
      - name: ENDPOINT_URL
        value: s3.custom.com
  podSpecOverrides:
    - targetJobs:
        - name: node
      volumes:
        - name: user-123-volume
          persistentVolumeClaim:
            claimName: user-123-volume
"""


def test_kep_draft_trainjob_gets_one_finding_per_old_spelling():
    result = check_migrations(object_from_yaml(KEP_TRAINJOB))

    assert [(d.code, d.field_path, d.line) for d in result.diagnostics] == [
        ("migrate.api-version", "apiVersion", 1),
        ("migrate.initializer", "spec.datasetConfig", 8),
        ("migrate.overrides", "spec.podSpecOverrides", 13),
    ]
    assert result.handled_paths == {
        ("apiVersion",),
        ("spec", "datasetConfig"),
        ("spec", "podSpecOverrides"),
    }
    api, initializer, overrides = result.diagnostics
    assert (api.hint or "").startswith(f"set apiVersion: {API_VERSION}")
    assert initializer.hint == (
        "move it: spec: {initializer: {dataset: {storageUri: s3://datasets/yelp-review, env: …}}} "
        "(storageUri, env and secretRef keep their names)"
    )
    assert (overrides.hint or "").startswith(
        "write runtimePatches: [{manager: example.com/my-team, trainingRuntimeSpec: {template: "
        "{spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: "
        "{volumes: …}}}}}]}}}}]"
    )


def test_unknown_version_is_a_load_error():
    result = check_migrations(_trainjob(api_version="trainer.kubeflow.org/v1beta1"))

    assert located(result.diagnostics) == [("load.unknown-version", "apiVersion")]


def test_v21_pod_template_overrides_keep_metadata_and_spec():
    override: JsonObject = {
        "targetJobs": [{"name": "node"}, {"name": "launcher"}],
        "metadata": {"labels": {"team": "a"}},
        "spec": {"nodeSelector": {"gpu": "a100"}},
    }

    [finding] = check_migrations(_trainjob({"podTemplateOverrides": [override]})).diagnostics

    assert located([finding]) == [("migrate.overrides", "spec.podTemplateOverrides")]
    assert (
        "{name: node, template: {spec: {template: {metadata: {labels: …}, "
        "spec: {nodeSelector: …}}}}}, {name: launcher" in (finding.hint or "")
    )


def test_hint_values_read_back_as_strings():
    annotations: JsonObject = {"prometheus.io/scrape": "true", "prometheus.io/port": "8080"}

    [finding] = check_migrations(_trainjob({"annotations": annotations})).diagnostics

    assert '{prometheus.io/scrape: "true", prometheus.io/port: "8080"}' in (finding.hint or "")


@pytest.mark.parametrize("field", ["labels", "annotations"])
def test_trainjob_labels_and_annotations_move_to_the_jobset_metadata(field):
    [finding] = check_migrations(_trainjob({field: {"team": "ml"}})).diagnostics

    assert located([finding]) == [("migrate.overrides", f"spec.{field}")]
    assert f"trainingRuntimeSpec: {{template: {{metadata: {{{field}: {{team: ml}}}}}}}}" in (
        finding.hint or ""
    )


def test_model_config_moves_to_the_model_initializer():
    [finding] = check_migrations(_trainjob({"modelConfig": {"storageUri": "hf://x/y"}})).diagnostics

    assert located([finding]) == [("migrate.initializer", "spec.modelConfig")]


def test_kep_model_input_becomes_the_model_initializer():
    config: JsonObject = {
        "input": {"storageUri": "hf://meta-llama/Llama-2-7b"},
        "output": {"storageUri": "s3://trained-model"},
    }

    [finding] = check_migrations(_trainjob({"modelConfig": config})).diagnostics

    assert (finding.hint or "").startswith(
        "move it: spec: {initializer: {model: {storageUri: hf://meta-llama/Llama-2-7b}}}"
    )
    assert "modelConfig.output has no successor" in (finding.hint or "")


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("auto", "delete the field"),
        ("cpu", "delete the field; the result is unchanged unless the trainer requests GPUs"),
        ("gpu", "delete the field"),
        (4, "delete the field; set spec.trainer.numProcPerNode: 4 in the TrainJobs"),
    ],
)
def test_runtime_num_proc_per_node_is_explained_per_value(value, hint):
    result = check_migrations(_runtime({"torch": {"numProcPerNode": value}}))

    assert located(result.diagnostics) == [
        ("migrate.torch-num-proc-per-node", "spec.mlPolicy.torch.numProcPerNode")
    ]
    assert result.diagnostics[0].hint == hint
    assert result.handled_paths == {("spec", "mlPolicy", "torch", "numProcPerNode")}


def test_kep_torch_spec_with_elastic_policy():
    policy: JsonObject = {"torchSpec": {"numProcPerNode": "auto", "elasticPolicy": {"minNodes": 5}}}

    result = check_migrations(_runtime(policy))

    assert located(result.diagnostics) == [
        ("migrate.torch-spec", "spec.mlPolicy.torchSpec"),
        ("migrate.torch-num-proc-per-node", "spec.mlPolicy.torchSpec.numProcPerNode"),
        ("migrate.torch-elastic-policy", "spec.mlPolicy.torchSpec.elasticPolicy"),
    ]


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        (
            "auto",
            "delete the field: without it Trainer derives the count from the node's resources",
        ),
        ("gpu", "delete the field: without it Trainer derives the count from the node's resources"),
        ("4", "set numProcPerNode: 4 (an integer, without quotes)"),
    ],
)
def test_trainjob_num_proc_per_node_strings(value, hint):
    result = check_migrations(_trainjob({"trainer": {"numProcPerNode": value}}))

    assert located(result.diagnostics) == [
        ("migrate.num-proc-per-node-string", "spec.trainer.numProcPerNode")
    ]
    assert result.diagnostics[0].hint == hint


def test_current_spellings_pass():
    trainjob = _trainjob(
        {
            "trainer": {"numProcPerNode": 4},
            "initializer": {"dataset": {}},
            "runtimePatches": [{"manager": "example.com/team"}],
        }
    )
    runtime = _runtime({"numNodes": 2, "torch": {"envInjection": {"targets": []}}})

    for obj in (trainjob, runtime):
        result = check_migrations(obj)
        assert (result.diagnostics, result.handled_paths) == ((), frozenset())


# v2.1.0 runtimes: Torch ones spell numProcPerNode: auto; the MPI ones are already current.
V21_EXPECTED: dict[str, list[tuple[str, str | None]]] = {
    "v2.1.0_deepspeed_distributed.yaml": [],
    "v2.1.0_mlx_distributed.yaml": [],
}


def test_every_v21_example_is_read_without_crashing(shared_dir: Path):
    files = sorted((shared_dir / "upstream" / "trainer-examples").glob("v2.1.0_*.yaml"))

    assert len(files) == 7
    for path in files:
        found = [d for obj in objects_from_file(path) for d in check_migrations(obj).diagnostics]
        expected = V21_EXPECTED.get(
            path.name,
            [("migrate.torch-num-proc-per-node", "spec.mlPolicy.torch.numProcPerNode")],
        )
        assert located(found) == expected, path.name


def _documents(block: str) -> list[object]:
    try:
        return list(YAML(typ="safe").load_all(block))
    except YAMLError:  # a few KEP snippets are not valid YAML; the loader reports those
        return []


def test_kep_examples_are_all_flagged_as_drafts(shared_dir: Path):
    seed = (shared_dir / "docs" / "seeds" / "002_916c051d4e09d3fd.txt").read_text(encoding="utf-8")
    drafts = [
        doc
        for block in re.findall(r"```yaml\n(.*?)```", seed, re.DOTALL)
        for doc in _documents(block)
        if isinstance(doc, dict) and doc.get("apiVersion") == "trainer.kubeflow.org/v2alpha1"
    ]

    assert len(drafts) >= 10
    for draft in drafts:
        codes = {d.code for d in check_migrations(make_object(draft)).diagnostics}
        assert "migrate.api-version" in codes
