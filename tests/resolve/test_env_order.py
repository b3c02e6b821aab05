"""The order of a resolved container's environment, framework by framework, as upstream has it.

Kubernetes expands ``$(VAR)`` in a value only for variables listed before it, so the order
is behaviour: Trainer's JobSet builder upserts ``trainer.env`` after the plugins (the JAX
and OpenMPI variables come first), while its Torch and PlainML plugins upsert it before
their own (``PET_*`` and, with PlainML first, ``DMLC_*`` come after). Every test resolves
with all of trainc's plugins and pins the whole list.
"""

from __future__ import annotations

from typing import Any

from tests.build.support import container_of, env, env_names
from tests.support.builders import container, make_runtime, make_trainjob, rjob
from trainc.config.settings import CompileSettings
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.plugins.registry import PLUGINS
from trainc.resolve.job import resolve_job
from trainc.resolve.provenance import Derived, Written
from trainc.resolve.resolved import ResolvedJob

SETTINGS = CompileSettings(mpi_ssh_secret="mpi-keys")  # noqa: S106 - a Secret name
RUNTIME_ENV = [{"name": "RUNTIME", "value": "r"}, {"name": "SHARED", "value": "runtime"}]
USER_ENV: list[JsonValue] = [
    {"name": "SHARED", "value": "user"},
    {"name": "RANK_COPY", "value": "$(RANK)"},
]
OMPI = [
    "OMPI_MCA_orte_default_hostfile",
    "OMPI_MCA_orte_keep_fqdn_hostnames",
    "OMPI_MCA_orte_set_default_slots",
    "OMPI_MCA_plm_rsh_args",
]
JAX = ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"]
PET = ["PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"]
DMLC = ["DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"]


def _node(**fields: Any) -> JsonObject:
    return container("node", env=[dict(entry) for entry in RUNTIME_ENV], **fields)


def _runtime(ml_policy: JsonObject, jobs: list[Any] | None = None) -> DefaultedObject:
    trainer = rjob("node", ancestor="trainer", containers=[_node()])
    return make_runtime("rt", ml_policy=ml_policy, replicated_jobs=jobs or [trainer])


def _resolved(runtime: DefaultedObject, user_env: list[JsonValue] | None = None) -> ResolvedJob:
    trainer: JsonObject = {"numNodes": 2, "env": user_env if user_env is not None else USER_ENV}
    trainjob = make_trainjob("tj", runtime="rt", trainer=trainer)
    return resolve_job(trainjob, runtime, SETTINGS, plugins=PLUGINS)


def _mpi_runtime(*, launcher_as_node: bool) -> DefaultedObject:
    """deepspeed_distributed's shape: a trainer-labelled ``launcher`` before ``node``."""
    launcher = rjob("launcher", ancestor="trainer", containers=[_node(command=["mpirun"])])
    node = rjob("node", containers=[_node()])
    policy: JsonObject = {
        "numNodes": 2,
        "mpi": {"numProcPerNode": 1, "runLauncherAsNode": launcher_as_node},
    }
    return _runtime(policy, [launcher, node])


def test_mpi_launcher_gets_the_openmpi_variables_before_the_trainjob_env() -> None:
    job = _resolved(_mpi_runtime(launcher_as_node=False))
    launcher = container_of(job.jobset_spec, "launcher")
    assert env_names(launcher) == ["RUNTIME", "SHARED", *OMPI, "RANK_COPY"]
    assert env(launcher)["SHARED"] == "user"
    # Without runLauncherAsNode the unlabelled workers get no trainer.env.
    assert env_names(container_of(job.jobset_spec, "node")) == ["RUNTIME", "SHARED"]


def test_mpi_workers_of_a_launcher_as_node_runtime_get_the_trainjob_env_last() -> None:
    job = _resolved(_mpi_runtime(launcher_as_node=True))
    assert env_names(container_of(job.jobset_spec, "launcher")) == [
        "RUNTIME",
        "SHARED",
        *OMPI,
        "RANK_COPY",
    ]
    workers = container_of(job.jobset_spec, "node")
    assert env_names(workers) == ["RUNTIME", "SHARED", "RANK_COPY"]
    assert env(workers)["SHARED"] == "user"


def test_jax_variables_come_first_so_user_values_can_refer_to_them() -> None:
    user: list[JsonValue] = [{"name": "PROCESS_ID_COPY", "value": "$(JAX_PROCESS_ID)"}]
    job = _resolved(_runtime({"numNodes": 1, "jax": {}}), user)
    node = container_of(job.jobset_spec)
    assert env_names(node) == ["RUNTIME", "SHARED", *JAX, "PROCESS_ID_COPY"]
    names = env_names(node)
    assert names.index("JAX_PROCESS_ID") < names.index("PROCESS_ID_COPY")


def test_a_trainjob_variable_named_like_a_jax_one_replaces_it_in_place() -> None:
    user: list[JsonValue] = [{"name": "JAX_COORDINATOR_ADDRESS", "value": "elsewhere:1234"}]
    job = _resolved(_runtime({"numNodes": 1, "jax": {}}), user)
    node = container_of(job.jobset_spec)
    assert env_names(node) == ["RUNTIME", "SHARED", *JAX]
    assert env(node)["JAX_COORDINATOR_ADDRESS"] == "elsewhere:1234"


def test_torch_puts_the_trainjob_env_before_the_torchrun_variables() -> None:
    job = _resolved(_runtime({"numNodes": 1, "torch": {}}))
    node = container_of(job.jobset_spec)
    assert env_names(node) == ["RUNTIME", "SHARED", "RANK_COPY", *PET]
    assert env(node)["SHARED"] == "user"


def test_xgboost_runs_after_plainml_so_the_trainjob_env_comes_first() -> None:
    job = _resolved(_runtime({"numNodes": 1, "xgboost": {}}))
    node = container_of(job.jobset_spec)
    assert env_names(node) == ["RUNTIME", "SHARED", "RANK_COPY", *DMLC]


def test_plain_runtimes_append_the_trainjob_env_after_the_runtime_env() -> None:
    job = _resolved(_runtime({"numNodes": 1}))
    assert env_names(container_of(job.jobset_spec)) == ["RUNTIME", "SHARED", "RANK_COPY"]


def test_user_variables_still_point_at_the_trainjob_lines() -> None:
    job = _resolved(_runtime({"numNodes": 1, "jax": {}}))
    node_env = ("replicatedJobs", 0, "template", "spec", "template", "spec", "containers", 0)
    names = env_names(container_of(job.jobset_spec))
    trainjob = job.trainjob
    for index, name in ((1, "RANK_COPY"), (0, "SHARED")):
        where = job.origin((*node_env, "env", names.index(name), "value"))
        assert where == Written(trainjob, ("spec", "trainer", "env", index, "value"))
    jax = job.origin((*node_env, "env", names.index("JAX_PROCESS_ID")))
    assert isinstance(jax, Derived)
    assert jax.actor == "trainc's jax plugin"


def test_mpi_with_trainer_labelled_workers_keeps_the_trainjob_env_off_the_launcher() -> None:
    launcher = rjob("launcher", containers=[_node(command=["mpirun"])])
    node = rjob("node", ancestor="trainer", containers=[_node()])
    job = _resolved(_runtime({"numNodes": 2, "mpi": {"numProcPerNode": 1}}, [launcher, node]))
    assert env_names(container_of(job.jobset_spec, "launcher")) == ["RUNTIME", "SHARED", *OMPI]
    workers = container_of(job.jobset_spec, "node")
    assert env_names(workers) == ["RUNTIME", "SHARED", "RANK_COPY"]
