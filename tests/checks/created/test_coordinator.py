from tests.support.builders import located, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.created.coordinator import check_coordinator_pod
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject

COORDINATOR = "spec.template.spec.coordinator"


def _runtime(coordinator: JsonObject) -> DefaultedObject:
    replicated = [
        rjob("node", ancestor="trainer"),
        rjob("workers", containers=["w"], replicas=2),
    ]
    return make_runtime(replicated_jobs=replicated, jobset={"coordinator": coordinator})


def test_pod_index_beyond_the_trainjob_nodes_points_at_num_nodes():
    runtime = _runtime({"replicatedJob": "node", "podIndex": 3})

    findings = check_coordinator_pod(resolved(make_trainjob(trainer={"numNodes": 2}), runtime))

    assert located(findings) == [("xobj.jobset-coordinator", "spec.trainer.numNodes")]
    assert findings[0].message.startswith(
        "coordinator pod index 3 is invalid for replicatedJob node job index 0"
    )
    assert findings[0].hint == "set trainer.numNodes to at least 4"


def test_pod_index_beyond_the_runtime_default_points_at_the_runtime():
    runtime = _runtime({"replicatedJob": "node", "podIndex": 1})

    findings = check_coordinator_pod(resolved(make_trainjob(), runtime))

    assert located(findings) == [("xobj.jobset-coordinator", f"{COORDINATOR}.podIndex")]
    assert findings[0].file == "runtime.yaml"


def test_coordinator_within_the_resolved_pods_passes():
    runtime = _runtime({"replicatedJob": "node", "jobIndex": 0, "podIndex": 3})

    assert check_coordinator_pod(resolved(make_trainjob(trainer={"numNodes": 4}), runtime)) == []
