from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import (
    located,
    make_runtime,
    make_trainjob,
    resolved,
    with_jobset_metadata,
)
from trainc.checks.created.kueue import check_kueue, queue_name
from trainc.diagnostics import Severity
from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import KUEUE_MAX_EXEC_TIME, KUEUE_QUEUE_NAME, MULTIKUEUE_MANAGED_BY

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
