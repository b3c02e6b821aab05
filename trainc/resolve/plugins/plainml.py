"""The PlainML plugin: the trainer's node count for runtimes without a distributed framework.

Reproduces Trainer's PlainML plugin (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/plainml/plainml.go).
It runs when the
runtime has no mlPolicy, or one without Torch, MPI and JAX, so also for XGBoost and Flux.
Upstream also upserts ``trainer.env`` into ``node`` here; in trainc the JobSet plugin's
ApplyTrainJob phase has already done that for every trainer-labelled job, which covers
upstream's target (the first one).
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.resolve.context import Resolution
from trainc.resolve.trainer import apply_num_nodes


@dataclass(frozen=True, slots=True)
class PlainMLPlugin:
    """Sets the trainer PodSet's count from ``trainer.numNodes``."""

    @property
    def name(self) -> str:
        """Upstream's PlainML plugin."""
        return "plainml"

    def enforce_ml_policy(self, context: Resolution) -> None:
        """``trainer.numNodes`` becomes the trainer's pod count, unless a framework owns it."""
        policy = context.job.runtime_spec.ml_policy
        if policy is not None and (
            policy.torch is not None or policy.mpi is not None or policy.jax is not None
        ):
            return
        apply_num_nodes(context)
