"""The JobSet plugin: the TrainJob's own settings, the pod counts, and the JobSet as stored.

Reproduces Trainer's JobSet plugin and builder (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/jobset.go,
https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/builder.go).
The trainer's image, command and args are applied first (the ApplyTrainJob phase), so
framework plugins may still rewrite them; the counts, the initializers' sources and
``trainer.env`` come after the plugins (PreBuildSync), as upstream's builder applies
them, which fixes the order of the containers' environment; Settle gives
the working JobSet the shape the API server stores: ``suspend`` when set, the scheduler's
pod marks and the JobSet webhook's defaults. No ownerReference: an offline compiler has no
TrainJob UID (``docs/design.md``, "Offline, by design"), and trainc's own labels are the
lifecycle plugin's.

Build: the JobSet ``<ns>/<tj>``, the resolved spec and metadata as the API server stores
them. Resolution settled everything (the TrainJob's overrides, pod counts, framework env,
webhook defaults, trainc's labels and annotations), so the JobSet is that state written
out. The spec is a copy, so the manifest is independent of the resolved job. The JobSet
webhook's own checks are not this plugin's: they are :mod:`trainc.checks.webhooks`'.
"""

from __future__ import annotations

from typing import Final

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    as_list,
    as_object,
    copy_json,
    get_path,
)
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_MODEL_INITIALIZER,
    ANCESTOR_TRAINER,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    NODE_CONTAINER,
    NODE_JOB,
)
from trainc.model.trainjob import InitializerSource
from trainc.plugins.shared.objects import manifest
from trainc.records import dataclass
from trainc.resolve.context import (
    Resolution,
    ancestor_of,
    container,
    containers,
    pod_spec,
    pod_template,
)
from trainc.resolve.edits import (
    append_items,
    child_object,
    env_value,
    set_labels,
    upsert_env,
    upsert_traced_env,
)
from trainc.resolve.jobset_defaults import apply_webhook_defaults
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.trainer import upsert_trainer_env

COMPILE_NO_CONTAINERS = Rule(
    "compile.no-containers",
    Severity.ERROR,
    "a replicated job's pod template has no containers, so its JobSet would be refused",
)


#: Environment variable the initializers read their source from.
STORAGE_URI_ENV: Final = "STORAGE_URI"

_ANCESTORS: Final = (ANCESTOR_TRAINER, ANCESTOR_DATASET_INITIALIZER, ANCESTOR_MODEL_INITIALIZER)
_REPLICATED_JOBS: Final = ("spec", "template", "spec", "replicatedJobs")
_CONTAINERS: Final = ("template", "spec", "template", "spec", "containers")
_TRAINER: Final = ("spec", "trainer")
_PLUGIN: Final = "jobset"


