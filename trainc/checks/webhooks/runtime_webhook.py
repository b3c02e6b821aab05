"""The runtime webhook: ancestor-labelled replicatedJobs are one Job with the right container.

Reproduces ``validateReplicatedJobs`` of Trainer's TrainingRuntime and ClusterTrainingRuntime
webhooks (https://github.com/kubeflow/trainer/blob/master/pkg/webhooks/trainingruntime_webhook.go):
a replicatedJob whose Job template carries the
``trainer.kubeflow.org/trainjob-ancestor-step`` label must keep ``replicas: 1`` (the builder
supports nothing else) and must contain the container Trainer injects into
(``docs/upstream.md``, "Naming").
"""

from __future__ import annotations

from trainc.checks.shared.findings import listing
from trainc.checks.shared.template import (
    POD_SPEC,
    Node,
    ancestor,
    container_names,
    replicas,
    replicated_jobs,
)
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_LABEL,
    ANCESTOR_MODEL_INITIALIZER,
    ANCESTOR_TRAINER,
    NODE_CONTAINER,
)

XOBJ_ANCESTOR_REPLICAS = Rule(
    "xobj.ancestor-replicas",
    Severity.ERROR,
    "an ancestor-labelled replicatedJob has replicas other than 1",
)

XOBJ_ANCESTOR_CONTAINER = Rule(
    "xobj.ancestor-container",
    Severity.ERROR,
    "an ancestor-labelled replicatedJob lacks its container",
)


#: The container each ancestor step must have.
REQUIRED_CONTAINER = {
    ANCESTOR_TRAINER: NODE_CONTAINER,
    ANCESTOR_DATASET_INITIALIZER: ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_MODEL_INITIALIZER: ANCESTOR_MODEL_INITIALIZER,
}


def check_ancestor_jobs(runtime: DefaultedObject) -> list[Diagnostic]:
    """Replica count and required container of every ancestor-labelled replicatedJob."""
    found: list[Diagnostic] = []
    for rjob in replicated_jobs(runtime.data):
        step = ancestor(rjob)
        if step is None:
            continue
        if replicas(rjob) != 1:
            found.append(_replicas_finding(runtime, rjob, step))
        if REQUIRED_CONTAINER[step] not in container_names(rjob):
            found.append(_container_finding(runtime, rjob, step))
    return found


def _replicas_finding(runtime: DefaultedObject, rjob: Node, step: str) -> Diagnostic:
    return runtime.finding(
        rjob.at("replicas"),
        XOBJ_ANCESTOR_REPLICAS.code,
        f"always must be 1: replicatedJob {rjob.name!r} is the {step!r} step "
        f"({ANCESTOR_LABEL}) and asks for {replicas(rjob)} replicas",
        hint="set replicas: 1 (Trainer builds one Job per step; scale the trainer with "
        "mlPolicy.numNodes or the TrainJob's trainer.numNodes)",
    )


def _container_finding(runtime: DefaultedObject, rjob: Node, step: str) -> Diagnostic:
    required = REQUIRED_CONTAINER[step]
    return runtime.finding(
        rjob.at(*POD_SPEC, "containers"),
        XOBJ_ANCESTOR_CONTAINER.code,
        f"must contain the required container for the ancestor: {step}: replicatedJob "
        f"{rjob.name!r} has containers {listing(container_names(rjob))}, Trainer needs "
        f"{required!r}",
        hint=f"name the main container of replicatedJob {rjob.name!r} {required!r}",
    )
