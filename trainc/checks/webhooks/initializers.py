"""A TrainJob that configures an initializer needs the runtime step that runs it.

Reproduces the JobSet plugin's TrainJob validation (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/jobset.go):
``spec.initializer.dataset`` (``.model``) requires a replicatedJob named
``dataset-initializer`` (``model-initializer``), a container of the same name in it, and
(since v2.3.0) a volumeMount named ``initializer`` in that container, where the step writes
what the trainer reads. Upstream judges the runtime after this TrainJob's runtimePatches,
so a mount added by a patch counts. The finding sits on the TrainJob field that asks for
the step; the message says where the runtime falls short.
"""

from __future__ import annotations

from trainc.checks.shared.findings import describe, listing, where
from trainc.checks.shared.template import (
    Node,
    all_containers,
    containers,
    mount_names,
    named,
    patched_jobs,
    replicated_jobs,
    runtime_patches,
)
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import get_path
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_MODEL_INITIALIZER,
    INITIALIZER_VOLUME,
)

XOBJ_INITIALIZER_JOB = Rule(
    "xobj.initializer-job",
    Severity.ERROR,
    "the runtime lacks the initializer job the TrainJob configures",
)

XOBJ_INITIALIZER_CONTAINER = Rule(
    "xobj.initializer-container",
    Severity.ERROR,
    "the initializer job lacks its initializer container",
)

XOBJ_INITIALIZER_VOLUME_MOUNT = Rule(
    "xobj.initializer-volume-mount",
    Severity.ERROR,
    "the initializer container lacks the initializer mount",
)


#: TrainJob initializer source → (step name, the spelling upstream's messages use).
_STEPS = {
    "dataset": (ANCESTOR_DATASET_INITIALIZER, "datasetConfig"),
    "model": (ANCESTOR_MODEL_INITIALIZER, "modelConfig"),
}


def check_initializers(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """Findings for each configured initializer whose runtime step is missing or incomplete."""
    found = []
    for source in _STEPS:
        if isinstance(get_path(trainjob.data, ("spec", "initializer", source)), dict):
            found.extend(_check_step(trainjob, runtime, source))
    return found


def _check_step(
    trainjob: DefaultedObject, runtime: DefaultedObject, source: str
) -> list[Diagnostic]:
    step, spelling = _STEPS[source]
    path = ("spec", "initializer", source)
    rjobs = replicated_jobs(runtime.data)
    rjob = named(rjobs, step)
    if rjob is None:
        names = [name for job in rjobs if (name := job.name)]
        return [
            trainjob.finding(
                path,
                XOBJ_INITIALIZER_JOB.code,
                f"must have {step} job when trainJob is configured with input {spelling}: "
                f"{describe(runtime)} ({where(runtime)}) has replicatedJobs {listing(names)}",
                hint=f"use a runtime with a {step!r} replicatedJob, or remove "
                f"spec.initializer.{source}",
            )
        ]
    container = named(all_containers(rjob), step)
    if container is None:
        return [
            trainjob.finding(
                path,
                XOBJ_INITIALIZER_CONTAINER.code,
                f"must have container with name - {step} in the {step} job: replicatedJob "
                f"{step!r} of {describe(runtime)} ({where(runtime, rjob.path)}) has none",
                hint=f"name the initializer container of replicatedJob {step!r} {step!r}",
            )
        ]
    mounts = mount_names(container) | _patched_mounts(trainjob, step)
    if INITIALIZER_VOLUME in mounts:
        return []
    return [_mount_finding(trainjob, runtime, source, container, mounts)]


def _patched_mounts(trainjob: DefaultedObject, step: str) -> set[str]:
    """Mounts this TrainJob's runtime patches add to the step's container."""
    mounts: set[str] = set()
    for patch in runtime_patches(trainjob.data):
        for rjob in patched_jobs(patch):
            if rjob.name == step and (patched := named(containers(rjob), step)) is not None:
                mounts |= mount_names(patched)
    return mounts


def _mount_finding(
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    source: str,
    container: Node,
    mounts: set[str],
) -> Diagnostic:
    step, _ = _STEPS[source]
    return trainjob.finding(
        ("spec", "initializer", source),
        XOBJ_INITIALIZER_VOLUME_MOUNT.code,
        f"must have volumeMount with name - {INITIALIZER_VOLUME} in container {step} of the "
        f"{step} job: the container in {describe(runtime)} ({where(runtime, container.path)}) "
        f"mounts {listing(sorted(mounts))}",
        hint=f"mount a volume named {INITIALIZER_VOLUME!r} in that container (Trainer's "
        f"convention: mountPath /workspace/{source}), backed by a pod volume or a "
        f"volumeClaimPolicies template of that name and mounted by the trainer too",
    )
