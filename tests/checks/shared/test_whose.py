"""Whose a finding is: the TrainJob named, and a runtime's mistake said once per line."""

from __future__ import annotations

from dataclasses import replace

from tests.support.builders import defaulted, object_from_yaml
from trainc.checks.shared.whose import merge_shared, name_trainjob
from trainc.diagnostics import Diagnostic, Severity

TRAINJOB = defaulted(
    object_from_yaml(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata:\n  name: llama\n  namespace: ml\nspec:\n  runtimeRef:\n    name: torch\n",
        "job.yaml",
    )
)

ON_RUNTIME = Diagnostic(
    code="pod.image",
    severity=Severity.ERROR,
    message="the API server would refuse the Job",
    file="runtime.yaml",
    line=20,
    column=7,
    kind="ClusterTrainingRuntime",
    name="torch",
)
ON_TRAINJOB = replace(
    ON_RUNTIME, file="job.yaml", line=9, kind="TrainJob", namespace="ml", name="llama"
)


def _for(job: str) -> Diagnostic:
    return replace(ON_RUNTIME, message=f"TrainJob ml/{job}: {ON_RUNTIME.message}")


def test_a_finding_on_the_runtime_names_the_trainjob() -> None:
    [named] = name_trainjob(TRAINJOB, [ON_RUNTIME])

    assert named.message == "TrainJob ml/llama: the API server would refuse the Job"


def test_a_finding_on_the_trainjob_names_it_in_its_object_fields_only() -> None:
    assert name_trainjob(TRAINJOB, [ON_TRAINJOB]) == [ON_TRAINJOB]


def test_naming_twice_names_once() -> None:
    assert name_trainjob(TRAINJOB, name_trainjob(TRAINJOB, [ON_RUNTIME])) == [_for("llama")]


def test_one_trainjob_keeps_its_finding() -> None:
    assert merge_shared([_for("a")]) == [_for("a")]


def test_the_trainjobs_a_runtime_line_breaks_are_counted_and_named() -> None:
    merged = merge_shared([_for("a"), ON_TRAINJOB, _for("b"), _for("a"), _for("c")])

    assert [d.message for d in merged] == [
        "3 TrainJobs (ml/a, ml/b, ml/c): the API server would refuse the Job",
        ON_TRAINJOB.message,
    ]


def test_fifty_trainjobs_name_the_first_three() -> None:
    [merged] = merge_shared([_for(f"job-{number:02}") for number in range(50)])

    assert merged.message == (
        "50 TrainJobs (ml/job-00, ml/job-01, ml/job-02 and 47 more): "
        "the API server would refuse the Job"
    )
    assert (merged.file, merged.line, merged.kind) == ("runtime.yaml", 20, "ClusterTrainingRuntime")


def test_findings_on_other_lines_stay_apart() -> None:
    elsewhere = replace(_for("b"), line=21)

    assert merge_shared([_for("a"), elsewhere]) == [_for("a"), elsewhere]


def test_a_finding_that_names_no_trainjob_is_kept() -> None:
    assert merge_shared([ON_RUNTIME, ON_RUNTIME]) == [ON_RUNTIME, ON_RUNTIME]
