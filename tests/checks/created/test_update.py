"""What a deployed JobSet refuses: the CRD's transition rules and the webhook's update check."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, resolved
from trainc.checks.transitions.update import check_jobset_update
from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import ANCESTOR_LABEL, KUEUE_QUEUE_NAME
from trainc.resolve.resolved import ResolvedJob

RJOB = "spec.template.spec.replicatedJobs[0].template.spec.template.spec"


def _job(
    *,
    suspend: bool = False,
    pod: JsonObject | None = None,
    jobset: JsonObject | None = None,
    node: JsonObject | None = None,
    labels: dict[str, JsonValue] | None = None,
) -> ResolvedJob:
    """The TrainJob ``job`` on a runtime whose ``node`` pod has ``pod``'s extra fields."""
    pod_spec: JsonObject = {"containers": [node or container("node")], **(pod or {})}
    trainer: JsonObject = {
        "name": "node",
        "template": {
            "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
            "spec": {"template": {"spec": pod_spec}},
        },
    }
    runtime = make_runtime(replicated_jobs=[trainer], jobset=jobset)
    trainjob = (
        make_trainjob(labels=labels, suspend=True) if suspend else make_trainjob(labels=labels)
    )
    return resolved(trainjob, runtime)


def test_an_unchanged_jobset_takes_the_update() -> None:
    assert check_jobset_update(_job(), _job()) == []


def test_a_changed_image_is_refused_at_the_line_that_set_it() -> None:
    new = _job(node=container("node", image="example.com/node:2"))

    findings = check_jobset_update(_job(), new)

    assert located(findings) == [("xobj.jobset-immutable", f"{RJOB}.containers[0].image")]
    (finding,) = findings
    assert finding.file == "runtime.yaml"
    assert finding.message == "spec.replicatedJobs: field is immutable"
    assert finding.hint is not None
    assert '"example.com/node:1" → "example.com/node:2"' in finding.hint
    assert "put the change in a new runtime" in finding.hint


def test_a_failure_policy_change_breaks_the_crd_transition_rule() -> None:
    old = _job(jobset={"failurePolicy": {"maxRestarts": 3}})
    new = _job(jobset={"failurePolicy": {"maxRestarts": 5}})

    findings = check_jobset_update(old, new)

    assert located(findings) == [
        ("cel.jobset.failure-policy-immutable", "spec.template.spec.failurePolicy.maxRestarts")
    ]
    assert findings[0].message == "spec.failurePolicy: Value is immutable"


@pytest.mark.parametrize(
    "field",
    [
        {"nodeSelector": {"pool": "h100"}},
        {"tolerations": [{"key": "gpu", "operator": "Exists"}]},
        {"schedulingGates": [{"name": "example.com/quota"}]},
    ],
)
def test_a_suspended_jobset_lets_its_pod_scheduling_fields_change(field: JsonObject) -> None:
    assert check_jobset_update(_job(suspend=True), _job(suspend=True, pod=field)) == []
    # Suspending in the same update frees them too (the webhook reads both sides).
    assert check_jobset_update(_job(), _job(suspend=True, pod=field)) == []


def test_a_running_jobset_refuses_them_and_says_suspension_would_allow_it() -> None:
    findings = check_jobset_update(_job(), _job(pod={"nodeSelector": {"pool": "h100"}}))

    assert located(findings) == [("xobj.jobset-immutable", f"{RJOB}.nodeSelector")]
    assert findings[0].hint is not None
    assert "only while the JobSet is suspended" in findings[0].hint


def test_a_queued_job_is_told_that_kueue_holds_the_field() -> None:
    queued: dict[str, JsonValue] = {KUEUE_QUEUE_NAME: "team-a"}
    new = _job(labels=queued, pod={"nodeSelector": {"pool": "h100"}})

    findings = check_jobset_update(_job(labels=queued), new)

    assert located(findings) == [("xobj.jobset-immutable", f"{RJOB}.nodeSelector")]
    assert findings[0].hint is not None
    assert "queued in Kueue is only until Kueue admits it" in findings[0].hint
    assert "spec.suspend: true" not in findings[0].hint


def test_resuming_takes_scheduling_changes_with_suspend_left_out() -> None:
    # The resumed revision writes no spec.suspend at all: absent is false, and the webhook
    # still reads the old side's suspension.
    new = _job(pod={"nodeSelector": {"pool": "h100"}})
    assert "suspend" not in new.jobset_spec
    assert check_jobset_update(_job(suspend=True), new) == []


def test_suspension_frees_nothing_else() -> None:
    new = _job(suspend=True, node=container("node", image="example.com/node:2"))

    findings = check_jobset_update(_job(suspend=True), new)

    assert located(findings) == [("xobj.jobset-immutable", f"{RJOB}.containers[0].image")]
    assert findings[0].hint is not None
    assert "suspended" not in findings[0].hint


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param({"cpu": "1000m"}, {"cpu": "1"}, id="quantity-by-amount"),
        pytest.param({"memory": "1Gi"}, {"memory": "1073741824"}, id="binary-quantity"),
    ],
)
def test_quantities_compare_by_amount(before: JsonValue, after: JsonValue) -> None:
    old = _job(node=container("node", resources={"requests": before}))
    new = _job(node=container("node", resources={"requests": after}))

    assert check_jobset_update(old, new) == []


def test_a_different_amount_is_a_change() -> None:
    old = _job(node=container("node", resources={"requests": {"cpu": "1"}}))
    new = _job(node=container("node", resources={"requests": {"cpu": "2"}}))

    assert located(check_jobset_update(old, new)) == [
        ("xobj.jobset-immutable", f"{RJOB}.containers[0].resources.requests.cpu")
    ]


def test_an_empty_list_equals_an_absent_one() -> None:
    new = _job(node=container("node", env=[]))

    assert check_jobset_update(_job(), new) == []


def test_a_removed_value_is_reported_where_its_parent_is() -> None:
    old = _job(node=container("node", env=[{"name": "A", "value": "1"}]))

    findings = check_jobset_update(old, _job())

    assert located(findings) == [("xobj.jobset-immutable", f"{RJOB}.containers[0]")]


def test_a_trainjob_edit_is_pointed_at_a_new_trainjob() -> None:
    runtime = make_runtime()
    old = resolved(make_trainjob(trainer={"image": "example.com/train:1"}), runtime)
    new = resolved(make_trainjob(trainer={"image": "example.com/train:2"}), runtime)

    findings = check_jobset_update(old, new)

    assert [(f.code, f.file) for f in findings] == [("xobj.jobset-immutable", "trainjob.yaml")]
    assert findings[0].field_path == "spec.trainer.image"
    assert findings[0].hint is not None
    assert findings[0].hint.endswith(
        "to change it, submit the job under a new metadata.name, or delete the deployed "
        "JobSet first"
    )


def test_managed_by_is_immutable() -> None:
    old = _job()
    new = dataclasses.replace(old, jobset_spec={**old.jobset_spec, "managedBy": "example.com/x"})

    assert [f.code for f in check_jobset_update(old, new)] == ["xobj.jobset-immutable"]
