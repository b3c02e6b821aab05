"""Upstream's translation vectors (T1-T16 in ``docs/upstream.md``), end to end.

Each test builds the inputs of one upstream unit test (``pkg/runtime/core/
trainingruntime_test.go`` unless noted) and compiles them through ``resolve_job`` and
``build_job``. Upstream compares env lists order-insensitively; these tests also pin
trainc's stable order where it matters. Upstream's JobSets carry a TrainJob
ownerReference, which trainc cannot emit offline (``docs/design.md``, "Offline, by design").
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.build.support import (
    Obj,
    compile_job,
    container_of,
    env,
    env_names,
    job_spec,
    jobset_of,
    pod,
    rjob,
)
from tests.support.builders import container, make_runtime, make_trainjob
from tests.support.builders import rjob as make_rjob
from trainc.config.settings import CompileSettings
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object
from trainc.model.labels import ANCESTOR_LABEL
from trainc.resolve.edits import COMPLETION_INDEX_PATH

RES: Obj = {"requests": {"cpu": "1"}}
RANK = {"fieldRef": {"fieldPath": COMPLETION_INDEX_PATH}}
DEPENDS_ON: list[Any] = [
    {"name": "dataset-initializer", "status": "Complete"},
    {"name": "model-initializer", "status": "Complete"},
]
PVC: Obj = {"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}


def mount(path: str) -> Obj:
    return {"name": "initializer", "mountPath": path}


def upstream_runtime(
    name: str = "test-runtime",
    *,
    ml_policy: Any,
    containers: Obj | None = None,
    node: Obj | None = None,
    node_job: Obj | None = None,
    more_node_containers: tuple[Obj, ...] = (),
    init_containers: dict[str, list[Obj]] | None = None,
    **spec: Any,
) -> DefaultedObject:
    """Upstream's ``MakeTrainingRuntimeWrapper``: two initializers and the ``node`` trainer.

    ``containers`` adds fields to all three main containers, ``node`` to the trainer's
    only, ``node_job`` to the trainer's replicatedJob; ``init_containers`` by job name.
    ``ml_policy=None`` leaves the runtime without an mlPolicy.
    """
    inits = init_containers or {}

    def job(job_name: str, mounts: list[Any], extra: Obj) -> Obj:
        main = container(job_name, volumeMounts=mounts, **{**(containers or {}), **extra})
        more = more_node_containers if job_name == "node" else ()
        return make_rjob(
            job_name,
            ancestor="trainer" if job_name == "node" else job_name,
            containers=[main, *more],
            init_containers=inits.get(job_name, ()),
            volumes=[PVC],
        )

    jobs = [
        job("dataset-initializer", [mount("/workspace/dataset")], {}),
        job("model-initializer", [mount("/workspace/model")], {}),
        {
            **job("node", [mount("/workspace/dataset"), mount("/workspace/model")], node or {}),
            **(node_job or {}),
        },
    ]
    runtime = make_runtime(
        name,
        kind="TrainingRuntime",
        namespace="default",
        ml_policy=ml_policy or {},
        replicated_jobs=jobs,
        **spec,
    )
    if ml_policy is None:
        as_object(runtime.data["spec"]).pop("mlPolicy")
    return runtime


def upstream_trainjob(runtime: str = "test-runtime", **spec: Any) -> DefaultedObject:
    """TrainJob ``default/test-job`` on the TrainingRuntime ``runtime``."""
    return make_trainjob(
        "test-job", namespace="default", runtime=runtime, runtime_kind="TrainingRuntime", **spec
    )


def patch(manager: str, *jobs: Obj, metadata: Obj | None = None) -> Obj:
    template: Obj = {"spec": {"replicatedJobs": list(jobs)}} if jobs else {}
    if metadata is not None:
        template["metadata"] = metadata
    return {"manager": manager, "trainingRuntimeSpec": {"template": template}}


def patched_job(name: str, *, job_metadata: Obj | None = None, **pod: Any) -> Obj:
    """A replicatedJob fragment of a runtime patch: Job metadata, pod metadata and spec."""
    pod_template: Obj = {}
    if "metadata" in pod:
        pod_template["metadata"] = pod.pop("metadata")
    if pod:
        pod_template["spec"] = dict(pod)
    template: Obj = {"spec": {"template": pod_template}}
    if job_metadata is not None:
        template["metadata"] = job_metadata
    return {"name": name, "template": template}


def counts(jobset: Obj) -> dict[str, tuple[object, object, object]]:
    """(replicas, parallelism, completions) per replicatedJob."""
    return {
        str(job["name"]): (
            job.get("replicas"),
            job_spec(jobset, str(job["name"])).get("parallelism"),
            job_spec(jobset, str(job["name"])).get("completions"),
        )
        for job in jobset["spec"]["replicatedJobs"]
    }


def test_t1_plainml_with_patched_metadata() -> None:
    runtime = upstream_runtime(
        ml_policy={"numNodes": 100},
        containers={
            "image": "test:runtime",
            "command": ["runtime"],
            "args": ["runtime"],
            "resources": RES,
        },
        labels={"conflictLabel": "overridden"},
        podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 120}},
    )
    trainjob = upstream_trainjob(
        suspend=True,
        trainer={"numNodes": 30},
        runtimePatches=[
            patch(
                "test.io/manager",
                metadata={
                    "labels": {"conflictLabel": "override"},
                    "annotations": {"conflictAnnotation": "override"},
                },
            )
        ],
    )
    objects = compile_job(trainjob, runtime).objects
    jobset = jobset_of(objects)
    metadata = jobset["metadata"]
    assert (metadata["name"], metadata["namespace"]) == ("test-job", "default")
    # The patch wins over the template; the runtime object's own labels never propagate.
    # (The lifecycle plugin adds trainc's own keys beside these.)
    assert metadata["labels"]["conflictLabel"] == "override"
    assert metadata["annotations"]["conflictAnnotation"] == "override"
    assert jobset["spec"]["suspend"] is True
    assert counts(jobset) == {
        "dataset-initializer": (1, 1, 1),
        "model-initializer": (1, 1, 1),
        "node": (1, 30, 30),
    }
    for name in ("dataset-initializer", "model-initializer", "node"):
        labels = rjob(jobset, name)["template"]["spec"]["template"]["metadata"]["labels"]
        assert labels == {"scheduling.x-k8s.io/pod-group": "test-job"}
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    assert group["spec"] == {
        "minMember": 32,
        "minResources": {"cpu": "32"},
        "scheduleTimeoutSeconds": 120,
    }


def test_t2_trainer_overrides_and_env() -> None:
    runtime = upstream_runtime(
        ml_policy={"numNodes": 100},
        node={
            "image": "test:runtime",
            "command": ["runtime"],
            "args": ["runtime"],
            "env": [
                {"name": "TRAIN_JOB", "value": "original"},
                {"name": "RUNTIME", "value": "test:runtime"},
            ],
        },
    )
    trainjob = upstream_trainjob(
        trainer={
            "image": "test:trainjob",
            "command": ["trainjob"],
            "args": ["trainjob"],
            "resourcesPerNode": RES,
            "env": [
                {"name": "TRAIN_JOB", "value": "override"},
                {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"},
            ],
        }
    )
    result = compile_job(trainjob, runtime)
    assert [o["kind"] for o in result.objects] == ["JobSet"]
    jobset = jobset_of(result.objects)
    node = container_of(jobset)
    assert (node["image"], node["command"], node["args"]) == (
        "test:trainjob",
        ["trainjob"],
        ["trainjob"],
    )
    assert env_names(node) == ["TRAIN_JOB", "RUNTIME", "TRAIN_JOB_CUSTOM"]
    assert env(node) == {
        "TRAIN_JOB": "override",
        "RUNTIME": "test:runtime",
        "TRAIN_JOB_CUSTOM": "test:trainjob",
    }
    assert node["resources"] == RES
    assert counts(jobset)["node"] == (1, 100, 100)


def test_t3_pod_spec_patches_from_two_managers() -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "topology.kubernetes.io/zone",
                                "operator": "In",
                                "values": ["antarctica-east1", "antarctica-west1"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    scheduling: Obj = {
        "affinity": affinity,
        "nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"},
        "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
        "tolerations": [{"key": "example.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    init = "override-init-container"
    runtime = upstream_runtime(
        ml_policy={"numNodes": 100},
        node={"env": [{"name": "TRAIN_JOB", "value": "original"}]},
        more_node_containers=(
            container(
                "override-container",
                env=[{"name": "CONTAINER_ENV", "value": "original_container"}],
            ),
        ),
        init_containers={
            "dataset-initializer": [
                container(
                    init,
                    env=[
                        {"name": "INIT_ENV", "value": "original_init"},
                        {"name": "DATASET_PATH", "value": "runtime"},
                    ],
                )
            ],
            "node": [container(init, env=[{"name": "INIT_ENV", "value": "original_init"}])],
        },
    )
    manager_1 = patched_job(
        "dataset-initializer",
        initContainers=[
            {
                "name": init,
                "env": [
                    {"name": "INIT_ENV", "value": "override_init"},
                    {"name": "NEW_VALUE", "value": "from_overrides"},
                ],
            }
        ],
        containers=[
            {
                "name": "dataset-initializer",
                "volumeMounts": [
                    {"name": "initializer_secret", "mountPath": "initializer_secret_mount_path"},
                    {"name": "initializer_claim", "mountPath": "initializer_claim_mount_path"},
                ],
            }
        ],
        volumes=[
            {"name": "initializer_secret", "secret": {"secretName": "initializer_secret_name"}},
            {
                "name": "initializer_claim",
                "persistentVolumeClaim": {"claimName": "initializer_claim_name"},
            },
        ],
        **scheduling,
    )
    manager_2 = patched_job(
        "node",
        serviceAccountName="override-sa",
        initContainers=[{"name": init, "env": [{"name": "INIT_ENV", "value": "override_init"}]}],
        containers=[
            {
                "name": "node",
                "volumeMounts": [
                    {"name": "node_secret", "mountPath": "node_secret_mount_path"},
                    {"name": "node_claim", "mountPath": "node_claim_mount_path"},
                ],
            },
            {
                "name": "override-container",
                "env": [{"name": "CONTAINER_ENV", "value": "override_container"}],
            },
        ],
        imagePullSecrets=[{"name": "registry-credential"}],
        terminationGracePeriodSeconds=300,
        volumes=[
            {"name": "node_secret", "secret": {"secretName": "node_secret_name"}},
            {"name": "node_claim", "persistentVolumeClaim": {"claimName": "node_claim_name"}},
        ],
        **scheduling,
    )
    trainjob = upstream_trainjob(
        trainer={"image": "test:trainjob"},
        runtimePatches=[patch("manager-1.io/x", manager_1), patch("manager-2.io/x", manager_2)],
    )
    jobset = jobset_of(compile_job(trainjob, runtime).objects)

    dataset = pod(jobset, "dataset-initializer")
    assert env(container_of(jobset, "dataset-initializer", init, key="initContainers")) == {
        "INIT_ENV": "override_init",
        "DATASET_PATH": "runtime",
        "NEW_VALUE": "from_overrides",
    }
    mounts = container_of(jobset, "dataset-initializer", "dataset-initializer")["volumeMounts"]
    assert {m["mountPath"] for m in mounts} == {
        "/workspace/dataset",
        "initializer_secret_mount_path",
        "initializer_claim_mount_path",
    }
    # Upstream compares volumes order-insensitively; the order is the patch merge's.
    assert {v["name"] for v in dataset["volumes"]} == {
        "initializer",
        "initializer_secret",
        "initializer_claim",
    }
    node = pod(jobset, "node")
    for spec in (dataset, node):
        assert {key: spec[key] for key in scheduling} == scheduling
    assert node["serviceAccountName"] == "override-sa"
    assert node["imagePullSecrets"] == [{"name": "registry-credential"}]
    assert node["terminationGracePeriodSeconds"] == 300
    assert "serviceAccountName" not in dataset
    assert env(container_of(jobset, "node", init, key="initContainers")) == {
        "INIT_ENV": "override_init"
    }
    assert env(container_of(jobset, "node", "override-container")) == {
        "CONTAINER_ENV": "override_container"
    }
    trainer = container_of(jobset)
    assert trainer["image"] == "test:trainjob"
    assert env(trainer) == {"TRAIN_JOB": "original"}
    assert {m["mountPath"] for m in trainer["volumeMounts"]} == {
        "/workspace/dataset",
        "/workspace/model",
        "node_secret_mount_path",
        "node_claim_mount_path",
    }
    assert {v["name"] for v in node["volumes"]} == {
        "initializer",
        "node_secret",
        "node_claim",
    }
    assert counts(jobset)["node"] == (1, 100, 100)


def test_t4_patched_job_and_pod_metadata() -> None:
    trainjob = upstream_trainjob(
        runtimePatches=[
            patch(
                "manager-1.io/x",
                patched_job(
                    "dataset-initializer",
                    job_metadata={"labels": {"job-k1": "job-v1"}},
                    metadata={"labels": {"k1": "v1"}, "annotations": {"a1": "v1"}},
                ),
            ),
            patch(
                "manager-2.io/x",
                patched_job(
                    "node",
                    job_metadata={"labels": {"job-k2": "job-v2"}},
                    metadata={"labels": {"k2": "v2"}, "annotations": {"a2": "v2"}},
                ),
            ),
        ]
    )
    jobset = jobset_of(compile_job(trainjob, upstream_runtime(ml_policy={"numNodes": 1})).objects)
    for name, number, ancestor in (
        ("dataset-initializer", 1, "dataset-initializer"),
        ("node", 2, "trainer"),
    ):
        template = rjob(jobset, name)["template"]
        # Beside upstream's labels, trainc's own, which the sweeper finds child Jobs by.
        assert template["metadata"] == {
            "labels": {
                ANCESTOR_LABEL: ancestor,
                f"job-k{number}": f"job-v{number}",
                "app.kubernetes.io/managed-by": "trainc",
                "trainer.kubeflow.org/trainjob-name": "test-job",
            }
        }
        assert template["spec"]["template"]["metadata"] == {
            "labels": {f"k{number}": f"v{number}"},
            "annotations": {f"a{number}": f"v{number}"},
        }
    assert "metadata" not in rjob(jobset, "model-initializer")["template"]["spec"]["template"]


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ({"serviceAccountName": "test-sa"}, {"serviceAccountName": "test-sa"}),
        (
            {"nodeSelector": {"node.kubernetes.io/instance-type": "p5en.48xlarge"}},
            {"nodeSelector": {"node.kubernetes.io/instance-type": "p5en.48xlarge"}},
        ),
    ],
)
def test_t5_later_patches_win(second: Obj, expected: Obj) -> None:
    first = {"nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"}}
    trainjob = upstream_trainjob(
        runtimePatches=[
            patch("manager-1.io/x", patched_job("node", **first)),
            patch("manager-2.io/x", patched_job("node", **second)),
        ]
    )
    jobset = jobset_of(compile_job(trainjob, upstream_runtime(ml_policy=None)).objects)
    node = pod(jobset, "node")
    assert {key: node[key] for key in {**first, **second}} == {**first, **expected}
    assert counts(jobset)["node"] == (1, 1, 1)


def test_t6_initializers() -> None:
    trainjob = upstream_trainjob(
        initializer={
            kind: {
                "storageUri": f"hf://trainjob-{kind}",
                "env": [{"name": "TRAIN_JOB", "value": f"test:trainjob:{kind}"}],
                "secretRef": {"name": f"trainjob-secret-{kind}"},
            }
            for kind in ("dataset", "model")
        }
    )
    jobset = jobset_of(compile_job(trainjob, upstream_runtime(ml_policy={"numNodes": 1})).objects)
    for kind in ("dataset", "model"):
        target = container_of(jobset, f"{kind}-initializer", f"{kind}-initializer")
        assert target["env"] == [
            {"name": "STORAGE_URI", "value": f"hf://trainjob-{kind}"},
            {"name": "TRAIN_JOB", "value": f"test:trainjob:{kind}"},
        ]
        assert target["envFrom"] == [{"secretRef": {"name": f"trainjob-secret-{kind}"}}]
    assert "env" not in container_of(jobset)


def torch_runtime(name: str = "test-runtime", **fields: Any) -> DefaultedObject:
    """T7-T10's runtime: numNodes 100, torch, the trainer waiting for both initializers."""
    ml_policy = fields.pop("ml_policy", {"numNodes": 100, "torch": {}})
    return upstream_runtime(name, ml_policy=ml_policy, node_job={"dependsOn": DEPENDS_ON}, **fields)


