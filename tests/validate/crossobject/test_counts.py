from tests.support.builders import defaulted, make_runtime, make_trainjob, rjob
from tests.support.documents import make_object
from trainc.model.json import JsonValue
from trainc.model.labels import API_VERSION
from trainc.resolve.objects import DefaultedObject
from trainc.validate.crossobject.counts import job_shapes


def _shapes(
    runtime: DefaultedObject, trainjob: DefaultedObject | None = None
) -> list[tuple[str | None, int, int, bool]]:
    data = trainjob.data if trainjob is not None else None
    return [
        (s.rjob.name, s.replicas, s.completions, s.from_trainjob)
        for s in job_shapes(runtime.data, data)
    ]


INIT = rjob(
    "dataset-initializer",
    ancestor="dataset-initializer",
    containers=["dataset-initializer"],
    replicas=3,
)


def test_trainer_counts_ml_policy_nodes_and_ancestors_get_one_replica():
    runtime = make_runtime(
        ml_policy={"numNodes": 3, "torch": {}},
        replicated_jobs=[INIT, rjob("node", ancestor="trainer")],
    )

    assert _shapes(runtime) == [
        ("dataset-initializer", 1, 1, False),
        ("node", 1, 3, False),
    ]


def test_trainjob_num_nodes_rescales_the_trainer_without_clamping():
    runtime = make_runtime()

    assert _shapes(runtime, make_trainjob(trainer={"numNodes": 8})) == [("node", 1, 8, True)]
    assert _shapes(runtime, make_trainjob(trainer={"numNodes": 0})) == [("node", 1, 0, True)]


def test_without_ml_policy_parallelism_counts():
    jobs: list[JsonValue] = [
        rjob("node", ancestor="trainer", job_spec={"parallelism": 4}),
        rjob("ps", containers=["ps"], replicas=2, job_spec={"parallelism": 0}),
    ]
    runtime = defaulted(
        make_object(
            {
                "apiVersion": API_VERSION,
                "kind": "ClusterTrainingRuntime",
                "metadata": {"name": "plain"},
                "spec": {"template": {"spec": {"replicatedJobs": jobs}}},
            }
        )
    )

    assert _shapes(runtime) == [("node", 1, 4, False), ("ps", 2, 1, False)]


def test_mpi_rescales_the_node_job_minus_the_launcher():
    jobs = [rjob("launcher", ancestor="trainer"), rjob("node")]
    as_node = make_runtime(
        ml_policy={"numNodes": 1, "mpi": {"runLauncherAsNode": True}}, replicated_jobs=jobs
    )
    separate = make_runtime(ml_policy={"numNodes": 1, "mpi": {}}, replicated_jobs=jobs)

    assert _shapes(as_node, make_trainjob(trainer={"numNodes": 4})) == [
        ("launcher", 1, 1, False),
        ("node", 1, 3, True),
    ]
    assert _shapes(as_node, make_trainjob(trainer={"numNodes": 1}))[1] == ("node", 1, 1, True)
    assert _shapes(separate, make_trainjob(trainer={"numNodes": 4}))[1] == ("node", 1, 4, True)
