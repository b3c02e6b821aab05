"""How many Jobs and pods the compiled JobSet gives each replicatedJob of a runtime.

Name budgets and the coordinator's pod index are judged on the JobSet Trainer builds, not
on the runtime template, so this module reproduces the counting (``upstream-semantics.md``
§2.6 PodSets, §2.8 Torch, §2.9 MPI, §2.10 PlainML/JAX/XGBoost/Flux):

- a PodSet's count is the Job's ``parallelism`` (1 when unset); the trainer-labelled job of a
  runtime with an ``mlPolicy`` counts ``mlPolicy.numNodes`` (1 when unset); clamped to >= 1;
- a TrainJob's ``trainer.numNodes`` then rescales one job without clamping: with MPI the job
  named ``node`` (``max(numNodes - 1, 1)`` when the launcher runs as a node), otherwise the
  first trainer-labelled job;
- ancestor-labelled jobs always get one replica; the count becomes ``completions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.json import JsonObject, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_JOB
from trainc.validate.crossobject.template import (
    Node,
    ancestor,
    int_value,
    named,
    replicas,
    replicated_jobs,
    trainer_job,
)


@dataclass(frozen=True, slots=True)
class JobShape:
    """One replicatedJob of the compiled JobSet: its Jobs and the pods of each Job."""

    rjob: Node
    replicas: int
    completions: int
    from_trainjob: bool
    """True when ``completions`` is the TrainJob's ``trainer.numNodes`` (rescaled)."""


def job_shapes(runtime: JsonObject, trainjob: JsonObject | None = None) -> list[JobShape]:
    """Shapes of the runtime's replicatedJobs, in runtime order, as the TrainJob compiles them.

    Without a TrainJob the runtime's own defaults apply, as for a TrainJob that leaves
    ``trainer.numNodes`` unset.
    """
    rjobs = replicated_jobs(runtime)
    policy = get_path(runtime, ("spec", "mlPolicy"))
    policy = policy if isinstance(policy, dict) else None
    num_nodes = None
    if trainjob is not None:
        num_nodes = int_value(get_path(trainjob, ("spec", "trainer", "numNodes")))
    target, count = _scaled(rjobs, policy, num_nodes)
    return [
        JobShape(
            rjob=rjob,
            replicas=1 if ancestor(rjob) else replicas(rjob),
            completions=count if rjob is target else _base_count(rjob, policy),
            from_trainjob=rjob is target,
        )
        for rjob in rjobs
    ]


def _base_count(rjob: Node, policy: JsonObject | None) -> int:
    if policy is not None and ancestor(rjob) == ANCESTOR_TRAINER:
        count = int_value(policy.get("numNodes"))
    else:
        count = int_value(rjob.get("template", "spec", "parallelism"))
    return max(1 if count is None else count, 1)


def _scaled(
    rjobs: list[Node], policy: JsonObject | None, num_nodes: int | None
) -> tuple[Node | None, int]:
    """The job ``trainer.numNodes`` rescales (None when it rescales none), and its count."""
    if num_nodes is None:
        return None, 0
    mpi = policy.get("mpi") if policy is not None else None
    if isinstance(mpi, dict):
        as_node = mpi.get("runLauncherAsNode") is True
        return named(rjobs, NODE_JOB), (max(num_nodes - 1, 1) if as_node else num_nodes)
    return trainer_job(rjobs), num_nodes
