"""Provenance: the Trace's records, and the origins a resolution gives real values."""

from __future__ import annotations

from typing import Any

from tests.support.builders import container, make_runtime, make_trainjob, resolved, rjob
from trainc.resolve.provenance import Derived, Trace, Written, describe

RUNTIME = make_runtime("torch", path="runtime.yaml")
TRAINJOB = make_trainjob("job", runtime="torch", path="job.yaml")
JOBSET = ("spec", "template", "spec")
NODE = ("replicatedJobs", 0, "template", "spec", "template", "spec", "containers", 0)


def test_written_extends_its_path_and_derived_stays_itself() -> None:
    origin = Written(RUNTIME, ("spec",), manager="example.com/team")
    assert origin.at(("template", 0)) == Written(
        RUNTIME, ("spec", "template", 0), "example.com/team"
    )
    assert origin.at(()) is origin
    derived = Derived("trainc's torch plugin", "torchrun environment", origin)
    assert derived.at(("env", 3)) is derived


def test_describe_says_who_wrote_or_set_a_value() -> None:
    assert describe(Written(RUNTIME, ())) == "written in ClusterTrainingRuntime torch"
    assert describe(Written(TRAINJOB, (), "example.com/team")) == (
        "written in the runtime patch of manager 'example.com/team' of TrainJob job"
    )
    derived = Derived(
        "the JobSet webhook", "restartPolicy defaults to 'OnFailure'", Written(RUNTIME, ())
    )
    assert describe(derived) == "set by the JobSet webhook: restartPolicy defaults to 'OnFailure'"


def test_unrecorded_nodes_are_as_their_nearest_recorded_ancestor_wrote_them() -> None:
    tree: dict[str, Any] = {"a": {"b": [{"c": 1}]}}
    trace = Trace()
    trace.node(tree, Written(RUNTIME, ("spec",)))
    assert trace.origin(tree, ("a", "b", 0, "c")) == Written(RUNTIME, ("spec", "a", "b", 0, "c"))
    # A path past the tree (a missing field a rule requires) keeps the rest of the path.
    assert trace.origin(tree, ("a", "x", "y")) == Written(RUNTIME, ("spec", "a", "x", "y"))
    assert Trace().origin(tree, ("a",)) is None


def test_member_and_node_records_take_over_below_them() -> None:
    inner: dict[str, Any] = {"image": "x", "env": [{"name": "A"}]}
    tree: dict[str, Any] = {"c": inner}
    trace = Trace()
    trace.node(tree, Written(RUNTIME, ()))
    trace.member(inner, "image", Written(TRAINJOB, ("spec", "trainer", "image")))
    entry = inner["env"][0]
    trace.node(entry, Written(TRAINJOB, ("spec", "trainer", "env", 4)))
    assert trace.origin(tree, ("c", "image")) == Written(TRAINJOB, ("spec", "trainer", "image"))
    assert trace.origin(tree, ("c", "env", 0, "name")) == Written(
        TRAINJOB, ("spec", "trainer", "env", 4, "name")
    )
    assert trace.child_origin(inner, Written(RUNTIME, ("c",)), "env") == Written(
        RUNTIME, ("c", "env")
    )


def test_a_rebuilt_mapping_keeps_the_records_of_the_one_it_replaces() -> None:
    old: dict[str, Any] = {"a": 1, "b": 2}
    trace = Trace()
    trace.node(old, Written(RUNTIME, ("x",)))
    trace.member(old, "b", Written(TRAINJOB, ("y",)))
    new = dict(old)
    trace.same(new, old)
    assert trace.origin(new, ("a",)) == Written(RUNTIME, ("x", "a"))
    assert trace.origin(new, ("b",)) == Written(TRAINJOB, ("y",))


def _node_runtime() -> Any:
    node = container("node", resources={"requests": {"cpu": "2"}, "limits": {"nvidia.com/gpu": 1}})
    return make_runtime(
        "torch",
        ml_policy={"numNodes": 1, "torch": {}},
        replicated_jobs=[rjob("node", ancestor="trainer", containers=[node])],
    )


def test_a_resolved_jobset_knows_where_each_value_came_from() -> None:
    patch: Any = {
        "manager": "example.com/team",
        "trainingRuntimeSpec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "spec": {"template": {"spec": {"nodeSelector": {"zone": "a"}}}}
                            },
                        }
                    ]
                }
            }
        },
    }
    trainjob = make_trainjob(
        "job",
        runtime="torch",
        trainer={
            "numNodes": 4,
            "image": "example.com/train:2",
            "env": [{"name": "EPOCHS", "value": "3"}],
            "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}},
        },
        runtimePatches=[patch],
    )
    runtime = _node_runtime()
    job = resolved(trainjob, runtime)
    pod = NODE[:6]
    trainer = ("spec", "trainer")

    assert job.origin((*NODE, "image")) == Written(trainjob, (*trainer, "image"))
    assert job.origin((*NODE, "name")) == Written(runtime, (*JOBSET, *NODE, "name"))
    assert job.origin((*NODE, "resources", "limits", "nvidia.com/gpu")) == Written(
        trainjob, (*trainer, "resourcesPerNode", "limits", "nvidia.com/gpu")
    )
    assert job.origin((*NODE, "resources", "requests", "cpu")) == Written(
        runtime, (*JOBSET, *NODE, "resources", "requests", "cpu")
    )
    spec: Any = job.jobset_spec
    node: Any = spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    env = [entry["name"] for entry in node["containers"][0]["env"]]
    epochs = env.index("EPOCHS")
    assert job.origin((*NODE, "env", epochs, "value")) == Written(
        trainjob, (*trainer, "env", 0, "value")
    )
    # Each torchrun variable is credited to what decides it: the count to numNodes, the
    # process count to resourcesPerNode's GPUs, the rank to the runtime's torch policy.
    causes = {
        "PET_NNODES": Written(trainjob, (*trainer, "numNodes")),
        "PET_NPROC_PER_NODE": Written(trainjob, (*trainer, "resourcesPerNode")),
        "PET_NODE_RANK": Written(runtime, ("spec", "mlPolicy", "torch")),
        "PET_MASTER_ADDR": Written(trainjob, ("metadata", "name")),
    }
    for variable, cause in causes.items():
        origin = job.origin((*NODE, "env", env.index(variable)))
        assert isinstance(origin, Derived)
        assert origin.actor == "trainc's torch plugin"
        assert origin.cause == cause, variable
    selector = job.origin((*pod, "nodeSelector", "zone"))
    assert selector == Written(
        trainjob,
        (
            "spec",
            "runtimePatches",
            0,
            "trainingRuntimeSpec",
            "template",
            "spec",
            "replicatedJobs",
            0,
            "template",
            "spec",
            "template",
            "spec",
            "nodeSelector",
            "zone",
        ),
        manager="example.com/team",
    )
    parallelism = job.origin(("replicatedJobs", 0, "template", "spec", "parallelism"))
    assert isinstance(parallelism, Derived)
    assert parallelism.cause == Written(trainjob, (*trainer, "numNodes"))
    restart = job.origin((*pod, "restartPolicy"))
    assert isinstance(restart, Derived)
    assert restart.actor == "the JobSet webhook"
    assert restart.cause.source is runtime
