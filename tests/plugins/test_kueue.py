""" """

from __future__ import annotations

from typing import Any

import pytest

from tests.build.support import Obj, compile_job, jobset_of
from tests.support.builders import (
    located,
    make_runtime,
    make_trainjob,
    resolved,
    with_jobset_metadata,
)
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import (
    KUEUE_MAX_EXEC_TIME,
    KUEUE_PRIORITY_CLASS,
    KUEUE_QUEUE_NAME,
    MULTIKUEUE_MANAGED_BY,
)
from trainc.plugins.kueue import KueuePlugin, check_kueue, queue_name
from trainc.resolve.provenance import Written

KUEUE_LABELS = {
    KUEUE_QUEUE_NAME: "team-a-gpu",
    KUEUE_PRIORITY_CLASS: "high",
    KUEUE_MAX_EXEC_TIME: "7200",
}


def _jobset(trainjob: DefaultedObject, runtime: DefaultedObject | None = None) -> Obj:
    return jobset_of(compile_job(trainjob, runtime or make_runtime()).objects)


def test_name() -> None:
    assert KueuePlugin().name == "kueue"


def test_kueues_labels_go_from_the_trainjob_to_the_jobset() -> None:
    trainjob = make_trainjob(labels={**KUEUE_LABELS, "team": "vision"})
    labels = _jobset(trainjob)["metadata"]["labels"]
    assert {key: labels[key] for key in KUEUE_LABELS} == KUEUE_LABELS


@pytest.mark.parametrize("key", sorted(KUEUE_LABELS))
def test_each_kueue_label_is_carried_alone(key: str) -> None:
    labels = _jobset(make_trainjob(labels={key: KUEUE_LABELS[key]}))["metadata"]["labels"]
    assert labels[key] == KUEUE_LABELS[key]
    assert not {*KUEUE_LABELS} - {key} & labels.keys()


def test_the_trainjobs_queue_wins_over_the_runtime_templates() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"labels": {KUEUE_QUEUE_NAME: "default-queue"}})
    queued = make_trainjob(labels={KUEUE_QUEUE_NAME: "team-a-gpu"})
    assert _jobset(queued, runtime)["metadata"]["labels"][KUEUE_QUEUE_NAME] == "team-a-gpu"
    # A runtime may name a default queue for the jobs that name none.
    default = _jobset(make_trainjob(), runtime)["metadata"]["labels"]
    assert default[KUEUE_QUEUE_NAME] == "default-queue"


def test_the_queue_annotation_kueue_no_longer_reads_is_not_made_a_label() -> None:
    trainjob = make_trainjob(annotations={KUEUE_QUEUE_NAME: "team-a-gpu"})
    metadata = _jobset(trainjob)["metadata"]
    # Carried as it is, like every annotation of the TrainJob; Kueue ignores it.
    assert metadata["annotations"][KUEUE_QUEUE_NAME] == "team-a-gpu"
    assert KUEUE_QUEUE_NAME not in metadata["labels"]


def test_a_job_without_kueue_labels_gets_none() -> None:
    metadata = _jobset(make_trainjob(labels={"team": "vision"}))["metadata"]
    assert not {*KUEUE_LABELS} & metadata["labels"].keys()
    assert KUEUE_QUEUE_NAME not in metadata.get("annotations", {})


def test_a_carried_label_is_traced_to_the_trainjobs_line() -> None:
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "team-a-gpu"})
    resolved = compile_job(trainjob, make_runtime()).resolved
    origin = resolved.trace.origin(resolved.jobset_metadata, ("labels", KUEUE_QUEUE_NAME))
    assert origin == Written(trainjob, ("metadata", "labels", KUEUE_QUEUE_NAME))


# --------------------------------------------------------------------------- managedBy


def test_multikueue_on_the_trainjob_hands_the_jobset_to_multikueue() -> None:
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "q"}, managedBy=MULTIKUEUE_MANAGED_BY)
    compiled = compile_job(trainjob, make_runtime())
    resolved, jobset = compiled.resolved, jobset_of(compiled.objects)
    assert jobset["spec"]["managedBy"] == MULTIKUEUE_MANAGED_BY
    assert jobset["metadata"]["labels"][KUEUE_QUEUE_NAME] == "q"
    assert resolved.origin(("managedBy",)) == Written(trainjob, ("spec", "managedBy"))


