import pytest

from tests.support.builders import located, make_runtime, rjob
from trainc.checks.webhooks.jobset_policies import check_jobset_policies
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue

SPEC = "spec.template.spec"
JOBS: list[JsonValue] = [rjob("node", ancestor="trainer"), rjob("launcher", containers=["node"])]


def _runtime(**jobset: JsonValue) -> DefaultedObject:
    return make_runtime(replicated_jobs=JOBS, jobset=jobset)


def _rules(*rules: JsonValue) -> DefaultedObject:
    return _runtime(failurePolicy={"maxRestarts": 1, "rules": list(rules)})


def test_success_policy_targets_must_exist():
    findings = check_jobset_policies(
        _runtime(successPolicy={"operator": "All", "targetReplicatedJobs": ["launchr"]})
    )

    assert located(findings) == [
        ("xobj.jobset-target-unknown", f"{SPEC}.successPolicy.targetReplicatedJobs[0]")
    ]
    assert findings[0].message.startswith(
        "invalid replicatedJob name 'launchr' does not appear in .spec.ReplicatedJobs"
    )
    assert findings[0].hint == "did you mean 'launcher'?"


def test_failure_rule_targets_must_exist():
    findings = check_jobset_policies(
        _rules({"name": "fail", "action": "FailJobSet", "targetReplicatedJobs": ["workers"]})
    )

    assert located(findings) == [
        ("xobj.jobset-target-unknown", f"{SPEC}.failurePolicy.rules[0].targetReplicatedJobs[0]")
    ]
    assert "in failure policy does not appear in .spec.ReplicatedJobs" in findings[0].message


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("1st-rule", "invalid failure policy rule name '1st-rule', a failure policy rule name"),
        ("r" * 129, "invalid failure policy rule name of length 129"),
    ],
)
def test_rule_names_follow_the_webhook_format(name, expected):
    findings = check_jobset_policies(_rules({"name": name, "action": "FailJobSet"}))

    assert located(findings) == [
        ("xobj.jobset-failure-rule", f"{SPEC}.failurePolicy.rules[0].name")
    ]
    assert findings[0].message.startswith(expected)


def test_failure_reasons_must_be_job_reasons():
    findings = check_jobset_policies(
        _rules(
            {
                "name": "deadline",
                "action": "FailJobSet",
                "onJobFailureReasons": ["DeadlineExceeded", "DeadlineExceded"],
            }
        )
    )

    assert located(findings) == [
        ("xobj.jobset-failure-rule", f"{SPEC}.failurePolicy.rules[0].onJobFailureReasons[1]")
    ]
    assert findings[0].message == (
        "invalid job failure reason 'DeadlineExceded' in failure policy is not a recognized job "
        "failure reason"
    )
    assert findings[0].hint == "did you mean 'DeadlineExceeded'?"


def test_rule_names_must_be_unique_after_defaulting():
    findings = check_jobset_policies(
        _rules(
            {"name": "failurePolicyRule1", "action": "FailJobSet"},
            {"name": "", "action": "RestartJobSet"},
        )
    )

    assert located(findings) == [
        ("xobj.jobset-failure-rule", f"{SPEC}.failurePolicy.rules[1].name")
    ]
    assert findings[0].message == (
        "rule names are not unique, rules with indices [0 1] all have the same name "
        "'failurePolicyRule1'"
    )


def test_valid_policies_pass():
    runtime = _runtime(
        successPolicy={"operator": "All", "targetReplicatedJobs": ["launcher"]},
        failurePolicy={
            "rules": [
                {
                    "name": "deadline",
                    "action": "FailJobSet",
                    "onJobFailureReasons": ["DeadlineExceeded"],
                    "targetReplicatedJobs": ["node"],
                },
                {"name": "", "action": "RestartJobSet"},
            ]
        },
    )

    assert check_jobset_policies(runtime) == []
