from __future__ import annotations

import pytest

from tests.build.support import container_of, env, env_names, start
from tests.support.builders import container, make_runtime, make_trainjob, rjob
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.plugins.xgboost import XGBoostPlugin
from trainc.resolve.edits import COMPLETION_INDEX_PATH

PLUGIN = XGBoostPlugin()


def xgboost_runtime(resources: JsonObject | None = None) -> DefaultedObject:
    node = container("node", resources=resources) if resources else container("node")
    return make_runtime(
        "xgboost-distributed",
        ml_policy={"numNodes": 2, "xgboost": {}},
        replicated_jobs=[rjob("node", ancestor="trainer", containers=[node])],
    )


def test_name() -> None:
    assert PLUGIN.name == "xgboost"


def test_env_and_port_without_gpus() -> None:
    context = start(make_trainjob("tj", trainer={"numNodes": 3}), xgboost_runtime())
    PLUGIN.enforce_ml_policy(context)
    node = container_of(context.jobset_spec)
    assert env_names(node) == [
        "DMLC_TRACKER_URI",
        "DMLC_TRACKER_PORT",
        "DMLC_TASK_ID",
        "DMLC_NUM_WORKER",
    ]
    assert env(node) == {
        "DMLC_TRACKER_URI": "tj-node-0-0.tj",
        "DMLC_TRACKER_PORT": "29500",
        "DMLC_TASK_ID": {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}},
        "DMLC_NUM_WORKER": "3",
    }
    assert node["ports"] == [{"containerPort": 29500}]
    assert context.trainer_pod_set().count == 3  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("runtime_resources", "trainer", "workers"),
    [
        ({"limits": {"nvidia.com/gpu": 4}}, {}, "8"),
        ({"requests": {"cpu": "8"}}, {}, "2"),
        # resourcesPerNode replaces the runtime's resources (no merge): 2 nodes x 1 GPU.
        (
            {"limits": {"nvidia.com/gpu": 4}},
            {"resourcesPerNode": {"limits": {"amd.com/gpu": 1}}},
            "2",
        ),
        ({"limits": {"nvidia.com/gpu": 4}}, {"resourcesPerNode": {"requests": {"cpu": 2}}}, "2"),
        (None, {"numNodes": 5, "resourcesPerNode": {"requests": {"nvidia.com/gpu": 2}}}, "10"),
    ],
)
def test_one_worker_per_gpu(
    runtime_resources: JsonObject | None, trainer: JsonValue, workers: str
) -> None:
    context = start(make_trainjob(trainer=trainer), xgboost_runtime(runtime_resources))
    PLUGIN.enforce_ml_policy(context)
    assert env(container_of(context.jobset_spec))["DMLC_NUM_WORKER"] == workers


def test_without_spec_trainer_nothing_is_injected() -> None:
    context = start(make_trainjob(), xgboost_runtime())
    PLUGIN.enforce_ml_policy(context)
    assert "env" not in container_of(context.jobset_spec)


def test_other_runtimes_are_left_alone() -> None:
    context = start(make_trainjob(trainer={"numNodes": 3}), make_runtime())
    PLUGIN.enforce_ml_policy(context)
    assert "env" not in container_of(context.jobset_spec)
    assert context.trainer_pod_set().count == 1  # type: ignore[union-attr]
