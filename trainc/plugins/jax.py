"""The JAX plugin: node count and ``jax.distributed`` environment for ``mlPolicy.jax``.

Reproduces Trainer's JAX plugin (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jax/jax.go):
one JAX process per node, ranked by the Job completion index, all meeting the coordinator
on the first trainer pod at port 29500.
"""

from __future__ import annotations

from typing import Final

from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.edits import COMPLETION_INDEX_PATH, env_field, env_value
from trainc.resolve.trainer import (
    TRAINER_PORT,
    apply_num_nodes,
    count_cause,
    master_cause,
    master_host,
    open_trainer_port,
    trainer_container,
    trainer_count,
    upsert_caused_env,
)

NUM_PROCESSES_ENV: Final = "JAX_NUM_PROCESSES"
PROCESS_ID_ENV: Final = "JAX_PROCESS_ID"
COORDINATOR_ADDRESS_ENV: Final = "JAX_COORDINATOR_ADDRESS"
_RULE: Final = "JAX distributed environment"


@dataclass(frozen=True, slots=True)
class JAXPlugin:
    """Counts, env and port of the trainer for JAX runtimes."""

    @property
    def name(self) -> str:
        """Upstream's JAX plugin."""
        return "jax"

    def enforce_ml_policy(self, context: Resolution) -> None:
        """``trainer.numNodes`` as the count; the ``JAX_*`` env and port on ``node``.

        The env needs ``spec.trainer``, as upstream's: without it only the count applies.
        """
        policy = context.job.runtime_spec.ml_policy
        if policy is None or policy.jax is None:
            return
        apply_num_nodes(context)
        node = trainer_container(context)
        if node is None:
            return
        policy_line = context.runtime_at("spec", "mlPolicy", "jax")
        env = [
            (
                env_value(NUM_PROCESSES_ENV, str(trainer_count(context))),
                count_cause(context, policy_line),
            ),
            (env_field(PROCESS_ID_ENV, COMPLETION_INDEX_PATH), policy_line),
            (
                env_value(COORDINATOR_ADDRESS_ENV, f"{master_host(context)}:{TRAINER_PORT}"),
                master_cause(context),
            ),
        ]
        upsert_caused_env(context, node, "jax", _RULE, env)
        open_trainer_port(context, node, context.derived("jax", _RULE, policy_line))
