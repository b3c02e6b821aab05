"""The PlainML plugin: the trainer's node count for runtimes without a distributed framework.

Reproduces Trainer's PlainML plugin (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/plainml/plainml.go).
It runs when the runtime has no mlPolicy, or one without Torch, MPI and JAX, so also for
XGBoost and Flux, and upserts ``trainer.env`` into the trainer's ``node`` container.
Upstream runs it and the XGBoost plugin in random order; trainc runs it first (the
registry's order), so the user's variables come before the ``DMLC_*`` ones, and Flux reads
its settings from an environment that already holds them.
"""

from __future__ import annotations

from trainc.resolve.context import Resolution
from trainc.resolve.trainer import apply_num_nodes, trainer_container, upsert_trainer_env


class PlainMLPlugin:
    """Sets the trainer PodSet's count from ``trainer.numNodes`` and its ``trainer.env``."""

    @property
    def name(self) -> str:
        """Upstream's PlainML plugin."""
        return "plainml"

    def enforce_ml_policy(self, context: Resolution) -> None:
        """``trainer.numNodes`` becomes the trainer's pod count and ``trainer.env`` enters its
        ``node`` container, unless a framework owns them."""
        policy = context.job.runtime_spec.ml_policy
        if policy is not None and (
            policy.torch is not None or policy.mpi is not None or policy.jax is not None
        ):
            return
        apply_num_nodes(context)
        node = trainer_container(context)
        if node is not None:
            upsert_trainer_env(context, node)