def test_t7_torch_with_explicit_counts() -> None:
    trainjob = upstream_trainjob(trainer={"numNodes": 30, "numProcPerNode": 3})
    jobset = jobset_of(compile_job(trainjob, torch_runtime()).objects)
    node = container_of(jobset)
    assert env(node) == {
        "PET_NNODES": "30",
        "PET_NPROC_PER_NODE": "3",
        "PET_NODE_RANK": RANK,
        "PET_MASTER_ADDR": "test-job-node-0-0.test-job",
        "PET_MASTER_PORT": "29500",
    }
    assert node["ports"] == [{"containerPort": 29500}]
    assert rjob(jobset, "node")["dependsOn"] == DEPENDS_ON
    assert counts(jobset) == {
        "dataset-initializer": (1, 1, 1),
        "model-initializer": (1, 1, 1),
        "node": (1, 30, 30),
    }


def test_t8_torch_procs_per_node_from_cpus() -> None:
    runtime = torch_runtime(
        node={
            "resources": RES,
            "env": [
                {"name": "TRAIN_JOB", "value": "original"},
                {"name": "RUNTIME", "value": "test:runtime"},
            ],
        }
    )
    trainjob = upstream_trainjob(
        trainer={
            "resourcesPerNode": RES,
            "env": [
                {"name": "TRAIN_JOB", "value": "override"},
                {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"},
            ],
        }
    )
    node = container_of(jobset_of(compile_job(trainjob, runtime).objects))
    # Runtime env replaced in place, then the TrainJob's new names, then the plugin's.
    assert env_names(node) == [
        "TRAIN_JOB",
        "RUNTIME",
        "TRAIN_JOB_CUSTOM",
        "PET_NNODES",
        "PET_NPROC_PER_NODE",
        "PET_NODE_RANK",
        "PET_MASTER_ADDR",
        "PET_MASTER_PORT",
    ]
    assert env(node)["TRAIN_JOB"] == "override"
    assert env(node)["PET_NNODES"] == "100"
    assert env(node)["PET_NPROC_PER_NODE"] == "1"


TUNE_ARGS: list[Any] = [
    "dtype=fp16",
    "batch_size=32",
    "epochs=10",
    "loss=torchtune.modules.loss.CEWithChunkedOutputLoss",
]


def test_t9_torchtune_multi_node() -> None:
    runtime = torch_runtime(
        "torchtune-llama3.3-70b",
        node={
            "image": "test:runtime",
            "command": [
                "tune",
                "run",
                "full_finetune_distributed",
                "--config",
                "llama3_3/70B_full_multinode.yaml",
                "output_dir=/workspace/model/llama3_3/70B",
                "tokenizer.path=/workspace/model/original/tokenizer.model",
                "checkpointer.checkpoint_dir=/workspace/model",
            ],
            "args": ["runtime"],
            "resources": RES,
        },
    )
    trainjob = upstream_trainjob(
        "torchtune-llama3.3-70b",
        trainer={
            "image": "test:trainjob",
            "command": ["tune", "run"],
            "args": TUNE_ARGS,
            "resourcesPerNode": RES,
            "numNodes": 30,
            "numProcPerNode": 3,
        },
    )
    jobset = jobset_of(compile_job(trainjob, runtime).objects)
    node = container_of(jobset)
    assert node["command"] == [
        "tune",
        "run",
        "--rdzv_endpoint=test-job-node-0-0.test-job:29500",
        "full_finetune_distributed",
        "--config",
        "llama3_3/70B_full_multinode",
        "output_dir=/workspace/model/llama3_3/70B",
        "tokenizer.path=/workspace/model/original/tokenizer.model",
        "checkpointer.checkpoint_dir=/workspace/model",
    ]
    assert node["args"] == TUNE_ARGS
    assert node["image"] == "test:trainjob"
    assert env(node) == {"PET_NNODES": "30", "PET_NPROC_PER_NODE": "3", "PET_NODE_RANK": RANK}
    assert node["ports"] == [{"containerPort": 29500}]
    assert rjob(jobset, "node")["dependsOn"] == DEPENDS_ON
    assert counts(jobset)["node"] == (1, 30, 30)


LORA_RUNTIME_COMMAND: list[Any] = [
    "tune",
    "run",
    "lora_finetune_single_device",
    "--config",
    "llama3_2/1B_lora_single_device.yaml",
    "output_dir=/workspace/output",
    "tokenizer.path=/workspace/model/original/tokenizer.model",
    "checkpointer.checkpoint_dir=/workspace/model",
]
RUNTIME_PATHS = LORA_RUNTIME_COMMAND[5:]


@pytest.mark.parametrize(
    ("gpus", "extra_args", "expected"),
    [
        (
            2,
            [],
            [
                "--rdzv_endpoint=test-job-node-0-0.test-job:29500",
                "lora_finetune_distributed",
                "--config",
                "llama3_2/1B_lora",
            ],
        ),
        (
            1,
            ["model.quantize_base=True"],
            ["lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device"],
        ),
    ],
    ids=["lora", "qlora"],
)
def test_t10_torchtune_lora(gpus: int, extra_args: list[str], expected: list[str]) -> None:
    runtime = torch_runtime(
        "torchtune-llama3.2-1b",
        ml_policy={"numNodes": 1, "torch": {}},
        node={"command": LORA_RUNTIME_COMMAND},
    )
    args = ["model.lora_attn_modules=[q_proj,v_proj,output_proj]", *extra_args]
    trainjob = upstream_trainjob(
        "torchtune-llama3.2-1b",
        trainer={
            "command": ["tune", "run"],
            "args": args,
            "resourcesPerNode": {"requests": {"cpu": "1", "example.com/gpu": gpus}},
        },
    )
    node = container_of(jobset_of(compile_job(trainjob, runtime).objects))
    assert node["command"] == ["tune", "run", *expected, *RUNTIME_PATHS]
    assert node["args"] == args
    assert env(node)["PET_NPROC_PER_NODE"] == "auto"
    assert "PET_MASTER_ADDR" not in env(node)


def test_t13_resources_per_node_merge_into_the_runtime() -> None:
    runtime = upstream_runtime(ml_policy={"numNodes": 1}, node={"resources": RES})
    trainjob = upstream_trainjob(trainer={"resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}})
    node = container_of(jobset_of(compile_job(trainjob, runtime).objects))
    assert node["resources"] == {"requests": {"cpu": "1"}, "limits": {"nvidia.com/gpu": 4}}


def test_t15_a_custom_subdomain_moves_endpoints_but_not_the_master_address() -> None:
    """``plugins/jobset/jobset_test.go``: pods are reached under the runtime's subdomain,
    but Trainer hard-codes ``PET_MASTER_ADDR`` under the JobSet name.
    """
    network: Obj = {"network": {"subdomain": "kubeflow.org"}}
    jobset = jobset_of(
        compile_job(upstream_trainjob(trainer={}), torch_runtime(jobset=network)).objects
    )
    assert jobset["spec"]["network"]["subdomain"] == "kubeflow.org"
    assert env(container_of(jobset))["PET_MASTER_ADDR"] == "test-job-node-0-0.test-job"

    mpi = make_runtime(
        "test-runtime",
        kind="TrainingRuntime",
        namespace="default",
        ml_policy={"numNodes": 1, "mpi": {}},
        replicated_jobs=[
            make_rjob("launcher", containers=[container("node")]),
            make_rjob("node", ancestor="trainer"),
        ],
        jobset=network,
    )
    result = compile_job(
        upstream_trainjob(trainer={"numNodes": 2}),
        mpi,
        CompileSettings(mpi_ssh_secret="ssh-auth"),  # noqa: S106 - a Secret's name
    )
    (hostfile,) = [o for o in result.objects if o["kind"] == "ConfigMap"]
    assert hostfile["data"] == {
        "hostfile": "test-job-node-0-0.kubeflow.org slots=1\n"
        "test-job-node-0-1.kubeflow.org slots=1\n"
    }
