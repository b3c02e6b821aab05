from __future__ import annotations

import pytest

from tests.build.support import container_of, env, env_names, start
from tests.support.builders import container, located, make_runtime, make_trainjob, rjob
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.plugins.jobset import JobSetPlugin
from trainc.plugins.torch import TorchPlugin, check_torch_env_injection, procs_per_node
from trainc.plugins.torchtune import TuneRun
from trainc.resolve.context import Resolution
from trainc.resolve.edits import COMPLETION_INDEX_PATH

PLUGIN = TorchPlugin()
RANK = {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}}
PET = ["PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"]


def torch_runtime(
    *, resources: JsonObject | None = None, jobs: list[JsonObject] | None = None, **torch: JsonValue
) -> DefaultedObject:
    node = container("node", resources=resources) if resources is not None else container("node")
    return make_runtime(
        "torch-distributed",
        ml_policy={"numNodes": 100, "torch": torch},
        replicated_jobs=list[JsonValue](jobs)
        if jobs
        else [rjob("node", ancestor="trainer", containers=[node])],
    )


def enforced(trainjob: DefaultedObject, runtime: DefaultedObject) -> Resolution:
    """A context after the JobSet overrides and the torch plugin, as the framework runs them."""
    context = start(trainjob, runtime)
    JobSetPlugin().apply_trainjob(context)
    PLUGIN.enforce_ml_policy(context)
    return context


def test_name() -> None:
    assert PLUGIN.name == "torch"


def test_explicit_counts_give_the_five_pet_variables_and_the_port() -> None:
    context = enforced(
        make_trainjob("test-job", trainer={"numNodes": 30, "numProcPerNode": 3}), torch_runtime()
    )
    node = container_of(context.jobset_spec)
    assert env_names(node) == PET
    assert env(node) == {
        "PET_NNODES": "30",
        "PET_NPROC_PER_NODE": "3",
        "PET_NODE_RANK": RANK,
        "PET_MASTER_ADDR": "test-job-node-0-0.test-job",
        "PET_MASTER_PORT": "29500",
    }
    assert node["ports"] == [{"containerPort": 29500}]
    assert context.trainer_pod_set().count == 30  # type: ignore[union-attr]


def test_pet_env_follows_the_trainjob_env() -> None:
    context = enforced(
        make_trainjob(trainer={"env": [{"name": "USER", "value": "u"}]}),
        torch_runtime(),
    )
    assert env_names(container_of(context.jobset_spec)) == ["USER", *PET]


def test_an_existing_trainer_port_is_replaced_not_duplicated() -> None:
    node = container(
        "node", ports=[{"containerPort": 29500, "name": "rdzv"}, {"containerPort": 8080}]
    )
    context = enforced(
        make_trainjob(trainer={}),
        torch_runtime(jobs=[rjob("node", ancestor="trainer", containers=[node])]),
    )
    # The runtime's ports carry the CRD default protocol; the upserted one is upstream's.
    assert container_of(context.jobset_spec)["ports"] == [
        {"containerPort": 29500},
        {"containerPort": 8080, "protocol": "TCP"},
    ]


def test_without_spec_trainer_there_is_no_env_and_the_runtime_count_stays() -> None:
    context = enforced(make_trainjob(), torch_runtime(envInjection={"targets": []}))
    node = container_of(context.jobset_spec)
    assert "env" not in node
    assert "ports" not in node
    assert context.trainer_pod_set().count == 100  # type: ignore[union-attr]


def test_not_a_torch_runtime_is_left_alone() -> None:
    runtime = make_runtime(ml_policy={"numNodes": 3, "jax": {}})
    context = enforced(make_trainjob(trainer={"numNodes": 7}), runtime)
    assert "env" not in container_of(context.jobset_spec)
    assert context.trainer_pod_set().count == 3  # type: ignore[union-attr]


def test_only_the_first_trainer_job_gets_the_env() -> None:
    jobs = [rjob("node", ancestor="trainer"), rjob("second", ancestor="trainer")]
    context = enforced(make_trainjob(trainer={}), torch_runtime(jobs=jobs))
    assert env_names(container_of(context.jobset_spec)) == PET
    assert "env" not in container_of(context.jobset_spec, "second")


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"requests": {"cpu": "4"}}, 4),
        ({"requests": {"cpu": "2.5"}}, 3),
        ({"requests": {"cpu": "700m"}}, 1),
        ({"limits": {"cpu": "6"}}, 6),
        ({}, 1),
        ({"requests": {"cpu": "6"}, "limits": {"example.com/gpu": 2}}, "auto"),
        ({"requests": {"nvidia.com/gpu": "1"}}, "auto"),
    ],
)
def test_procs_per_node_from_runtime_resources(resources: JsonObject, expected: object) -> None:
    context = start(make_trainjob(trainer={}), torch_runtime(resources=resources))
    assert procs_per_node(context) == expected


def test_resources_per_node_replace_the_runtime_resources() -> None:
    # Merged, the runtime's GPU would make it "auto"; replaced, only the 2 CPUs count.
    context = start(
        make_trainjob(trainer={"resourcesPerNode": {"requests": {"cpu": "2"}}}),
        torch_runtime(resources={"limits": {"nvidia.com/gpu": 8}}),
    )
    assert procs_per_node(context) == 2


def test_explicit_procs_per_node_wins_over_resources() -> None:
    context = start(
        make_trainjob(trainer={"numProcPerNode": 5}),
        torch_runtime(resources={"limits": {"nvidia.com/gpu": 8}}),
    )
    assert procs_per_node(context) == 5


