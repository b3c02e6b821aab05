"""The shared, mutable state of one TrainJob's build, as upstream's ``runtime.Info``.

A fresh context per job. Enforce phases amend the working JobSet spec and the pod
counts; build phases read it and return objects. Accessors here are the one place that
knows the JobSet template's shape, so plugins stay short.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from trainc.config import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.model.json import JsonObject, as_list, copy_json
from trainc.model.labels import ANCESTOR_TRAINER
from trainc.resolve.job import PodSet, ResolvedJob, ancestor_of
from trainc.resolve.resources import Amounts


@dataclass(slots=True)
class BuildPodSet:
    """A PodSet whose pod count the plugins may still change."""

    name: str
    ancestor: str | None
    count: int
    requests: Amounts

    @classmethod
    def of(cls, pod_set: PodSet) -> BuildPodSet:
        """A mutable copy of a resolved PodSet."""
        return cls(pod_set.name, pod_set.ancestor, pod_set.count, dict(pod_set.requests))


@dataclass(slots=True, kw_only=True)
class BuildContext:
    """Everything the plugins read and amend while one TrainJob is built."""

    job: ResolvedJob
    settings: CompileSettings
    jobset_spec: JsonObject
    jobset_metadata: JsonObject
    pod_sets: list[BuildPodSet]
    pod_labels: dict[str, str] = field(default_factory=dict)
    pod_annotations: dict[str, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @classmethod
    def start(cls, job: ResolvedJob, settings: CompileSettings) -> BuildContext:
        """A context over deep copies, so nothing a plugin does leaks into the inputs."""
        return cls(
            job=job,
            settings=settings,
            jobset_spec=copy_json(job.jobset_spec),
            jobset_metadata=copy_json(job.jobset_metadata),
            pod_sets=[BuildPodSet.of(pod_set) for pod_set in job.pod_sets],
        )

    def replicated_jobs(self) -> Iterator[JsonObject]:
        """The replicatedJobs of the working JobSet spec, in runtime order."""
        for job in as_list(self.jobset_spec.get("replicatedJobs")):
            if isinstance(job, dict):
                yield job

    def replicated_job(self, name: str) -> JsonObject | None:
        """The replicatedJob called ``name``."""
        return next((job for job in self.replicated_jobs() if job.get("name") == name), None)

    def pod_set(self, name: str) -> BuildPodSet | None:
        """The PodSet of replicatedJob ``name``."""
        return next((pod_set for pod_set in self.pod_sets if pod_set.name == name), None)

    def trainer_pod_set(self) -> BuildPodSet | None:
        """The first PodSet labelled as the trainer step, as Torch/JAX/XGBoost find it."""
        return next((p for p in self.pod_sets if p.ancestor == ANCESTOR_TRAINER), None)

    def jobs_with_ancestor(self, ancestor: str) -> Iterator[JsonObject]:
        """replicatedJobs labelled with ``ancestor``."""
        return (job for job in self.replicated_jobs() if ancestor_of(job) == ancestor)


def pod_spec(job: JsonObject) -> JsonObject:
    """The pod spec of a replicatedJob, created if missing so callers can amend it."""
    return _child(pod_template(job), "spec")


def pod_template(job: JsonObject) -> JsonObject:
    """The pod template (metadata + spec) of a replicatedJob, created if missing."""
    return _child(_child(_child(job, "template"), "spec"), "template")


def containers(pod: JsonObject, key: str = "containers") -> list[JsonObject]:
    """The containers (or ``initContainers``) of a pod spec that are mappings."""
    return [c for c in as_list(pod.get(key)) if isinstance(c, dict)]


def container(pod: JsonObject, name: str, key: str = "containers") -> JsonObject | None:
    """The container called ``name``, or None."""
    return next((c for c in containers(pod, key) if c.get("name") == name), None)


def _child(parent: JsonObject, key: str) -> JsonObject:
    child = parent.get(key)
    if not isinstance(child, dict):
        child = parent[key] = {}
    return child
