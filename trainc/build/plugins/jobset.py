"""The JobSet plugin: the TrainJob's own settings, the pod counts, and the JobSet itself.

Reproduces Trainer's JobSet plugin and builder (``upstream-semantics.md`` §2.7). The
trainer and initializer overrides run first (the ApplyTrainJob phase), so framework
plugins may still rewrite them; the counts are copied last (PreBuildSync); the JobSet is
built from the settled template. No ownerReference: an offline compiler has no TrainJob
UID (§2.13), and trainc's own labels are the lifecycle plugin's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from trainc.build.context import BuildContext, container, containers, pod_spec, pod_template
from trainc.build.jobset_defaults import apply_webhook_defaults
from trainc.build.k8s import child_object, env_value, manifest, set_labels, upsert_env
from trainc.diagnostics import Diagnostic
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, copy_json, get_path
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_MODEL_INITIALIZER,
    ANCESTOR_TRAINER,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    NODE_CONTAINER,
    NODE_JOB,
)
from trainc.model.trainjob import InitializerSource, TrainJobSpec
from trainc.resolve.job import ancestor_of

#: Environment variable the initializers read their source from.
STORAGE_URI_ENV: Final = "STORAGE_URI"

_ANCESTORS: Final = (ANCESTOR_TRAINER, ANCESTOR_DATASET_INITIALIZER, ANCESTOR_MODEL_INITIALIZER)
_REPLICATED_JOBS: Final = ("spec", "template", "spec", "replicatedJobs")
_CONTAINERS: Final = ("template", "spec", "template", "spec", "containers")


@dataclass(frozen=True, slots=True)
class JobSetPlugin:
    """Applies the TrainJob to the runtime template and emits the JobSet."""

    @property
    def name(self) -> str:
        """Upstream's JobSet plugin."""
        return "jobset"

    def apply_trainjob(self, context: BuildContext) -> None:
        """Trainer and initializer overrides, and one replica per ancestor job (§2.7 c, d).

        ``trainer.image``/``command``/``args`` replace the ``node`` container's values in
        trainer-labelled jobs; ``trainer.env`` is upserted there too and, with MPI
        ``runLauncherAsNode``, into the ``node`` container of the job named ``node``.
        """
        spec = context.job.spec
        launcher_as_node = _launcher_as_node(context)
        for job in context.replicated_jobs():
            ancestor = ancestor_of(job)
            if ancestor in _ANCESTORS:
                job["replicas"] = 1  # Trainer does not support replicas > 1 (#2318)
            if ancestor == ANCESTOR_TRAINER:
                _override_trainer(job, spec)
            elif ancestor in (ANCESTOR_DATASET_INITIALIZER, ANCESTOR_MODEL_INITIALIZER):
                _override_initializer(job, ancestor, _initializer_source(spec, ancestor))
            if ancestor == ANCESTOR_TRAINER or (launcher_as_node and job.get("name") == NODE_JOB):
                _upsert_trainer_env(job, spec)

    def pre_build_sync(self, context: BuildContext) -> None:
        """``parallelism = completions = PodSet count`` on every replicatedJob (§2.7 a).

        This overwrites runtime values, including a runtime ``completions`` that differs
        from its ``parallelism``.
        """
        for job in context.replicated_jobs():
            pod_set = context.pod_set(str(job.get("name")))
            if pod_set is not None:
                job_spec = child_object(child_object(job, "template"), "spec")
                job_spec["parallelism"] = pod_set.count
                job_spec["completions"] = pod_set.count

    def build(self, context: BuildContext) -> list[JsonObject]:
        """The JobSet ``<ns>/<tj>`` (§2.4, §2.7 e, f).

        Metadata is the runtime template's, overlaid by the runtime patches, never the
        runtime object's or the TrainJob's own labels. ``suspend`` is always written, so
        ``false`` is explicit. The scheduler's pod marks go onto every pod template. The
        spec is a copy, so the object is independent of the context. A job without
        containers gives no JobSet but an error: the webhook's defaults would make its pod
        spec, and the API server refuses a pod spec without containers.
        """
        spec = copy_json(context.jobset_spec)
        jobs = [job for job in as_list(spec.get("replicatedJobs")) if isinstance(job, dict)]
        empty = [job for job in jobs if get_path(job, _CONTAINERS) is None]
        if empty:
            context.diagnostics.extend(_no_containers(context, job) for job in empty)
            return []
        spec["suspend"] = context.job.spec.suspend is True
        for job in jobs:
            _mark_pods(job, context)
        apply_webhook_defaults(spec)
        jobset = manifest(
            JOBSET_API_VERSION, JOBSET_KIND, context.job.name, context.job.namespace, spec=spec
        )
        metadata = as_object(jobset["metadata"])
        for key in ("labels", "annotations"):
            values = as_object(context.jobset_metadata.get(key))
            if values:
                metadata[key] = copy_json(values)
        return [jobset]


