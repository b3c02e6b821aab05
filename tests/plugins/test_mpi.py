""" """

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tests.build.support import Obj, container_of, env, env_names, frozen, pod, start
from tests.support.builders import container, located, make_runtime, make_trainjob, rjob
from trainc.config.settings import CompileSettings
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue, as_object
from trainc.model.labels import MPI_SSH_AUTH_SECRET_ANNOTATION
from trainc.plugins.mpi import MPIPlugin, check_mpi_implementation, check_mpi_launcher_node
from trainc.resolve.context import Resolution

PLUGIN = MPIPlugin()
SETTINGS = CompileSettings(mpi_ssh_secret="mpi-keys")  # noqa: S106 - a Secret name


def mpi_runtime(
    *,
    launcher_first: bool = True,
    launcher_as_node: bool = False,
    num_proc_per_node: int = 1,
    node_resources: Obj | None = None,
    annotations: Obj | None = None,
    jobset: Obj | None = None,
) -> DefaultedObject:
    """T11's runtime: a ``launcher`` (container ``node``) and the trainer ``node``."""
    launcher = rjob(
        "launcher", containers=[container("node", command=["mpirun"], args=["echo.sh"])]
    )
    node_fields: Obj = {"resources": node_resources} if node_resources else {}
    node = rjob("node", ancestor="trainer", containers=[container("node", **node_fields)])
    runtime = make_runtime(
        "mpi",
        ml_policy={
            "numNodes": 1,
            "mpi": {"numProcPerNode": num_proc_per_node, "runLauncherAsNode": launcher_as_node},
        },
        replicated_jobs=[launcher, node] if launcher_first else [node, launcher],
        jobset=jobset,
    )
    if annotations is not None:
        as_object(runtime.data["metadata"])["annotations"] = annotations
    return runtime


def mpi_trainjob(**trainer: Any) -> DefaultedObject:
    return make_trainjob("test-job", namespace="default", runtime="mpi", trainer=trainer)


def enforced(
    runtime: DefaultedObject, trainjob: DefaultedObject, settings: CompileSettings = SETTINGS
) -> Resolution:
    context = start(trainjob, runtime, settings)
    PLUGIN.enforce_ml_policy(context)
    return context


def counts(context: Resolution) -> dict[str, int]:
    return {pod_set.name: pod_set.count for pod_set in context.pod_sets}


def hostfile(context: Resolution) -> str:
    (config_map,) = MPIPlugin().build(frozen(context))
    return str(as_object(config_map["data"])["hostfile"])


def test_does_nothing_without_an_mpi_policy() -> None:
    runtime = make_runtime(ml_policy={"numNodes": 2, "torch": {}})
    context = enforced(runtime, make_trainjob(trainer={"numNodes": 4}))
    assert context.jobset_spec == context.job.template
    assert counts(context) == {"node": 2}
    assert MPIPlugin().build(frozen(context)) == []
    assert context.findings == []


@pytest.mark.parametrize(
    ("launcher_as_node", "num_nodes", "node_count"),
    [(False, 2, 2), (False, 10, 10), (True, 10, 9), (True, 2, 1), (True, 1, 1), (False, 0, 0)],
)
def test_node_count_leaves_one_node_to_a_training_launcher(
    launcher_as_node: bool, num_nodes: int, node_count: int
) -> None:
    context = enforced(
        mpi_runtime(launcher_as_node=launcher_as_node), mpi_trainjob(numNodes=num_nodes)
    )
    assert counts(context) == {"launcher": 1, "node": node_count}


def test_without_num_nodes_the_runtime_count_stays() -> None:
    context = enforced(mpi_runtime(), mpi_trainjob(numProcPerNode=2))
    assert counts(context) == {"launcher": 1, "node": 1}


def test_a_trainer_labelled_launcher_keeps_the_runtime_node_count() -> None:
    # Upstream's manifests/base/runtimes/deepspeed_distributed.yaml: the launcher carries the
    # trainer label, so its count is mlPolicy.numNodes (mpi.go).
    runtime = make_runtime(
        "mpi",
        ml_policy={"numNodes": 3, "mpi": {"runLauncherAsNode": True}},
        replicated_jobs=[rjob("node"), rjob("launcher", ancestor="trainer")],
    )
    context = enforced(runtime, mpi_trainjob(numNodes=8))
    assert counts(context) == {"node": 7, "launcher": 3}


