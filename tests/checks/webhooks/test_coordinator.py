from tests.support.builders import located, make_runtime, rjob
from trainc.checks.webhooks.coordinator import check_coordinator
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject

COORDINATOR = "spec.template.spec.coordinator"


def _runtime(coordinator: JsonObject, *jobs: JsonObject) -> DefaultedObject:
    replicated = list(jobs) or [
        rjob("node", ancestor="trainer"),
        rjob("workers", containers=["w"], replicas=2),
    ]
    return make_runtime(replicated_jobs=replicated, jobset={"coordinator": coordinator})


def test_coordinator_job_must_exist():
    findings = check_coordinator(_runtime({"replicatedJob": "nodes"}))

    assert located(findings) == [("xobj.jobset-coordinator", f"{COORDINATOR}.replicatedJob")]
    assert findings[0].message == "coordinator replicatedJob nodes does not exist"
    assert findings[0].hint == "did you mean 'node'?"


def test_job_index_counts_the_compiled_replicas():
    findings = check_coordinator(_runtime({"replicatedJob": "workers", "jobIndex": 2}))

    assert located(findings) == [("xobj.jobset-coordinator", f"{COORDINATOR}.jobIndex")]
    assert findings[0].message.startswith(
        "coordinator job index 2 is invalid for replicatedJob workers"
    )


def test_coordinator_job_must_be_indexed():
    job = rjob("node", ancestor="trainer", job_spec={"completionMode": "NonIndexed"})

    findings = check_coordinator(_runtime({"replicatedJob": "node"}, job))

    assert located(findings) == [
        (
            "xobj.jobset-coordinator",
            "spec.template.spec.replicatedJobs[0].template.spec.completionMode",
        )
    ]


def test_coordinator_within_range_passes():
    runtime = _runtime({"replicatedJob": "node", "jobIndex": 0, "podIndex": 3})

    assert check_coordinator(runtime) == []
