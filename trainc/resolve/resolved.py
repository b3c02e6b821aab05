"""A TrainJob resolved: the JobSet it becomes, its pod counts, and where every value came from.

Produced once per TrainJob by :func:`trainc.resolve.job.resolve_job`; validation judges
it (its Jobs, counts, names, lifecycle settings) and the build turns it into
manifests, so both read the same result and no rule is computed twice.
"""

from __future__ import annotations

from typing import TypeVar

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, JsonObject
from trainc.model.labels import JOBSET_API_VERSION, JOBSET_KIND
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.model.trainjob import TrainJobSpec
from trainc.records import dataclass
from trainc.resolve.provenance import Origin, Trace, Written
from trainc.resolve.resources import Amounts

_State = TypeVar("_State")


@dataclass(frozen=True, slots=True)
class PodSet:
    """One replicatedJob as the plugins count it: pods and what one pod requests.

    ``count_origin`` is where the count was set (the TrainJob's ``numNodes``, the
    runtime's ``mlPolicy.numNodes`` or the Job's ``parallelism``).
    """

    name: str
    ancestor: str | None
    count: int
    requests: Amounts
    count_origin: Written


@dataclass(frozen=True, slots=True)
class Claim:
    """A volumeClaimPolicies template built as a PersistentVolumeClaim."""

    name: str
    template: JsonObject
    retain: bool

    def claim_name(self, jobset: str) -> str:
        """Name of the PVC (see :func:`claim_name`)."""
        return claim_name(self.name, jobset)


def claim_name(template: str, jobset: str) -> str:
    """Name of the PVC of claim template ``template`` of JobSet ``jobset``, as the JobSet
    controller derives it: ``<template>-<jobset>``."""
    return f"{template}-{jobset}"


@dataclass(frozen=True, slots=True, eq=False)
class ResolvedJob:
    """A schema-valid TrainJob on its runtime, resolved into the JobSet the cluster stores.

    ``template`` is the runtime's JobSet spec after runtime patches and
    ``resourcesPerNode``, before any plugin ran (what upstream's plugins read as the
    runtime's values); ``jobset_metadata`` and ``jobset_spec`` are the JobSet's labels,
    annotations and spec exactly as emitted, webhook defaults included. ``trace`` knows
    the origin of every value of those two. ``findings`` are the problems met while
    resolving (a Secret nobody named, an invalid annotation): validation reports them.
    ``claims`` are the volumeClaimPolicies templates built as PVCs; ``extensions`` the
    state plugins kept for their own checks, one value per type.
    """

    trainjob: DefaultedObject
    runtime: DefaultedObject
    spec: TrainJobSpec
    runtime_spec: TrainingRuntimeSpec
    template: JsonObject
    jobset_metadata: JsonObject
    jobset_spec: JsonObject
    pod_sets: tuple[PodSet, ...]
    trace: Trace
    findings: tuple[Diagnostic, ...] = ()
    claims: tuple[Claim, ...] = ()
    extensions: tuple[object, ...] = ()

    @property
    def name(self) -> str:
        """TrainJob name, which is also the JobSet's name."""
        return self.trainjob.name

    @property
    def namespace(self) -> str:
        """Namespace of the TrainJob and of everything built for it."""
        return self.trainjob.required_namespace()

    def stored_jobset(self) -> JsonObject:
        """The JobSet as the cluster stores it, for the checks that judge it whole
        (admission): shares the resolved dicts, so it is read, never changed."""
        return {
            "apiVersion": JOBSET_API_VERSION,
            "kind": JOBSET_KIND,
            "metadata": {**self.jobset_metadata, "name": self.name, "namespace": self.namespace},
            "spec": self.jobset_spec,
        }

    def origin(self, path: FieldPath) -> Origin:
        """Where the value at ``path`` of the JobSet spec came from (the runtime by default)."""
        found = self.trace.origin(self.jobset_spec, path)
        if found is not None:
            return found
        return Written(self.runtime, ("spec", "template", "spec", *path))

    def extension(self, kind: type[_State]) -> _State | None:
        """The state of type ``kind`` a plugin kept while resolving, if it kept one."""
        return next((state for state in self.extensions if isinstance(state, kind)), None)

    def pod_count(self) -> int:
        """Pods of the whole TrainJob: the sum of every PodSet's final count."""
        return sum(pod_set.count for pod_set in self.pod_sets)