def test_multikueue_overrides_the_runtime_templates_manager() -> None:
    runtime = make_runtime(jobset={"managedBy": "example.com/other"})
    trainjob = make_trainjob(managedBy=MULTIKUEUE_MANAGED_BY)
    assert _jobset(trainjob, runtime)["spec"]["managedBy"] == MULTIKUEUE_MANAGED_BY


@pytest.mark.parametrize("spec", [{}, {"managedBy": "trainer.kubeflow.org/trainjob-controller"}])
def test_the_trainer_controllers_trainjob_leaves_managed_by_out(spec: Obj) -> None:
    assert "managedBy" not in _jobset(make_trainjob(**spec))["spec"]


def test_the_jobset_controllers_own_value_is_never_written() -> None:
    # It means the same as no value, and Kueue's webhook may rewrite it on create.
    runtime = make_runtime(jobset={"managedBy": "jobset.sigs.k8s.io/jobset-controller"})
    assert "managedBy" not in _jobset(make_trainjob(), runtime)["spec"]


def test_another_controller_named_by_the_runtime_is_kept() -> None:
    runtime = make_runtime(jobset={"managedBy": "example.com/other"})
    assert _jobset(make_trainjob(), runtime)["spec"]["managedBy"] == "example.com/other"


QUEUED: dict[str, JsonValue] = {KUEUE_QUEUE_NAME: "team-a-gpu"}
QUEUE_LABEL = f"metadata.labels[{KUEUE_QUEUE_NAME}]"
EXEC_LABEL = f"metadata.labels[{KUEUE_MAX_EXEC_TIME}]"


def _check(
    labels: dict[str, JsonValue] | None = None,
    annotations: dict[str, JsonValue] | None = None,
    runtime_labels: dict[str, JsonValue] | None = None,
    **spec: Any,
) -> list[tuple[str, str | None]]:
    trainjob = make_trainjob(labels=labels, annotations=annotations, **spec)
    runtime = with_jobset_metadata(make_runtime(), {"labels": runtime_labels or {}})
    return located(check_kueue(resolved(trainjob, runtime)))


# --------------------------------------------------------------------------- suspend


def test_suspend_true_on_a_queued_job_fights_kueue() -> None:
    trainjob = make_trainjob(labels=QUEUED, suspend=True)
    findings = check_kueue(resolved(trainjob, make_runtime()))
    assert located(findings) == [("kueue.suspend-in-git", "spec.suspend")]
    (finding,) = findings
    assert finding.severity is Severity.ERROR
    assert finding.file == "trainjob.yaml"
    assert "Kueue resumes the JobSet when it admits it" in finding.message
    assert "suspends it again" in finding.message
    assert finding.hint is not None
    assert "remove spec.suspend" in finding.hint


@pytest.mark.parametrize(
    ("labels", "runtime_labels"),
    [(QUEUED, None), (None, QUEUED)],  # a runtime's default queue queues the job too
    ids=["trainjob", "runtime"],
)
def test_every_way_of_queueing_counts(
    labels: dict[str, JsonValue] | None, runtime_labels: dict[str, JsonValue] | None
) -> None:
    found = _check(labels, runtime_labels=runtime_labels, suspend=True)
    assert found == [("kueue.suspend-in-git", "spec.suspend")]


@pytest.mark.parametrize(
    ("labels", "spec"),
    [
        (None, {"suspend": True}),  # not queued: suspend holds the job
        (QUEUED, {}),
        (QUEUED, {"suspend": False}),
    ],
)
def test_suspend_is_fine_where_kueue_does_not_own_it(
    labels: dict[str, JsonValue] | None, spec: dict[str, Any]
) -> None:
    assert _check(labels, **spec) == []


# --------------------------------------------------------------------------- MultiKueue


def test_multikueue_without_a_queue_never_runs() -> None:
    trainjob = make_trainjob(managedBy=MULTIKUEUE_MANAGED_BY)
    findings = check_kueue(resolved(trainjob, make_runtime()))
    assert located(findings) == [("kueue.multikueue-without-queue", "spec.managedBy")]
    assert findings[0].severity is Severity.ERROR
    assert findings[0].hint is not None
    assert KUEUE_QUEUE_NAME in findings[0].hint


def test_multikueue_from_the_runtime_template_is_reported_there() -> None:
    runtime = make_runtime(jobset={"managedBy": MULTIKUEUE_MANAGED_BY})
    findings = check_kueue(resolved(make_trainjob(), runtime))
    assert located(findings) == [("kueue.multikueue-without-queue", "spec.template.spec.managedBy")]
    assert findings[0].file == "runtime.yaml"