@pytest.mark.parametrize(
    ("runtime_slots", "resources", "trainer", "slots"),
    [
        (1, None, {"numProcPerNode": 8}, 8),
        (3, None, {}, 3),
        (1, None, {}, 1),
        (1, {"limits": {"nvidia.com/gpu": 4}}, {}, 4),
        (1, {"limits": {"nvidia.com/gpu": 1}}, {}, 1),
        (2, {"limits": {"nvidia.com/gpu": 4}}, {}, 2),
        (1, None, {"resourcesPerNode": {"limits": {"custom.com/gpu": 5}}}, 5),
        (1, {"limits": {"nvidia.com/gpu": 4}}, {"numProcPerNode": 2}, 2),
    ],
)
def test_slots(runtime_slots: int, resources: Obj | None, trainer: Obj, slots: int) -> None:
    runtime = mpi_runtime(num_proc_per_node=runtime_slots, node_resources=resources)
    context = enforced(runtime, mpi_trainjob(numNodes=1, **trainer))
    launcher = container_of(context.jobset_spec, "launcher")
    assert env(launcher)["OMPI_MCA_orte_set_default_slots"] == str(slots)
    assert hostfile(context) == f"test-job-node-0-0.test-job slots={slots}\n"


def test_ssh_secret_and_hostfile_volumes_and_mounts() -> None:
    context = enforced(mpi_runtime(), mpi_trainjob(numNodes=2))
    ssh_volume = {
        "name": "mpi-ssh-auth",
        "secret": {
            "secretName": "mpi-keys",
            "defaultMode": 0o400,
            "items": [
                {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
                {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
                {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
            ],
        },
    }
    hostfile_volume = {
        "name": "mpi-hostfile",
        "configMap": {
            "name": "test-job-mpi-hostfile",
            "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}],
        },
    }
    spec = context.jobset_spec
    assert pod(spec, "launcher")["volumes"] == [ssh_volume, hostfile_volume]
    assert pod(spec, "node")["volumes"] == [ssh_volume]
    assert container_of(spec, "launcher")["volumeMounts"] == [
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-hostfile", "mountPath": "/etc/mpi"},
    ]
    assert container_of(spec, "node")["volumeMounts"] == [
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"}
    ]


def test_only_the_launcher_gets_the_openmpi_environment() -> None:
    context = enforced(mpi_runtime(), mpi_trainjob(numNodes=2, numProcPerNode=8))
    assert env_names(container_of(context.jobset_spec, "launcher")) == [
        "OMPI_MCA_orte_default_hostfile",
        "OMPI_MCA_orte_keep_fqdn_hostnames",
        "OMPI_MCA_orte_set_default_slots",
        "OMPI_MCA_plm_rsh_args",
    ]
    assert env(container_of(context.jobset_spec, "launcher")) == {
        "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
        "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
        "OMPI_MCA_orte_set_default_slots": "8",
        "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10",
    }
    assert "env" not in container_of(context.jobset_spec, "node")


def test_the_ssh_mount_path_comes_from_the_runtime() -> None:
    runtime = mpi_runtime()
    mpi = as_object(as_object(as_object(runtime.data["spec"])["mlPolicy"])["mpi"])
    mpi["sshAuthMountPath"] = "/home/mpiuser/.ssh"
    context = enforced(runtime, mpi_trainjob())
    assert container_of(context.jobset_spec, "node")["volumeMounts"] == [
        {"name": "mpi-ssh-auth", "mountPath": "/home/mpiuser/.ssh"}
    ]


def test_jobs_without_a_node_container_get_volumes_only() -> None:
    runtime = make_runtime(
        "mpi",
        ml_policy={"mpi": {}},
        replicated_jobs=[rjob("launcher", containers=["mpirun"]), rjob("node", ancestor="trainer")],
    )
    context = enforced(runtime, mpi_trainjob())
    assert [v["name"] for v in pod(context.jobset_spec, "launcher")["volumes"]] == [
        "mpi-ssh-auth",
        "mpi-hostfile",
    ]
    assert "volumeMounts" not in container_of(context.jobset_spec, "launcher", "mpirun")


# ----------------------------------------------------------------------------- hostfile


def test_hostfile_lists_node_endpoints_with_slots() -> None:
    context = enforced(mpi_runtime(), mpi_trainjob(numNodes=2, numProcPerNode=8))
    (config_map,) = MPIPlugin().build(frozen(context))
    assert config_map == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "test-job-mpi-hostfile", "namespace": "default"},
        "data": {
            "hostfile": "test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n"
        },
    }


@pytest.mark.parametrize(
    ("launcher_first", "expected"),
    [
        (True, ["launcher-0-0", "node-0-0", "node-0-1", "node-0-2"]),
        (False, ["node-0-0", "node-0-1", "node-0-2", "launcher-0-0"]),
    ],
)
def test_a_training_launcher_is_listed_in_runtime_order(
    launcher_first: bool, expected: list[str]
) -> None:
    runtime = mpi_runtime(launcher_first=launcher_first, launcher_as_node=True)
    context = enforced(runtime, mpi_trainjob(numNodes=4, numProcPerNode=2))
    assert hostfile(context) == "".join(f"test-job-{host}.test-job slots=2\n" for host in expected)


def test_hostfile_follows_a_custom_subdomain() -> None:
    runtime = mpi_runtime(jobset={"network": {"subdomain": "kubeflow.org"}})
    context = enforced(runtime, mpi_trainjob(numNodes=2))
    assert hostfile(context) == (
        "test-job-node-0-0.kubeflow.org slots=1\ntest-job-node-0-1.kubeflow.org slots=1\n"
    )


def test_the_hostfile_is_the_same_every_time() -> None:
    texts = {hostfile(enforced(mpi_runtime(), mpi_trainjob(numNodes=5))) for _ in range(3)}
    assert len(texts) == 1


# ----------------------------------------------------------------------------- SSH Secret


def ssh_secret_name(context: Resolution) -> object:
    (volume,) = [
        v for v in pod(context.jobset_spec, "node")["volumes"] if v["name"] == "mpi-ssh-auth"
    ]
    return volume["secret"]["secretName"]


def test_the_runtime_annotation_wins_over_the_setting() -> None:
    runtime = mpi_runtime(annotations={MPI_SSH_AUTH_SECRET_ANNOTATION: "team-ssh"})
    context = enforced(runtime, mpi_trainjob())
    assert ssh_secret_name(context) == "team-ssh"
    assert context.findings == []


def test_the_annotation_alone_is_enough() -> None:
    runtime = mpi_runtime(annotations={MPI_SSH_AUTH_SECRET_ANNOTATION: "team-ssh"})
    context = enforced(runtime, mpi_trainjob(), CompileSettings())
    assert ssh_secret_name(context) == "team-ssh"
    assert context.findings == []


def test_without_a_secret_the_build_fails_and_explains_both_ways() -> None:
    context = enforced(mpi_runtime(), mpi_trainjob(), CompileSettings())
    (finding,) = context.findings
    assert (finding.code, finding.severity) == ("compile.mpi-ssh-secret", Severity.ERROR)
    assert (finding.kind, finding.name, finding.field_path) == (
        "ClusterTrainingRuntime",
        "mpi",
        "spec.mlPolicy.mpi",
    )
    assert "kubernetes.io/ssh-auth" in finding.message
    assert "Git" in finding.message
    assert finding.hint is not None
    assert "compile.mpi.sshAuthSecret" in finding.hint
    assert MPI_SSH_AUTH_SECRET_ANNOTATION in finding.hint
    # The JobSet stays well-formed, pointing at upstream's per-job name.
    assert ssh_secret_name(context) == "test-job-mpi-ssh-auth"


@pytest.mark.parametrize("value", ["", "Team_SSH", "a" * 254, "-ssh"])
def test_an_invalid_annotation_is_reported_where_it_is_written(value: str) -> None:
    runtime = mpi_runtime(annotations={MPI_SSH_AUTH_SECRET_ANNOTATION: value})
    context = enforced(runtime, mpi_trainjob())
    (finding,) = context.findings
    assert finding.code == "compile.mpi-ssh-secret"
    assert finding.field_path == f"metadata.annotations[{MPI_SSH_AUTH_SECRET_ANNOTATION}]"


def test_no_secret_is_ever_built() -> None:
    for settings in (SETTINGS, CompileSettings()):
        context = enforced(mpi_runtime(), mpi_trainjob(numNodes=3), settings)
        objects = MPIPlugin().build(frozen(context))
        assert [o["kind"] for o in objects] == ["ConfigMap"]
        assert "PRIVATE KEY" not in repr(objects) + repr(context.jobset_spec)


def _mpi(
    *, as_node: bool = True, jobs: Sequence[str] = ("launcher", "node"), **mpi: JsonValue
) -> DefaultedObject:
    return make_runtime(
        ml_policy={"numNodes": 1, "mpi": {"runLauncherAsNode": as_node, **mpi}},
        replicated_jobs=[
            rjob(name, ancestor="trainer" if name == "launcher" else None) for name in jobs
        ],
    )


def test_launcher_as_node_needs_launcher_and_node_jobs():
    findings = check_mpi_launcher_node(
        make_trainjob(trainer={"numNodes": 2}), _mpi(jobs=("launcher", "worker"))
    )

    assert located(findings) == [("xobj.mpi-launcher-node", "spec.trainer.numNodes")]
    assert findings[0].message.startswith(
        "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
        "either launcher and node"
    )
    assert "without 'node'" in findings[0].message


@pytest.mark.parametrize(
    ("runtime", "trainer"),
    [
        (_mpi(jobs=("launcher",)), {"numNodes": 1}),
        (_mpi(jobs=("launcher",)), {"image": "example.com/x:1"}),
        (_mpi(jobs=("launcher",), as_node=False), {"numNodes": 4}),
        (_mpi(), {"numNodes": 4}),
    ],
)
def test_launcher_node_rule_holds(runtime, trainer):
    assert check_mpi_launcher_node(make_trainjob(trainer=trainer), runtime) == []


def test_only_openmpi_is_implemented():
    findings = check_mpi_implementation(_mpi(mpiImplementation=""))

    assert located(findings) == [("xobj.mpi-implementation", "spec.mlPolicy.mpi.mpiImplementation")]
    assert findings[0].message.startswith("MPI implementation for '' doesn't supported")


def test_openmpi_passes():
    assert check_mpi_implementation(_mpi()) == []
