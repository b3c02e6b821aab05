from tests.support.builders import (
    cross_object,
    defaulted,
    located,
    make_runtime,
    make_trainjob,
    object_from_yaml,
)
from trainc.checks.webhooks.duplicates import check_duplicates

TWO_JOBS = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef: {name: torch-distributed}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  namespace: default
  name: job
spec:
  runtimeRef: {name: torch-distributed}
"""


def test_later_declaration_names_the_first():
    first = defaulted(object_from_yaml(TWO_JOBS, "jobs.yaml", 0))
    second = defaulted(object_from_yaml(TWO_JOBS, "jobs.yaml", 1))

    [finding] = check_duplicates([first, second])

    assert (finding.code, finding.field_path, finding.line) == (
        "xobj.duplicate-object",
        "metadata.name",
        12,
    )
    assert "TrainJob default/job is already declared at jobs.yaml:4" in finding.message


def test_report_lands_on_the_later_file_whatever_the_input_order():
    first = make_trainjob("job", path="a.yaml")
    second = make_trainjob("job", path="b.yaml")

    findings = cross_object([second, make_runtime(), first])

    assert [(d.code, d.file) for d in findings] == [("xobj.duplicate-object", "b.yaml")]


def test_cluster_runtimes_collide_across_files():
    findings = check_duplicates([make_runtime(path="a.yaml"), make_runtime(path="b.yaml")])

    assert located(findings) == [("xobj.duplicate-object", "metadata.name")]


def test_distinct_namespace_or_kind_is_no_duplicate():
    objects = [
        make_trainjob("job", namespace="team-a"),
        make_trainjob("job", namespace="team-b"),
        make_runtime("job", kind="TrainingRuntime", namespace="team-a"),
        make_runtime("job"),
    ]

    assert check_duplicates(objects) == []