def test_multikueue_with_a_queue_is_fine() -> None:
    assert _check(QUEUED, managedBy=MULTIKUEUE_MANAGED_BY) == []


def test_a_queue_annotation_does_not_queue_a_multikueue_job() -> None:
    found = _check(annotations=QUEUED, managedBy=MULTIKUEUE_MANAGED_BY)
    assert found == [
        ("kueue.queue-annotation", f"metadata.annotations[{KUEUE_QUEUE_NAME}]"),
        ("kueue.multikueue-without-queue", "spec.managedBy"),
    ]


# --------------------------------------------------------------------------- label values


def test_a_queue_name_kueue_refuses_is_reported_at_its_label() -> None:
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "Team_A"})
    findings = check_kueue(resolved(trainjob, make_runtime()))
    assert located(findings) == [("kueue.queue-name", QUEUE_LABEL)]
    assert "Invalid value: 'Team_A'" in findings[0].message
    assert "RFC 1123 subdomain" in findings[0].message


def test_an_empty_queue_label_is_refused_and_queues_nothing() -> None:
    # Kueue validates a queue label that is present, even empty, and reads no queue from it.
    found = _check({KUEUE_QUEUE_NAME: ""}, suspend=True)
    assert found == [("kueue.queue-name", QUEUE_LABEL)]


def test_a_queue_annotation_without_a_label_is_a_warning() -> None:
    # Kueue at HEAD reads the label only: the job would run without Kueue.
    trainjob = make_trainjob(annotations=QUEUED, suspend=True)
    findings = check_kueue(resolved(trainjob, make_runtime()))
    assert located(findings) == [
        ("kueue.queue-annotation", f"metadata.annotations[{KUEUE_QUEUE_NAME}]")
    ]
    assert findings[0].severity is Severity.WARNING
    assert findings[0].file == "trainjob.yaml"


def test_a_queue_annotation_from_the_runtime_template_is_reported_there() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"annotations": QUEUED})
    findings = check_kueue(resolved(make_trainjob(), runtime))
    assert located(findings) == [
        ("kueue.queue-annotation", f"spec.template.metadata.annotations[{KUEUE_QUEUE_NAME}]")
    ]
    assert findings[0].file == "runtime.yaml"


def test_a_queue_annotation_beside_the_label_is_harmless() -> None:
    assert _check(QUEUED, annotations={KUEUE_QUEUE_NAME: "other"}) == []


def test_a_bad_queue_from_the_runtime_template_is_reported_in_the_runtime() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"labels": {KUEUE_QUEUE_NAME: "Bad_Queue"}})
    findings = check_kueue(resolved(make_trainjob(), runtime))
    assert located(findings) == [
        ("kueue.queue-name", f"spec.template.{QUEUE_LABEL}"),
    ]
    assert findings[0].file == "runtime.yaml"


@pytest.mark.parametrize("value", ["1", "3600", "0003600", "2147483647"])
def test_max_exec_time_is_a_whole_number_above_zero(value: str) -> None:
    assert _check({KUEUE_MAX_EXEC_TIME: value}) == []


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("0", "Kueue would refuse the JobSet: it must be greater than 0"),
        ("-5", "Kueue would refuse the JobSet: it must be greater than 0"),
        ("1h", "Kueue would refuse the JobSet: it is not a whole number"),
        ("1.5", "Kueue would refuse the JobSet: it is not a whole number"),
        ("", "Kueue would refuse the JobSet: it is not a whole number"),
        ("2147483648", "so the job would run without a limit"),
    ],
)
def test_max_exec_time_kueue_refuses_or_ignores(value: str, why: str) -> None:
    trainjob = make_trainjob(labels={KUEUE_MAX_EXEC_TIME: value})
    findings = check_kueue(resolved(trainjob, make_runtime()))
    assert located(findings) == [("kueue.max-exec-time", EXEC_LABEL)]
    assert findings[0].message.endswith(why)


# --------------------------------------------------------------------------- queue_name


@pytest.mark.parametrize(
    ("metadata", "queue"),
    [
        ({}, ""),
        ({"labels": {KUEUE_QUEUE_NAME: "a"}}, "a"),
        ({"annotations": {KUEUE_QUEUE_NAME: "b"}}, ""),
        ({"labels": {KUEUE_QUEUE_NAME: "a"}, "annotations": {KUEUE_QUEUE_NAME: "b"}}, "a"),
    ],
)
def test_queue_name_reads_the_label_only(metadata: JsonObject, queue: str) -> None:
    assert queue_name(metadata) == queue
