"""Lifecycle edits to a deployed job compile to updates its live JobSet accepts.

A deadline added to a running TrainJob, a deadline removed, or a progress deadline or TTL
added to its runtime (which reaches every deployed JobSet of that runtime, finished ones
too) must change only what the JobSet API lets change on a live object: were an immutable
field to move, the whole apply would be refused and the deadline never enforced. Each
pair is compiled before and after, and every field the JobSet API makes immutable is
compared: those with a transition rule in the JobSet CRD (read from the generated
schema), ``replicatedJobs`` and ``managedBy`` (the JobSet webhook's update check).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.build.support import compile_job, jobset_of
from tests.support.builders import annotated, make_runtime, make_trainjob
from trainc.checks.transitions.update import check_jobset_update
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import JOBSET_API_VERSION, JOBSET_KIND
from trainc.model.schemafiles import OUTPUT_SCHEMAS
from trainc.model.schematree import load_kind_schema

_PROGRESS = "trainc.dev/progress-deadline-seconds"
_FAILURE_POLICY: JsonObject = {
    "maxRestarts": 3,
    "rules": [{"name": "restartOnEviction", "action": "RestartJobSet"}],
}

Inputs = tuple[DefaultedObject, DefaultedObject]


def _immutable_spec_fields() -> list[str]:
    """JobSet spec fields a transition rule guards, and the webhook's two."""
    schema = load_kind_schema(OUTPUT_SCHEMAS[(JOBSET_API_VERSION, JOBSET_KIND)].name)
    spec = as_object(as_object(schema.document["properties"])["spec"])
    guarded = [
        name
        for name, node in as_object(spec["properties"]).items()
        if any(
            as_object(rule).get("rule") == "self == oldSelf"
            for rule in (as_object(node).get("x-kubernetes-validations") or [])  # type: ignore[union-attr]
        )
    ]
    return sorted({*guarded, "replicatedJobs", "managedBy"})


def _runtime(*, failure_policy: bool, **spec: object) -> DefaultedObject:
    jobset: JsonObject = {"failurePolicy": _FAILURE_POLICY} if failure_policy else {}
    return make_runtime(jobset=jobset, **spec)  # type: ignore[arg-type]


def _plain(failure_policy: bool) -> Inputs:
    return make_trainjob("llm"), _runtime(failure_policy=failure_policy)


def _deadline(failure_policy: bool) -> Inputs:
    return make_trainjob("llm", activeDeadlineSeconds=28800), _runtime(
        failure_policy=failure_policy
    )


def _trainjob_progress(failure_policy: bool) -> Inputs:
    trainjob = annotated(make_trainjob("llm"), {_PROGRESS: "600"})
    return trainjob, _runtime(failure_policy=failure_policy)


def _runtime_progress(failure_policy: bool) -> Inputs:
    runtime = annotated(_runtime(failure_policy=failure_policy), {_PROGRESS: "900"})
    return make_trainjob("llm"), runtime


def _runtime_ttl(failure_policy: bool) -> Inputs:
    return make_trainjob("llm"), _runtime(
        failure_policy=failure_policy, ttlSecondsAfterFinished=3600
    )


Edit = Callable[[bool], Inputs]
EDITS: list[tuple[str, Edit, Edit]] = [
    ("add-deadline", _plain, _deadline),
    ("remove-deadline", _deadline, _plain),
    ("add-trainjob-progress-deadline", _plain, _trainjob_progress),
    ("remove-trainjob-progress-deadline", _trainjob_progress, _plain),
    ("add-runtime-progress-deadline", _plain, _runtime_progress),
    ("add-runtime-ttl", _plain, _runtime_ttl),
    ("deadline-to-progress-deadline", _deadline, _trainjob_progress),
]


def test_the_jobset_api_guards_the_fields_compared_here() -> None:
    assert _immutable_spec_fields() == [
        "failurePolicy",
        "managedBy",
        "network",
        "replicatedJobs",
        "startupPolicy",
        "successPolicy",
        "volumeClaimPolicies",
    ]


@pytest.mark.parametrize("failure_policy", [True, False], ids=["failure-policy", "no-policy"])
@pytest.mark.parametrize(("name", "before", "after"), EDITS, ids=[edit[0] for edit in EDITS])
def test_a_lifecycle_edit_changes_no_immutable_field(
    name: str, before: Edit, after: Edit, failure_policy: bool
) -> None:
    old = compile_job(*before(failure_policy))
    new = compile_job(*after(failure_policy))
    old_spec = as_object(jobset_of(old.objects)["spec"])
    new_spec = as_object(jobset_of(new.objects)["spec"])

    for field in _immutable_spec_fields():
        assert old_spec.get(field) == new_spec.get(field), f"{name} changes spec.{field}"
    assert check_jobset_update(old.resolved, new.resolved) == []
    # The edit did reach the JobSet: the sweeper reads it from the annotations.
    assert jobset_of(old.objects)["metadata"] != jobset_of(new.objects)["metadata"]


def test_the_failure_policy_keeps_the_deadline_rule_with_or_without_a_deadline() -> None:
    plain = jobset_of(compile_job(*_plain(True)).objects)
    rules = as_object(as_object(plain["spec"])["failurePolicy"])["rules"]

    assert rules == [
        {
            "name": "TraincDeadlineExceeded",
            "action": "FailJobSet",
            "onJobFailureReasons": ["DeadlineExceeded"],
        },
        *as_object(_FAILURE_POLICY)["rules"],  # type: ignore[misc]
    ]