@dataclass(frozen=True, slots=True)
class JobSetPlugin:
    """Applies the TrainJob to the runtime template and settles the JobSet."""

    @property
    def name(self) -> str:
        """Upstream's JobSet plugin."""
        return "jobset"

    def apply_trainjob(self, context: Resolution) -> None:
        """One replica per ancestor job, and the trainer's image, command and args.

        ``trainer.image``/``command``/``args`` replace the ``node`` container's values in
        trainer-labelled jobs before the framework plugins run, since Flux wraps that
        command and TorchTune rewrites it. The environment comes later
        (:meth:`pre_build_sync`), where its order is upstream's.
        """
        for job in context.replicated_jobs():
            ancestor = ancestor_of(job)
            if ancestor in _ANCESTORS and job.get("replicas") != 1:
                rule = "one replica per ancestor-labelled job"
                origin = context.derived(_PLUGIN, rule, context.job_cause(job))
                context.trace.put(job, "replicas", replicas_of(job), origin)
            if ancestor == ANCESTOR_TRAINER:
                _override_trainer(context, job)

    def pre_build_sync(self, context: Resolution) -> None:
        """Counts, then the TrainJob's initializer and trainer environment, as upstream's builder.

        ``parallelism = completions = PodSet count`` on every replicatedJob, overwriting
        runtime values, including a runtime ``completions`` that differs from its
        ``parallelism``. Then, after every framework plugin, the initializers' sources and
        ``trainer.env``, upserted into the ``node`` container of trainer-labelled jobs and,
        with MPI ``runLauncherAsNode``, of the job named ``node``. So the user's variables
        follow the JAX and OpenMPI ones and may refer to them with ``$(VAR)``; Torch and
        PlainML put ``trainer.env`` into the trainer container before their own variables,
        and this upsert leaves it there (see ``Build`` in
        https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/jobset.go).
        """
        for job in context.replicated_jobs():
            pod_set = context.pod_set(str(job.get("name")))
            if pod_set is not None:
                job_spec = child_object(child_object(job, "template"), "spec")
                rule = f"parallelism = completions = pods of replicatedJob {pod_set.name!r}"
                origin = context.derived(_PLUGIN, rule, pod_set.count_origin)
                context.trace.put(job_spec, "parallelism", pod_set.count, origin)
                context.trace.put(job_spec, "completions", pod_set.count, origin)
        launcher_as_node = _launcher_as_node(context)
        for job in context.replicated_jobs():
            ancestor = ancestor_of(job)
            if ancestor in (ANCESTOR_DATASET_INITIALIZER, ANCESTOR_MODEL_INITIALIZER):
                _override_initializer(context, job, ancestor)
            if ancestor == ANCESTOR_TRAINER or (launcher_as_node and job.get("name") == NODE_JOB):
                node = container(pod_spec(job), NODE_CONTAINER)
                if node is not None:
                    upsert_trainer_env(context, node)

    def settle(self, context: Resolution) -> None:
        """The JobSet as stored: suspend, pod marks, webhook defaults.

        Metadata is the runtime template's, overlaid by the runtime patches, never the
        runtime object's or the TrainJob's own labels (the Kueue plugin carries Kueue's).
        ``suspend`` is written only when the TrainJob sets ``suspend: true``: an absent
        field means ``false`` to the JobSet controller, and a ``false`` in git would be a
        value GitOps forces back onto a field Kueue owns (Kueue suspends a queued JobSet
        on create and resumes it on admission; docs/kueue.md). The runtime template's
        own ``suspend`` never passes, as upstream's builder overwrites it with the
        TrainJob's. The scheduler's pod marks go onto every pod template. A job without
        containers is reported: the webhook's defaults would give it a pod spec, which
        the API server refuses without containers.
        """
        spec = context.jobset_spec
        for job in context.replicated_jobs():
            if get_path(job, _CONTAINERS) is None:
                context.findings.append(_no_containers(context, job))
        if context.job.spec.suspend is True:
            origin = context.derived(
                _PLUGIN, "suspend as the TrainJob", context.trainjob_at("spec", "suspend")
            )
            context.trace.put(spec, "suspend", True, origin)  # noqa: FBT003 - a value
        else:
            spec.pop("suspend", None)
        for job in context.replicated_jobs():
            _mark_pods(context, job)
        apply_webhook_defaults(context)

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The JobSet of ``job``."""
        jobset = manifest(
            JOBSET_API_VERSION,
            JOBSET_KIND,
            job.name,
            job.namespace,
            spec=copy_json(job.jobset_spec),
        )
        metadata = as_object(jobset["metadata"])
        for key in ("labels", "annotations"):
            values = as_object(job.jobset_metadata.get(key))
            if values:
                metadata[key] = copy_json(values)
        return [jobset]


def replicas_of(job: JsonObject) -> int:
    """The Jobs a replicatedJob gets: 1 for an ancestor-labelled one (Trainer does not
    support more, #2318), else its ``replicas`` (the CRD default 1 when unset)."""
    if ancestor_of(job) in _ANCESTORS:
        return 1
    replicas = job.get("replicas")
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1


def _no_containers(context: Resolution, job: JsonObject) -> Diagnostic:
    """``compile.no-containers`` at the runtime's replicatedJob of that name."""
    name = job.get("name")
    runtime = context.job.runtime
    jobs = as_list(get_path(runtime.data, _REPLICATED_JOBS))
    index = next((i for i, rj in enumerate(jobs) if as_object(rj).get("name") == name), None)
    return runtime.finding(
        (*_REPLICATED_JOBS, index, "template") if index is not None else _REPLICATED_JOBS,
        COMPILE_NO_CONTAINERS.code,
        f"replicatedJob {name!r} has no containers, so its JobSet cannot be created: the "
        "JobSet webhook gives it a pod spec, which the API server refuses without containers",
        hint="set the containers of its pod template (template.spec.template.spec.containers)",
    )


def _launcher_as_node(context: Resolution) -> bool:
    policy = context.job.runtime_spec.ml_policy
    mpi = policy.mpi if policy is not None else None
    return mpi is not None and mpi.run_launcher_as_node is True


def _override_trainer(context: Resolution, job: JsonObject) -> None:
    """Image, command and args of the ``node`` container, each replaced when set."""
    trainer = context.job.spec.trainer
    node = container(pod_spec(job), NODE_CONTAINER)
    if trainer is None or node is None:
        return
    values: tuple[tuple[str, JsonValue], ...] = (
        ("image", trainer.image),
        ("command", list[JsonValue](trainer.command) if trainer.command is not None else None),
        ("args", list[JsonValue](trainer.args) if trainer.args is not None else None),
    )
    for key, value in values:
        if value is not None:
            context.trace.put(node, key, value, context.trainjob_at(*_TRAINER, key))


def _initializer_source(
    context: Resolution, ancestor: str
) -> tuple[InitializerSource, FieldPath] | None:
    initializer = context.job.spec.initializer
    if initializer is None:
        return None
    if ancestor == ANCESTOR_DATASET_INITIALIZER:
        source, key = initializer.dataset, "dataset"
    else:
        source, key = initializer.model, "model"
    return (source, ("spec", "initializer", key)) if source is not None else None


def _override_initializer(context: Resolution, job: JsonObject, name: str) -> None:
    """Point the step's own container at the TrainJob's source.

    ``STORAGE_URI`` first, then the initializer's env (so a user ``STORAGE_URI`` wins),
    then the secret appended as ``envFrom``.
    """
    found = _initializer_source(context, name)
    if found is None:
        return
    source, at = found
    trace = context.trace
    for target in containers(pod_spec(job)):
        if target.get("name") != name:
            continue
        if source.storage_uri is not None:
            origin = context.trainjob_at(*at, "storageUri")
            upsert_env(trace, target, [env_value(STORAGE_URI_ENV, source.storage_uri)], origin)
        if source.env:
            entries = [
                (copy_json(var), context.trainjob_at(*at, "env", index))
                for index, var in enumerate(source.env)
            ]
            upsert_traced_env(trace, target, entries)
        if source.secret_ref is not None:
            secret: JsonObject = {"secretRef": {"name": source.secret_ref.get("name", "")}}
            append_items(trace, target, "envFrom", [secret], context.trainjob_at(*at, "secretRef"))


def _mark_pods(context: Resolution, job: JsonObject) -> None:
    """The gang scheduler's pod labels and annotations, merged into the pod template."""
    if not (context.pod_labels or context.pod_annotations):
        return
    metadata = child_object(pod_template(job), "metadata")
    if context.pod_labels:
        set_labels(context.trace, metadata, context.pod_labels)
    if context.pod_annotations:
        set_labels(context.trace, metadata, context.pod_annotations, key="annotations")
