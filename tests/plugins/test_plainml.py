from __future__ import annotations

import pytest

from tests.build.support import container_of, start
from tests.support.builders import make_runtime, make_trainjob, rjob
from trainc.model.json import JsonValue, as_object
from trainc.plugins.plainml import PlainMLPlugin

PLUGIN = PlainMLPlugin()
JOBS = [rjob("helper", containers=["helper"]), rjob("node", ancestor="trainer")]


def counts(trainer: JsonValue, ml_policy: JsonValue) -> dict[str, int]:
    trainjob = make_trainjob(trainer=trainer) if trainer is not None else make_trainjob()
    runtime = make_runtime(ml_policy=ml_policy or {}, replicated_jobs=JOBS)
    if ml_policy is None:
        as_object(runtime.data["spec"]).pop("mlPolicy")
    context = start(trainjob, runtime)
    PLUGIN.enforce_ml_policy(context)
    return {pod_set.name: pod_set.count for pod_set in context.pod_sets}


def test_name() -> None:
    assert PLUGIN.name == "plainml"


@pytest.mark.parametrize(
    "ml_policy",
    [
        None,
        {"numNodes": 100},
        {"numNodes": 4, "xgboost": {}},
        {"numNodes": 4, "flux": {}},
    ],
)
def test_num_nodes_sets_the_trainer_count(ml_policy: JsonValue) -> None:
    assert counts({"numNodes": 30}, ml_policy) == {"helper": 1, "node": 30}


def test_num_nodes_zero_is_kept() -> None:
    assert counts({"numNodes": 0}, {"numNodes": 3}) == {"helper": 1, "node": 0}


@pytest.mark.parametrize("trainer", [None, {"image": "x"}])
def test_without_num_nodes_the_runtime_count_stays(trainer: JsonValue) -> None:
    assert counts(trainer, {"numNodes": 5}) == {"helper": 1, "node": 5}


@pytest.mark.parametrize("framework", ["torch", "mpi", "jax"])
def test_frameworks_with_their_own_plugin_are_left_alone(framework: str) -> None:
    assert counts({"numNodes": 30}, {"numNodes": 5, framework: {}}) == {"helper": 1, "node": 5}


@pytest.mark.parametrize(
    ("ml_policy", "upserted"),
    [
        ({"numNodes": 1}, True),
        ({"xgboost": {}}, True),
        ({"torch": {}}, False),
        ({"jax": {}}, False),
    ],
)
def test_trainer_env_enters_the_node_container_unless_a_framework_owns_it(
    ml_policy: JsonValue, upserted: bool
) -> None:
    trainjob = make_trainjob(trainer={"env": [{"name": "A", "value": "1"}]})
    context = start(trainjob, make_runtime(ml_policy=ml_policy, replicated_jobs=JOBS))
    PLUGIN.enforce_ml_policy(context)
    expected = [{"name": "A", "value": "1"}] if upserted else None
    assert container_of(context.jobset_spec).get("env") == expected
