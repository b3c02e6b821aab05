"""The Jobs the JobSet controller creates from a JobSet, built as it builds them.

A JobSet passes its CRD and is stored; only then does the JobSet controller create, for
each replicatedJob, ``replicas`` Jobs ``<jobset>-<rjob>-<index>`` (its ``constructJob``
in ``pkg/controllers/jobset_controller.go``, https://github.com/kubernetes-sigs/jobset).
The API server judges those Jobs by its own rules, so trainc builds the same Jobs to
judge them first:

- the Job's labels and annotations are the replicatedJob template's, plus the JobSet's
  bookkeeping keys (``jobset.sigs.k8s.io/jobset-name``, ``replicatedjob-name``,
  ``restart-attempt``, ``replicatedjob-replicas``, ``global-replicas``, ``job-index``,
  ``job-key``, ``job-global-index`` and, with a coordinator, ``coordinator``), which its
  pod template gets too; with exclusive placement, the ``exclusive-topology`` and
  ``node-selector`` annotations;
- the spec is the template's, with ``suspend`` as the JobSet's, and the pods'
  ``subdomain`` set to the headless Service's name when DNS hostnames are enabled;
- with the node-selector strategy of exclusive placement, a ``nodeSelector`` on the
  namespaced Job name and a toleration of the no-schedule taint;
- last, with ``volumeClaimPolicies`` kept in the JobSet (``compile.volumeClaimPolicies:
  Native``), a ``persistentVolumeClaim`` volume ``<template>`` → claim
  ``<template>-<jobset>`` for every claim template a container or init container of the
  Job mounts (:mod:`trainc.resolve.claims`). The controller appends it even when the pod
  already has a volume of that name, but the JobSet webhook refuses such a JobSet first
  (``xobj.volume-claim-volume-conflict``), so no Job is ever built from it; trainc then
  leaves the pod's own volume alone rather than report the one conflict twice.

One Job stands for each replicatedJob: its Jobs differ only in their index, and the
last index gives the longest names. ``added`` records every value construction added,
with the rule that added it, so a finding about one can say so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Final

from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import JOBSET_NAME_LABEL
from trainc.records import dataclass
from trainc.resolve.claims import claim_templates, claim_volume, mounted_claims
from trainc.resolve.endpoints import subdomain

_PREFIX: Final = "jobset.sigs.k8s.io/"
REPLICATED_JOB_NAME_LABEL: Final = f"{_PREFIX}replicatedjob-name"
RESTART_ATTEMPT_LABEL: Final = f"{_PREFIX}restart-attempt"
REPLICATED_JOB_REPLICAS_LABEL: Final = f"{_PREFIX}replicatedjob-replicas"
GLOBAL_REPLICAS_LABEL: Final = f"{_PREFIX}global-replicas"
JOB_INDEX_LABEL: Final = f"{_PREFIX}job-index"
JOB_KEY_LABEL: Final = f"{_PREFIX}job-key"
JOB_GLOBAL_INDEX_LABEL: Final = f"{_PREFIX}job-global-index"
COORDINATOR_LABEL: Final = f"{_PREFIX}coordinator"
EXCLUSIVE_KEY: Final = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY_KEY: Final = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB_KEY: Final = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT_KEY: Final = "alpha.jobset.sigs.k8s.io/no-schedule"

_POD_SPEC: Final = ("spec", "template", "spec")


@dataclass(frozen=True, slots=True)
class ChildJob:
    """A Job the JobSet controller creates, and how construction changed the template.

    ``index`` is the replicatedJob's position in the JobSet spec; ``added`` maps the path
    of every value construction added (in the Job) to the rule that added it; ``labels``
    are the bookkeeping labels it added (their keys are the controller's own).
    """

    replicated_job: str
    index: int
    job: JsonObject
    added: Mapping[FieldPath, str]
    labels: Mapping[str, str]

    @property
    def name(self) -> str:
        """The Job's name, ``<jobset>-<rjob>-<index>``."""
        return str(get_path(self.job, ("metadata", "name")))

    def template_path(self, path: FieldPath) -> FieldPath | None:
        """Where ``path`` of the Job is in the JobSet spec; None for what construction added."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.added:
                return None
        if path[:1] == ("metadata",):
            return ("replicatedJobs", self.index, "template", *path)
        if path[:1] == ("spec",):
            return ("replicatedJobs", self.index, "template", *path)
        return ("replicatedJobs", self.index)

    def added_by(self, path: FieldPath) -> str | None:
        """The construction rule behind the value at ``path`` (or its nearest added parent)."""
        for end in range(len(path), 0, -1):
            rule = self.added.get(path[:end])
            if rule is not None:
                return rule
        return None


def child_jobs(name: str, namespace: str, metadata: JsonObject, spec: JsonObject) -> list[ChildJob]:
    """The Jobs of the JobSet ``namespace/name`` (``metadata``, ``spec``), one per replicatedJob."""
    jobset = _JobSet(name, namespace, metadata, spec)
    return [jobset.construct(index) for index in range(len(jobset.rjobs))]


def _replicas(rjob: JsonObject) -> int:
    value = rjob.get("replicas")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


@dataclass(frozen=True, slots=True)
class _Marks:
    """The bookkeeping labels and annotations of one child Job (and of its pods)."""

    labels: dict[str, str]
    annotations: dict[str, str]


class _JobSet:
    """A stored JobSet, as its controller reads it to construct each child Job."""

    def __init__(self, name: str, namespace: str, metadata: JsonObject, spec: JsonObject) -> None:
        self.name = name
        self.namespace = namespace
        self.metadata = metadata
        self.spec = spec
        self.rjobs = [as_object(rjob) for rjob in as_list(spec.get("replicatedJobs"))]
        self.replicas = [_replicas(rjob) for rjob in self.rjobs]

    def construct(self, index: int) -> ChildJob:
        """The last Job of replicatedJob ``index`` (its longest names), as the controller
        builds it."""
        rjob = self.rjobs[index]
        rjob_name = str(rjob.get("name"))
        job_index = max(self.replicas[index] - 1, 0)
        job_name = f"{self.name}-{rjob_name}-{job_index}"
        template = as_object(rjob.get("template"))
        template_metadata = as_object(template.get("metadata"))
        job_spec = as_object(template.get("spec"))
        pod_template = as_object(job_spec.get("template"))
        pod_metadata = as_object(pod_template.get("metadata"))
        pod_spec = dict(as_object(pod_template.get("spec")))
        marks = self._marks(index, job_name, job_index)
        added: dict[FieldPath, str] = {("metadata", "name"): "the Job name <jobset>-<rjob>-<index>"}
        for where in (("metadata",), ("spec", "template", "metadata")):
            for key, value in marks.labels.items():
                added[(*where, "labels", key)] = f"the JobSet controller's label {key}={value}"
            for key in marks.annotations:
                added[(*where, "annotations", key)] = f"the JobSet controller's annotation {key}"
        if get_path(self.spec, ("network", "enableDNSHostnames")) is True:
            pod_spec["subdomain"] = subdomain(self.name, self.spec)
            added[(*_POD_SPEC, "subdomain")] = (
                "the JobSet's headless Service as the pods' subdomain"
            )
        job_annotations = _with(template_metadata.get("annotations"), marks.annotations)
        if EXCLUSIVE_KEY in job_annotations and NODE_SELECTOR_STRATEGY_KEY in job_annotations:
            _exclusive_placement(pod_spec, f"{self.namespace}_{job_name}", added)
        added[("spec", "suspend")] = "suspend as the JobSet's"
        self._add_claim_volumes(pod_spec, added)
        job: JsonObject = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": job_name,
                "namespace": self.namespace,
                "labels": _with(template_metadata.get("labels"), marks.labels),
                "annotations": job_annotations,
            },
            "spec": {
                **job_spec,
                "suspend": self.spec.get("suspend") is True,
                "template": {
                    **pod_template,
                    "metadata": {
                        **pod_metadata,
                        "labels": _with(pod_metadata.get("labels"), marks.labels),
                        "annotations": _with(pod_metadata.get("annotations"), marks.annotations),
                    },
                    "spec": pod_spec,
                },
            },
        }
        return ChildJob(rjob_name, index, job, added, marks.labels)

    def _add_claim_volumes(self, pod_spec: JsonObject, added: dict[FieldPath, str]) -> None:
        """The volumes of the claim templates the pod mounts, after its own volumes."""
        volumes = as_list(pod_spec.get("volumes"))
        own = {get_path(volume, ("name",)) for volume in volumes}
        claims = [
            claim
            for claim in mounted_claims(list(claim_templates(self.spec)), pod_spec)
            if claim.name not in own
        ]
        if not claims:
            return
        pod_spec["volumes"] = [*volumes, *(claim_volume(claim, self.name) for claim in claims)]
        for position, claim in enumerate(claims, start=len(volumes)):
            added[(*_POD_SPEC, "volumes", position)] = (
                f"the JobSet controller's volume for claim template {claim.name!r}"
            )

    def _marks(self, index: int, job_name: str, job_index: int) -> _Marks:
        """The bookkeeping labels (also written as annotations) of one child Job."""
        rjob = self.rjobs[index]
        labels = {
            JOBSET_NAME_LABEL: self.name,
            REPLICATED_JOB_NAME_LABEL: str(rjob.get("name")),
            RESTART_ATTEMPT_LABEL: "0",
            REPLICATED_JOB_REPLICAS_LABEL: str(self.replicas[index]),
            GLOBAL_REPLICAS_LABEL: str(sum(self.replicas)),
            JOB_INDEX_LABEL: str(job_index),
            # The controller's key for the Job, not a secret: SHA-1 is what it uses.
            JOB_KEY_LABEL: hashlib.sha1(f"{self.namespace}/{job_name}".encode()).hexdigest(),  # noqa: S324
            JOB_GLOBAL_INDEX_LABEL: str(sum(self.replicas[:index]) + job_index),
        }
        coordinator = as_object(self.spec.get("coordinator"))
        if coordinator:
            labels[COORDINATOR_LABEL] = (
                f"{self.name}-{coordinator.get('replicatedJob')}-"
                f"{_int(coordinator.get('jobIndex'))}-{_int(coordinator.get('podIndex'))}."
                f"{subdomain(self.name, self.spec)}"
            )
        annotations = dict(labels)
        jobset_annotations = as_object(self.metadata.get("annotations"))
        for source in (jobset_annotations, _template_annotations(rjob)):
            if EXCLUSIVE_KEY in source:
                annotations[EXCLUSIVE_KEY] = str(source[EXCLUSIVE_KEY])
                if NODE_SELECTOR_STRATEGY_KEY in source:
                    annotations[NODE_SELECTOR_STRATEGY_KEY] = str(
                        source[NODE_SELECTOR_STRATEGY_KEY]
                    )
        return _Marks(labels, annotations)


def _template_annotations(rjob: JsonObject) -> JsonObject:
    return as_object(get_path(rjob, ("template", "metadata", "annotations")))


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _with(existing: JsonValue, added: Mapping[str, str]) -> JsonObject:
    return {**as_object(existing), **added}


def _exclusive_placement(
    pod_spec: JsonObject, namespaced_job: str, added: dict[FieldPath, str]
) -> None:
    """The node-selector strategy: select the nodes labelled for this Job, tolerate their taint."""
    pod_spec["nodeSelector"] = {
        **as_object(pod_spec.get("nodeSelector")),
        NAMESPACED_JOB_KEY: namespaced_job,
    }
    added[(*_POD_SPEC, "nodeSelector", NAMESPACED_JOB_KEY)] = "exclusive placement's node selector"
    tolerations = as_list(pod_spec.get("tolerations"))
    toleration: JsonObject = {
        "key": NO_SCHEDULE_TAINT_KEY,
        "operator": "Exists",
        "effect": "NoSchedule",
    }
    pod_spec["tolerations"] = [*tolerations, toleration]
    added[(*_POD_SPEC, "tolerations", len(tolerations))] = "exclusive placement's toleration"
