import pytest

from tests.support.builders import (
    container,
    cross_object,
    defaulted,
    located,
    make_runtime,
    object_from_yaml,
    rjob,
)
from trainc.checks.webhooks.runtime_webhook import check_ancestor_jobs

RJOB = "spec.template.spec.replicatedJobs"

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
spec:
  mlPolicy: {torch: {}}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 2
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: trainer
                      image: example.com/trainer:1
"""


def test_findings_point_at_the_runtime_fields():
    findings = check_ancestor_jobs(defaulted(object_from_yaml(RUNTIME)))

    assert [(d.code, d.field_path, d.line) for d in findings] == [
        ("xobj.ancestor-replicas", f"{RJOB}[0].replicas", 11),
        ("xobj.ancestor-container", f"{RJOB}[0].template.spec.template.spec.containers", 19),
    ]
    assert findings[0].message.startswith("always must be 1")
    assert findings[1].message.startswith(
        "must contain the required container for the ancestor: trainer"
    )
    assert findings[1].hint == "name the main container of replicatedJob 'node' 'node'"


@pytest.mark.parametrize(
    ("step", "required"),
    [("dataset-initializer", "dataset-initializer"), ("model-initializer", "model-initializer")],
)
def test_initializer_steps_need_their_own_container(step, required):
    runtime = make_runtime(
        replicated_jobs=[
            rjob("init", ancestor=step, containers=["main"]),
            rjob("node", ancestor="trainer"),
        ]
    )

    findings = check_ancestor_jobs(runtime)

    assert located(findings) == [
        ("xobj.ancestor-container", f"{RJOB}[0].template.spec.template.spec.containers")
    ]
    assert required in findings[0].message


def test_unlabelled_or_unknown_steps_are_free():
    runtime = make_runtime(
        replicated_jobs=[
            rjob("node", ancestor="trainer"),
            rjob("sidecar", containers=["proxy"], replicas=3),
            rjob("custom", ancestor="evaluator", containers=["eval"], replicas=2),
        ]
    )

    assert check_ancestor_jobs(runtime) == []


def test_well_formed_runtime_passes():
    runtime = make_runtime(
        replicated_jobs=[
            rjob(
                "dataset-initializer",
                ancestor="dataset-initializer",
                containers=[container("dataset-initializer")],
            ),
            rjob("node", ancestor="trainer"),
        ]
    )

    assert check_ancestor_jobs(runtime) == []


def test_runtimes_with_webhook_validation_disabled_are_skipped():
    bad = [rjob("node", ancestor="trainer", containers=["trainer"], replicas=2)]
    exempt = make_runtime(
        labels={"trainer.kubeflow.org/webhook-validation": "disabled"}, replicated_jobs=bad
    )
    checked = make_runtime("checked", replicated_jobs=bad)

    findings = cross_object([exempt, checked])

    assert {d.name for d in findings} == {"checked"}
    assert {d.code for d in findings} == {"xobj.ancestor-replicas", "xobj.ancestor-container"}
