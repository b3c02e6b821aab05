from collections.abc import Sequence

import pytest

from tests.support.builders import (
    container,
    cross_object,
    defaulted,
    located,
    make_runtime,
    make_trainjob,
    object_from_yaml,
    rjob,
)
from trainc.checks.webhooks.initializers import check_initializers
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue

MOUNT: JsonObject = {"name": "initializer", "mountPath": "/workspace"}


def _runtime(
    step: str = "dataset-initializer",
    *,
    name: str | None = None,
    mounts: Sequence[JsonValue] = (MOUNT,),
) -> DefaultedObject:
    init = rjob(
        step,
        ancestor=step,
        containers=[container(name or step, volumeMounts=list(mounts))],
    )
    return make_runtime(replicated_jobs=[init, rjob("node", ancestor="trainer")])


DATASET: JsonObject = {"dataset": {"storageUri": "hf://tatsu-lab/alpaca"}}
MODEL: JsonObject = {"model": {"storageUri": "hf://meta-llama/Llama-3.2-1B"}}


@pytest.mark.parametrize(
    ("initializer", "message"),
    [
        (
            DATASET,
            "must have dataset-initializer job when trainJob is configured with input "
            "datasetConfig",
        ),
        (
            MODEL,
            "must have model-initializer job when trainJob is configured with input modelConfig",
        ),
    ],
)
def test_initializer_needs_its_job(initializer, message):
    findings = check_initializers(make_trainjob(initializer=initializer), make_runtime())

    [source] = initializer
    assert located(findings) == [("xobj.initializer-job", f"spec.initializer.{source}")]
    assert findings[0].message.startswith(message)


def test_initializer_job_needs_its_container():
    runtime = _runtime(name="downloader")

    findings = check_initializers(make_trainjob(initializer=DATASET), runtime)

    assert located(findings) == [("xobj.initializer-container", "spec.initializer.dataset")]
    assert findings[0].message.startswith(
        "must have container with name - dataset-initializer in the dataset-initializer job"
    )


def test_model_container_needs_the_initializer_mount():
    runtime = _runtime("model-initializer", mounts=[{"name": "cache", "mountPath": "/c"}])

    findings = check_initializers(make_trainjob(initializer=MODEL), runtime)

    assert located(findings) == [("xobj.initializer-volume-mount", "spec.initializer.model")]
    assert findings[0].message.startswith(
        "must have volumeMount with name - initializer in container model-initializer of the "
        "model-initializer job"
    )
    assert "mounts 'cache'" in findings[0].message


def test_a_runtime_patch_can_add_the_mount():
    patch: JsonObject = {
        "manager": "example.com/team",
        "trainingRuntimeSpec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "dataset-initializer",
                            "template": {
                                "spec": {
                                    "template": {
                                        "spec": {
                                            "containers": [
                                                {
                                                    "name": "dataset-initializer",
                                                    "volumeMounts": [MOUNT],
                                                },
                                            ]
                                        }
                                    }
                                }
                            },
                        }
                    ]
                }
            }
        },
    }
    trainjob = make_trainjob(initializer=DATASET, runtimePatches=[patch])

    assert check_initializers(trainjob, _runtime(mounts=())) == []


def test_complete_runtime_and_no_initializer_pass():
    assert check_initializers(make_trainjob(initializer=DATASET), _runtime()) == []
    assert check_initializers(make_trainjob(), make_runtime()) == []


MULTI_STEP = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torch-with-dataset-init
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer
            spec:
              template:
                spec:
                  containers:
                    - name: dataset-initializer
                      image: ghcr.io/kubeflow/trainer/dataset-initializer
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: multi-step-example
spec:
  runtimeRef:
    kind: TrainingRuntime
    name: torch-with-dataset-init
  initializer:
    dataset:
      storageUri: hf://tatsu-lab/alpaca
"""


def test_missing_mount_is_reported_on_the_trainjob_line():
    objects = [defaulted(object_from_yaml(MULTI_STEP, "multi-step.yaml", i)) for i in (0, 1)]

    [finding] = cross_object(objects)

    assert (finding.code, finding.field_path, finding.line, finding.name) == (
        "xobj.initializer-volume-mount",
        "spec.initializer.dataset",
        42,
        "multi-step-example",
    )
    assert "(multi-step.yaml:19)" in finding.message
