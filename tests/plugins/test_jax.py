from __future__ import annotations

from tests.build.support import container_of, env, env_names, start
from tests.support.builders import make_runtime, make_trainjob, rjob
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue
from trainc.plugins.jax import JAXPlugin
from trainc.resolve.edits import COMPLETION_INDEX_PATH

PLUGIN = JAXPlugin()


def jax_runtime(**jobset: JsonValue) -> DefaultedObject:
    return make_runtime("jax-distributed", ml_policy={"numNodes": 4, "jax": {}}, jobset=jobset)


def test_name() -> None:
    assert PLUGIN.name == "jax"


def test_env_port_and_count() -> None:
    context = start(make_trainjob("tj", trainer={"numNodes": 8}), jax_runtime())
    PLUGIN.enforce_ml_policy(context)
    node = container_of(context.jobset_spec)
    assert env_names(node) == ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"]
    assert env(node) == {
        "JAX_NUM_PROCESSES": "8",
        "JAX_PROCESS_ID": {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}},
        "JAX_COORDINATOR_ADDRESS": "tj-node-0-0.tj:29500",
    }
    assert node["ports"] == [{"containerPort": 29500}]
    assert context.trainer_pod_set().count == 8  # type: ignore[union-attr]


def test_the_runtime_count_without_num_nodes() -> None:
    context = start(make_trainjob(trainer={}), jax_runtime())
    PLUGIN.enforce_ml_policy(context)
    assert env(container_of(context.jobset_spec))["JAX_NUM_PROCESSES"] == "4"


def test_a_custom_subdomain_does_not_move_the_coordinator() -> None:
    context = start(make_trainjob("tj", trainer={}), jax_runtime(network={"subdomain": "x.org"}))
    PLUGIN.enforce_ml_policy(context)
    assert env(container_of(context.jobset_spec))["JAX_COORDINATOR_ADDRESS"] == (
        "tj-node-0-0.tj:29500"
    )


def test_without_spec_trainer_nothing_is_injected() -> None:
    context = start(make_trainjob(), jax_runtime())
    PLUGIN.enforce_ml_policy(context)
    assert "env" not in container_of(context.jobset_spec)
    assert "ports" not in container_of(context.jobset_spec)


def test_other_runtimes_are_left_alone() -> None:
    context = start(make_trainjob(trainer={"numNodes": 3}), make_runtime())
    PLUGIN.enforce_ml_policy(context)
    assert "env" not in container_of(context.jobset_spec)
    assert context.trainer_pod_set().count == 1  # type: ignore[union-attr]


def test_a_trainer_job_without_node_container_gets_nothing() -> None:
    runtime = make_runtime(
        ml_policy={"jax": {}}, replicated_jobs=[rjob("node", ancestor="trainer", containers=["x"])]
    )
    context = start(make_trainjob(trainer={"numNodes": 2}), runtime)
    PLUGIN.enforce_ml_policy(context)
    assert "env" not in container_of(context.jobset_spec, name="x")
    assert context.trainer_pod_set().count == 2  # type: ignore[union-attr]
