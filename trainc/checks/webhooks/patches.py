"""A TrainJob's runtimePatches may only change what the runtime already has.

Reproduces the JobSet plugin's patch validation (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/jobset.go):
each
``manager`` is a domain-prefixed path; a patched replicatedJob, container or init container
must exist in the runtime (a strategic merge would otherwise add an image-less container);
and env of the containers Trainer owns (``node``, ``dataset-initializer``,
``model-initializer``) comes only from ``spec.trainer`` and ``spec.initializer``.
"""

from __future__ import annotations

from trainc.checks.shared.findings import describe, listing
from trainc.checks.shared.template import (
    ContainerList,
    Node,
    container_names,
    containers,
    named,
    patched_jobs,
    replicated_jobs,
    runtime_patches,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_list
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_MODEL_INITIALIZER,
    NODE_CONTAINER,
)
from trainc.schema.metadata import domain_prefixed_path_errors

XOBJ_PATCH_MANAGER = Rule(
    "xobj.patch-manager",
    Severity.ERROR,
    "a runtimePatches manager is not a domain-prefixed path",
)

XOBJ_PATCH_UNKNOWN_JOB = Rule(
    "xobj.patch-unknown-job",
    Severity.ERROR,
    "a runtime patch names a replicatedJob the runtime lacks",
)

XOBJ_PATCH_UNKNOWN_CONTAINER = Rule(
    "xobj.patch-unknown-container",
    Severity.ERROR,
    "a runtime patch names a container the runtime lacks",
)

XOBJ_PATCH_FORBIDDEN_ENV = Rule(
    "xobj.patch-forbidden-env",
    Severity.ERROR,
    "a runtime patch sets env on a container Trainer owns",
)


#: Containers whose env only the TrainJob's trainer and initializer fields may set.
_OWNED_ENV = {
    NODE_CONTAINER: "spec.trainer.env",
    ANCESTOR_DATASET_INITIALIZER: "spec.initializer.dataset.env",
    ANCESTOR_MODEL_INITIALIZER: "spec.initializer.model.env",
}
_KINDS: tuple[ContainerList, ...] = ("containers", "initContainers")
_UNKNOWN = {
    "containers": "must not have container that doesn't exist in the runtime job",
    "initContainers": "must not have initContainer that doesn't exist in the runtime job",
}


def check_runtime_patches(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """Findings for every runtime patch entry of the TrainJob against its runtime."""
    runtime_jobs = replicated_jobs(runtime.data)
    found = []
    for patch in runtime_patches(trainjob.data):
        found += _check_manager(trainjob, patch)
        for patched in patched_jobs(patch):
            if patched.name is None:
                continue
            rjob = named(runtime_jobs, patched.name)
            if rjob is None:
                found.append(_unknown_job(trainjob, runtime, patched, runtime_jobs))
                continue
            for kind in _KINDS:
                found += _check_containers(trainjob, rjob, patched, kind)
    return found


def _check_manager(trainjob: DefaultedObject, patch: Node) -> list[Diagnostic]:
    manager = str_value(patch.get("manager"))
    errors = domain_prefixed_path_errors(manager) if manager is not None else []
    if not errors:
        return []
    return [
        trainjob.finding(
            patch.at("manager"),
            XOBJ_PATCH_MANAGER.code,
            f"{'; '.join(errors)} (runtimePatches manager {manager!r})",
            hint="name the manager by a domain you own and a path, e.g. example.com/ml-platform",
        )
    ]


def _unknown_job(
    trainjob: DefaultedObject, runtime: DefaultedObject, patched: Node, runtime_jobs: list[Node]
) -> Diagnostic:
    names = [name for rjob in runtime_jobs if (name := rjob.name)]
    return trainjob.finding(
        patched.at("name"),
        XOBJ_PATCH_UNKNOWN_JOB.code,
        "must not have replicated job that doesn't exist in the runtime job template: "
        f"{describe(runtime)} has replicatedJobs {listing(names)}",
        hint=did_you_mean(patched.name or "", names) or "patch one of the runtime's replicatedJobs",
    )


def _check_containers(
    trainjob: DefaultedObject, rjob: Node, patched: Node, kind: ContainerList
) -> list[Diagnostic]:
    present = container_names(rjob, kind)
    found = []
    for container in containers(patched, kind):
        name = container.name
        if name is None:
            continue
        if name not in present:
            found.append(_unknown_container(trainjob, rjob, container, kind))
        elif kind == "containers" and name in _OWNED_ENV and as_list(container.get("env")):
            found.append(_owned_env(trainjob, container, name))
    return found


def _unknown_container(
    trainjob: DefaultedObject, rjob: Node, container: Node, kind: ContainerList
) -> Diagnostic:
    name = container.name or ""
    other: ContainerList = "initContainers" if kind == "containers" else "containers"
    present = container_names(rjob, kind)
    if name in container_names(rjob, other):
        hint = f"{name!r} is listed under {other} in the runtime; patch it there"
    else:
        hint = did_you_mean(name, present) or f"patch one of {listing(present)}"
    return trainjob.finding(
        container.at("name"),
        XOBJ_PATCH_UNKNOWN_CONTAINER.code,
        f"{_UNKNOWN[kind]} {rjob.name}: its {kind} are {listing(present)}",
        hint=hint,
    )


def _owned_env(trainjob: DefaultedObject, container: Node, name: str) -> Diagnostic:
    return trainjob.finding(
        container.at("env"),
        XOBJ_PATCH_FORBIDDEN_ENV.code,
        f"must not have envs for the {ANCESTOR_DATASET_INITIALIZER}, "
        f"{ANCESTOR_MODEL_INITIALIZER}, {NODE_CONTAINER} containers: the patch sets env on "
        f"container {name!r}",
        hint=f"set these variables in {_OWNED_ENV[name]} instead",
    )