def _no_containers(context: BuildContext, job: JsonObject) -> Diagnostic:
    """``compile.no-containers`` at the runtime's replicatedJob of that name."""
    name = job.get("name")
    runtime = context.job.runtime
    jobs = as_list(get_path(runtime.data, _REPLICATED_JOBS))
    index = next((i for i, rj in enumerate(jobs) if as_object(rj).get("name") == name), None)
    return runtime.finding(
        (*_REPLICATED_JOBS, index, "template") if index is not None else _REPLICATED_JOBS,
        "compile.no-containers",
        f"replicatedJob {name!r} has no containers, so its JobSet cannot be created: the "
        "JobSet webhook gives it a pod spec, which the API server refuses without containers",
        hint="set the containers of its pod template (template.spec.template.spec.containers)",
    )


def _launcher_as_node(context: BuildContext) -> bool:
    policy = context.job.runtime_spec.ml_policy
    mpi = policy.mpi if policy is not None else None
    return mpi is not None and mpi.run_launcher_as_node is True


def _override_trainer(job: JsonObject, spec: TrainJobSpec) -> None:
    """Image, command and args of the ``node`` container, each replaced when set."""
    trainer = spec.trainer
    node = container(pod_spec(job), NODE_CONTAINER)
    if trainer is None or node is None:
        return
    if trainer.image is not None:
        node["image"] = trainer.image
    if trainer.command is not None:
        node["command"] = list[JsonValue](trainer.command)
    if trainer.args is not None:
        node["args"] = list[JsonValue](trainer.args)


def _upsert_trainer_env(job: JsonObject, spec: TrainJobSpec) -> None:
    """``trainer.env`` into the ``node`` container: replaced in place by name, else appended."""
    node = container(pod_spec(job), NODE_CONTAINER)
    if spec.trainer is not None and spec.trainer.env and node is not None:
        upsert_env(node, [copy_json(var) for var in spec.trainer.env])


def _initializer_source(spec: TrainJobSpec, ancestor: str) -> InitializerSource | None:
    initializer = spec.initializer
    if initializer is None:
        return None
    return initializer.dataset if ancestor == ANCESTOR_DATASET_INITIALIZER else initializer.model


def _override_initializer(job: JsonObject, name: str, source: InitializerSource | None) -> None:
    """Point the step's own container at the TrainJob's source (§2.7 c).

    ``STORAGE_URI`` first, then the initializer's env (so a user ``STORAGE_URI`` wins),
    then the secret appended as ``envFrom``.
    """
    if source is None:
        return
    for target in containers(pod_spec(job)):
        if target.get("name") != name:
            continue
        if source.storage_uri is not None:
            upsert_env(target, [env_value(STORAGE_URI_ENV, source.storage_uri)])
        if source.env:
            upsert_env(target, [copy_json(var) for var in source.env])
        if source.secret_ref is not None:
            secret: JsonObject = {"secretRef": {"name": source.secret_ref.get("name", "")}}
            target["envFrom"] = [*as_list(target.get("envFrom")), secret]


def _mark_pods(job: JsonObject, context: BuildContext) -> None:
    """The gang scheduler's pod labels and annotations, merged into the pod template."""
    if not (context.pod_labels or context.pod_annotations):
        return
    metadata = child_object(pod_template(job), "metadata")
    if context.pod_labels:
        set_labels(metadata, context.pod_labels)
    if context.pod_annotations:
        set_labels(metadata, context.pod_annotations, key="annotations")
