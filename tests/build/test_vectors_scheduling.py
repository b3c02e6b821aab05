"""Upstream's MPI and gang-scheduling vectors (T11, T12, T14, T16 in ``docs/upstream.md``).

Each test compiles upstream's inputs end to end (``resolve_job`` and ``build_job`` with
the registry's plugins). Upstream also expects a generated SSH Secret for MPI and
ownerReferences on everything; trainc emits neither (no secret material, no UID
offline), so MPI runs name an out-of-band Secret. Every emitted JobSet and PodGroup is
also checked against the schema trainc validates its own output with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonschema_rs

from tests.build.support import (
    CompiledJob,
    Obj,
    compile_job,
    container_of,
    env,
    job_spec,
    jobset_of,
    pod,
)
from tests.build.test_vectors import PVC, counts, mount, upstream_runtime, upstream_trainjob
from tests.support.builders import container, make_runtime, make_trainjob
from tests.support.builders import rjob as make_rjob
from trainc.config.settings import CompileSettings
from trainc.crdgen.jsonschema import render_jsonschema
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import VOLCANO_QUEUE_ANNOTATION
from trainc.model.schemafiles import OUTPUT_SCHEMAS

SSH = CompileSettings(mpi_ssh_secret="mpi-ssh")  # noqa: S106 - a Secret's name


def of_kind(result: CompiledJob, api_version: str, kind: str) -> list[Obj]:
    return [o for o in result.objects if (o["apiVersion"], o["kind"]) == (api_version, kind)]


def assert_valid_output(objects: Sequence[JsonObject]) -> None:
    for obj in objects:
        target = OUTPUT_SCHEMAS.get((str(obj["apiVersion"]), str(obj["kind"])))
        if target is not None:
            validator = jsonschema_rs.Draft4Validator(render_jsonschema(target))
            assert [e.message for e in validator.iter_errors(obj)] == [], obj["kind"]


def mpi_runtime(mpi: Obj, *, launcher: Obj | None = None) -> DefaultedObject:
    """Upstream's wrapper runtime with a ``launcher`` (container ``node``) before ``node``."""
    node_mounts: list[Any] = [mount("/workspace/dataset"), mount("/workspace/model")]
    jobs = [
        make_rjob(
            "dataset-initializer",
            ancestor="dataset-initializer",
            containers=[
                container("dataset-initializer", volumeMounts=[mount("/workspace/dataset")])
            ],
            volumes=[PVC],
        ),
        make_rjob(
            "model-initializer",
            ancestor="model-initializer",
            containers=[container("model-initializer", volumeMounts=[mount("/workspace/model")])],
            volumes=[PVC],
        ),
        launcher
        or make_rjob(
            "launcher", containers=[container("node", command=["mpirun"], args=["echo.sh"])]
        ),
        make_rjob(
            "node",
            ancestor="trainer",
            containers=[container("node", volumeMounts=node_mounts)],
            volumes=[PVC],
        ),
    ]
    return make_runtime(
        "test-runtime",
        kind="TrainingRuntime",
        namespace="default",
        ml_policy={"numNodes": 1, "mpi": mpi},
        replicated_jobs=jobs,
    )