def test_procs_per_node_without_a_node_container_resources() -> None:
    jobs = [rjob("node", ancestor="trainer", containers=["other"])]
    context = start(make_trainjob(trainer={}), torch_runtime(jobs=jobs))
    assert procs_per_node(context) == 1


def test_env_injection_targets_get_all_pet_variables() -> None:
    node = rjob(
        "node",
        ancestor="trainer",
        containers=["node", "sidecar", "other"],
        init_containers=["preflight"],
    )
    helper = rjob("helper", containers=["probe"])
    runtime = torch_runtime(
        jobs=[node, helper],
        envInjection={
            "targets": [
                {"jobName": "node", "containerNames": ["sidecar", "preflight"]},
                {"jobName": "helper", "containerNames": ["probe"]},
                {"jobName": "absent", "containerNames": ["x"]},
            ]
        },
    )
    context = enforced(make_trainjob("tj", trainer={"numNodes": 2}), runtime)
    spec = context.jobset_spec
    for target in (
        container_of(spec, "node", "sidecar"),
        container_of(spec, "node", "preflight", key="initContainers"),
        container_of(spec, "helper", "probe"),
    ):
        assert env_names(target) == PET
        assert env(target)["PET_NNODES"] == "2"
        assert env(target)["PET_MASTER_ADDR"] == "tj-node-0-0.tj"
        assert "ports" not in target
    assert "env" not in container_of(spec, "node", "other")
    # Entries are fresh per container, so the emitted YAML has no aliases.
    sidecar, probe = container_of(spec, "node", "sidecar"), container_of(spec, "helper", "probe")
    assert sidecar["env"][0] is not probe["env"][0]


def test_torchtune_drops_the_master_variables_but_targets_keep_them() -> None:
    node = rjob(
        "node",
        ancestor="trainer",
        containers=[container("node", command=["tune", "run", "output_dir=/out"])],
        init_containers=["preflight"],
    )
    runtime = make_runtime(
        "torchtune-llama3.2-1b",
        ml_policy={
            "numNodes": 1,
            "torch": {
                "envInjection": {"targets": [{"jobName": "node", "containerNames": ["preflight"]}]}
            },
        },
        replicated_jobs=[node],
    )
    context = enforced(
        make_trainjob("tj", runtime="torchtune-llama3.2-1b", trainer={"command": ["tune", "run"]}),
        runtime,
    )
    main = container_of(context.jobset_spec)
    assert env_names(main) == PET[:3]
    assert main["command"] == [
        "tune",
        "run",
        "full_finetune_single_device",
        "--config",
        "llama3_2/1B_full_single_device",
        "output_dir=/out",
    ]
    assert (
        env_names(container_of(context.jobset_spec, key="initContainers", name="preflight")) == PET
    )
    # What the recipe was chosen from, for validation to judge.
    assert context.extensions.get(TuneRun) == TuneRun(
        runtime_name="torchtune-llama3.2-1b", num_nodes=1, procs_per_node=1, gpus=0, args=[]
    )


def test_no_tune_run_is_recorded_for_other_commands() -> None:
    context = enforced(make_trainjob(trainer={"command": ["python"]}), torch_runtime())
    assert context.extensions.get(TuneRun) is None


def test_torchtune_command_goes_to_every_trainer_job() -> None:
    jobs = [
        rjob("node", ancestor="trainer", containers=[container("node", command=["a=1"])]),
        rjob(
            "extra", ancestor="trainer", containers=[container("node", command=["output_dir=/o"])]
        ),
    ]
    context = enforced(
        make_trainjob(
            "tj",
            runtime="torchtune-llama3.3-70b",
            trainer={"command": ["tune", "run"], "numNodes": 2, "numProcPerNode": 1},
        ),
        make_runtime("torchtune-llama3.3-70b", replicated_jobs=jobs),
    )
    expected = [
        "tune",
        "run",
        "--rdzv_endpoint=tj-node-0-0.tj:29500",
        "full_finetune_distributed",
        "--config",
        "llama3_3/70B_full_multinode",
        "output_dir=/o",
    ]
    assert container_of(context.jobset_spec)["command"] == expected
    assert container_of(context.jobset_spec, "extra")["command"] == expected
    assert (
        container_of(context.jobset_spec)["command"]
        is not container_of(context.jobset_spec, "extra")["command"]
    )


def _injection(*targets: JsonValue) -> DefaultedObject:
    jobs = [
        rjob("node", ancestor="trainer"),
        rjob("eval", containers=["evaluator"], init_containers=["warmup"]),
    ]
    policy: JsonValue = {"torch": {"envInjection": {"targets": list(targets)}}}
    return make_runtime(ml_policy=policy, replicated_jobs=jobs)


def test_env_injection_targets_must_exist():
    runtime = _injection(
        {"jobName": "eval", "containerNames": ["warmup", "evaluater"]},
        {"jobName": "evals", "containerNames": ["evaluator"]},
    )

    findings = check_torch_env_injection(runtime)

    targets = "spec.mlPolicy.torch.envInjection.targets"
    assert located(findings) == [
        ("xobj.torch-env-injection", f"{targets}[0].containerNames[1]"),
        ("xobj.torch-env-injection", f"{targets}[1].jobName"),
    ]
    assert findings[0].message == (
        'envInjection target podSet "eval" container "evaluater" not found in runtime template'
    )


def test_env_injection_into_existing_containers_passes():
    runtime = _injection({"jobName": "eval", "containerNames": ["evaluator", "warmup"]})

    assert check_torch_env_injection(runtime) == []
