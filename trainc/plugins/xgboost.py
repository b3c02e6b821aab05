"""The XGBoost plugin: node count and collective (Rabit) tracker environment.

Reproduces Trainer's XGBoost plugin (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/xgboost/xgboost.go):
the tracker runs
on the first trainer pod at port 29500, each pod's task id is its completion index, and
there is one worker per GPU of a node (one per node without GPUs). Validate, as the
plugin's ``Validate``: ``trainer.env`` leaves the ``DMLC_*`` variables to the plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.plugins.shared.reserved_env import check_reserved_env
from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.edits import COMPLETION_INDEX_PATH, env_field, env_value
from trainc.resolve.trainer import (
    TRAINER_PORT,
    apply_num_nodes,
    count_cause,
    gpus_per_node,
    master_cause,
    master_host,
    open_trainer_port,
    trainer_container,
    trainer_count,
    upsert_caused_env,
)

TRACKER_URI_ENV: Final = "DMLC_TRACKER_URI"
TRACKER_PORT_ENV: Final = "DMLC_TRACKER_PORT"
TASK_ID_ENV: Final = "DMLC_TASK_ID"
NUM_WORKER_ENV: Final = "DMLC_NUM_WORKER"
_RULE: Final = "XGBoost collective tracker environment"


@dataclass(frozen=True, slots=True)
class XGBoostPlugin:
    """Counts, env and port of the trainer for XGBoost runtimes."""

    @property
    def name(self) -> str:
        """Upstream's XGBoost plugin."""
        return "xgboost"

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """``trainer.env`` leaves the variables XGBoost computes to the plugin."""
        return check_reserved_env(trainjob, runtime, "xgboost", XGBOOST_RESERVED_ENV, _reserved)

    def enforce_ml_policy(self, context: Resolution) -> None:
        """``trainer.numNodes`` as the count; the ``DMLC_*`` env and port on ``node``.

        ``DMLC_NUM_WORKER`` is the node count times the GPUs of one node, from the
        runtime's trainer resources replaced by ``resourcesPerNode``. The env needs
        ``spec.trainer``, as upstream's.
        """
        policy = context.job.runtime_spec.ml_policy
        if policy is None or policy.xgboost is None:
            return
        apply_num_nodes(context)
        node = trainer_container(context)
        if node is None:
            return
        workers = trainer_count(context) * max(
            gpus_per_node(context.job.spec, context.job.template), 1
        )
        policy_line = context.runtime_at("spec", "mlPolicy", "xgboost")
        env = [
            (env_value(TRACKER_URI_ENV, master_host(context)), master_cause(context)),
            (env_value(TRACKER_PORT_ENV, str(TRAINER_PORT)), policy_line),
            (env_field(TASK_ID_ENV, COMPLETION_INDEX_PATH), policy_line),
            (env_value(NUM_WORKER_ENV, str(workers)), count_cause(context, policy_line)),
        ]
        upsert_caused_env(context, node, "xgboost", _RULE, env)
        open_trainer_port(context, node, context.derived("xgboost", _RULE, policy_line))


#: Variables the XGBoost plugin sets on every node, each with the TrainJob field behind it.
XGBOOST_RESERVED_ENV: Mapping[str, str | None] = {
    "DMLC_TRACKER_URI": None,
    "DMLC_TRACKER_PORT": None,
    "DMLC_TASK_ID": None,
    "DMLC_NUM_WORKER": "trainer.numNodes",
}


def _reserved(name: str) -> str:
    return f"{name} is reserved for the XGBoost runtime: the xgboost plugin sets it"