def test_t11_mpi_openmpi() -> None:
    runtime = mpi_runtime(
        {
            "numProcPerNode": 1,
            "mpiImplementation": "OpenMPI",
            "sshAuthMountPath": "/root/.ssh",
            "runLauncherAsNode": False,
        }
    )
    trainjob = upstream_trainjob(trainer={"numNodes": 2, "numProcPerNode": 8})
    result = compile_job(trainjob, runtime, SSH)
    assert result.diagnostics == ()
    assert_valid_output(result.objects)

    (hostfile,) = of_kind(result, "v1", "ConfigMap")
    assert (hostfile["metadata"]["name"], hostfile["metadata"]["namespace"]) == (
        "test-job-mpi-hostfile",
        "default",
    )
    assert hostfile["data"] == {
        "hostfile": "test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n"
    }
    assert of_kind(result, "v1", "Secret") == []

    jobset = jobset_of(result.objects)
    assert counts(jobset) == {
        "dataset-initializer": (1, 1, 1),
        "model-initializer": (1, 1, 1),
        "launcher": (1, 1, 1),
        "node": (1, 2, 2),
    }
    volumes = {
        job: [v["name"] for v in pod(jobset["spec"], job)["volumes"]]
        for job in ("launcher", "node")
    }
    assert volumes == {
        "launcher": ["mpi-ssh-auth", "mpi-hostfile"],
        "node": ["initializer", "mpi-ssh-auth"],
    }
    assert pod(jobset["spec"], "node")["volumes"][1]["secret"]["secretName"] == "mpi-ssh"
    launcher = container_of(jobset["spec"], "launcher")
    node = container_of(jobset["spec"], "node")
    assert launcher["volumeMounts"] == [
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-hostfile", "mountPath": "/etc/mpi"},
    ]
    assert node["volumeMounts"][-1] == {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"}
    assert env(launcher) == {
        "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
        "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
        "OMPI_MCA_orte_set_default_slots": "8",
        "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10",
    }
    assert (launcher["command"], launcher["args"]) == (["mpirun"], ["echo.sh"])


def test_t11_without_a_secret_the_build_fails() -> None:
    runtime = mpi_runtime({})
    result = compile_job(upstream_trainjob(trainer={"numNodes": 2}), runtime)
    assert [(d.code, d.field_path) for d in result.diagnostics] == [
        ("compile.mpi-ssh-secret", "spec.mlPolicy.mpi")
    ]


def test_t12_run_launcher_as_node() -> None:
    """``plugins/mpi/mpi_test.go``: the launcher is one of the nodes, listed first."""
    runtime = mpi_runtime({"runLauncherAsNode": True})
    trainjob = upstream_trainjob(
        trainer={"numNodes": 10, "resourcesPerNode": {"limits": {"custom.com/gpu": 5}}}
    )
    result = compile_job(trainjob, runtime, SSH)
    assert result.diagnostics == ()
    assert_valid_output(result.objects)
    jobset = jobset_of(result.objects)
    assert counts(jobset)["launcher"] == (1, 1, 1)
    assert counts(jobset)["node"] == (1, 9, 9)
    (hostfile,) = of_kind(result, "v1", "ConfigMap")
    expected = ["launcher-0-0", *(f"node-0-{i}" for i in range(9))]
    assert hostfile["data"]["hostfile"] == "".join(
        f"test-job-{host}.test-job slots=5\n" for host in expected
    )
    assert env(container_of(jobset["spec"], "launcher"))["OMPI_MCA_orte_set_default_slots"] == "5"


def test_t12_a_trainer_labelled_launcher_runs_mlpolicy_num_nodes() -> None:
    # deepspeed_distributed.yaml's shape: the launcher carries the trainer label.
    launcher = make_rjob("launcher", ancestor="trainer")
    runtime = mpi_runtime({"runLauncherAsNode": True}, launcher=launcher)
    result = compile_job(upstream_trainjob(trainer={"numNodes": 4}), runtime, SSH)
    assert counts(jobset_of(result.objects))["launcher"] == (1, 1, 1)
    assert counts(jobset_of(result.objects))["node"] == (1, 3, 3)


def test_t14_volcano() -> None:
    """``pkg/runtime/framework/core/framework_test.go``: 3 PodSets of 1 CPU + 4Gi pods."""
    runtime = upstream_runtime(
        ml_policy={"numNodes": 100},
        containers={"resources": {"requests": {"cpu": "1", "memory": "4Gi"}}},
        podGroupPolicy={"volcano": {"networkTopology": {"mode": "soft", "highestTierAllowed": 2}}},
    )
    template: Obj = data(runtime)["spec"]["template"]
    template["metadata"] = {"annotations": {VOLCANO_QUEUE_ANNOTATION: "q1"}}
    for job in template["spec"]["replicatedJobs"]:
        job["template"]["spec"]["template"]["spec"]["priorityClassName"] = "system-node-critical"
    trainjob = make_trainjob(
        "test-volcano-job",
        namespace="default",
        runtime="test-runtime",
        runtime_kind="TrainingRuntime",
    )
    result = compile_job(trainjob, runtime)
    assert_valid_output(result.objects)
    (pod_group,) = of_kind(result, "scheduling.volcano.sh/v1beta1", "PodGroup")
    assert (pod_group["metadata"]["name"], pod_group["metadata"]["namespace"]) == (
        "test-volcano-job",
        "default",
    )
    assert pod_group["spec"] == {
        "minMember": 102,
        "minResources": {"cpu": "102", "memory": "408Gi"},
        "queue": "q1",
        "priorityClassName": "system-node-critical",
        "networkTopology": {"mode": "soft", "highestTierAllowed": 2},
    }
    jobset = jobset_of(result.objects)
    assert jobset["metadata"]["annotations"][VOLCANO_QUEUE_ANNOTATION] == "q1"
    for name in ("dataset-initializer", "model-initializer", "node"):
        annotations = pod_template(jobset, name)["metadata"]["annotations"]
        assert annotations == {"scheduling.k8s.io/group-name": "test-volcano-job"}
    assert counts(jobset)["node"] == (1, 100, 100)
    # The runtime names no scheduler, so Volcano would never see these pods.
    assert [d.code for d in result.diagnostics] == ["compile.volcano-scheduler"]


def test_t16_coscheduling_quantities() -> None:
    """``plugins/coscheduling/coscheduling_test.go``, through the whole pipeline."""

    def job(name: str, cpu: str, memory: str) -> Obj:
        resources: Obj = {"requests": {"cpu": cpu, "memory": memory}}
        main = container(name, resources=resources)
        return make_rjob(name, ancestor="trainer" if name == "node" else name, containers=[main])

    runtime = make_runtime(
        "test-runtime",
        kind="TrainingRuntime",
        namespace="default",
        ml_policy={"numNodes": 2},
        podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 30}},
        replicated_jobs=[job("dataset-initializer", "250m", "512Mi"), job("node", "500m", "1Gi")],
    )
    result = compile_job(upstream_trainjob(trainer={}), runtime)
    assert_valid_output(result.objects)
    (pod_group,) = of_kind(result, "scheduling.x-k8s.io/v1alpha1", "PodGroup")
    assert (pod_group["metadata"]["name"], pod_group["metadata"]["namespace"]) == (
        "test-job",
        "default",
    )
    assert "ownerReferences" not in pod_group["metadata"]
    assert pod_group["spec"] == {
        "minMember": 3,
        "minResources": {"cpu": "1250m", "memory": "2560Mi"},
        "scheduleTimeoutSeconds": 30,
    }
    jobset = jobset_of(result.objects)
    for name in ("dataset-initializer", "node"):
        labels = pod_template(jobset, name)["metadata"]["labels"]
        assert labels["scheduling.x-k8s.io/pod-group"] == "test-job"
    assert counts(jobset)["node"] == (1, 2, 2)
    assert [d.code for d in result.diagnostics] == ["compile.coscheduling-scheduler"]


def test_t16_a_named_scheduler_builds_cleanly() -> None:
    runtime = upstream_runtime(
        ml_policy={"numNodes": 4},
        containers={"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
        podGroupPolicy={"coscheduling": {}},
    )
    for job in data(runtime)["spec"]["template"]["spec"]["replicatedJobs"]:
        job["template"]["spec"]["template"]["spec"]["schedulerName"] = "scheduler-plugins-scheduler"
    result = compile_job(upstream_trainjob(trainer={}), runtime)
    assert result.diagnostics == ()
    (pod_group,) = of_kind(result, "scheduling.x-k8s.io/v1alpha1", "PodGroup")
    assert pod_group["spec"] == {
        "minMember": 6,
        "minResources": {"cpu": "6", "memory": "6Gi"},
        "scheduleTimeoutSeconds": 60,
    }


def data(obj: DefaultedObject) -> Obj:
    """An object's data, to amend a built runtime in place."""
    return obj.data


def pod_template(jobset: Obj, name: str) -> Obj:
    """The pod template (metadata and spec) of replicatedJob ``name``."""
    return as_object(job_spec(jobset["spec"], name)["template"])
