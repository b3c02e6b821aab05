"""Realistic TrainJob and runtime objects for tests, with the defaults the API server applies.

``make_trainjob`` and ``make_runtime`` are the analogue of upstream's test wrappers: they
return :class:`DefaultedObject` values as the cross-object layer receives them, with the
CRD defaults (``upstream-semantics.md`` §2.2) applied by hand. ``object_from_yaml`` keeps
node positions so tests can assert lines; ``objects_from_file`` reads upstream example
files the way the conformance tests need them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from tests.support.documents import make_object
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document, LoadedObject
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.model.kinds import KINDS_BY_NAME, TRAINJOB
from trainc.model.labels import (
    ANCESTOR_LABEL,
    API_VERSION,
    DEFAULT_MANAGED_BY,
    GROUP,
)
from trainc.resolve.objects import DefaultedObject

DEFAULT_NAMESPACE = "default"


# --------------------------------------------------------------------------- plain data


def container(name: str, **fields: JsonValue) -> JsonObject:
    """A container with an image, plus any extra fields (``volumeMounts=[...]``)."""
    return {"name": name, "image": f"example.com/{name}:1", **fields}


def rjob(
    name: str,
    *,
    ancestor: str | None = None,
    containers: Iterable[str | JsonObject] = ("node",),
    init_containers: Iterable[str | JsonObject] = (),
    volumes: Sequence[JsonValue] | None = None,
    job_spec: JsonObject | None = None,
    **fields: JsonValue,
) -> JsonObject:
    """A replicatedJob; containers given by name get an image, dicts are used as they are."""
    pod: JsonObject = {"containers": [_container(c) for c in containers]}
    if init_containers:
        pod["initContainers"] = [_container(c) for c in init_containers]
    if volumes is not None:
        pod["volumes"] = list(volumes)
    template: JsonObject = {"spec": {**(job_spec or {}), "template": {"spec": pod}}}
    if ancestor is not None:
        template["metadata"] = {"labels": {ANCESTOR_LABEL: ancestor}}
    return {"name": name, "template": template, **fields}


def _container(spec: str | JsonObject) -> JsonValue:
    return container(spec) if isinstance(spec, str) else spec


# --------------------------------------------------------------------------- defaults


def apply_defaults(data: Mapping[str, Any]) -> JsonObject:
    """A deep copy of ``data`` with the CRD defaults of its kind applied (§2.2)."""
    result: JsonObject = copy.deepcopy(dict(data))
    spec = result.get("spec")
    if not isinstance(spec, dict):
        return result
    if result.get("kind") == TRAINJOB.kind:
        _default_trainjob(spec)
    else:
        _default_runtime(spec)
    return result


def _default_trainjob(spec: JsonObject) -> None:
    ref = spec.get("runtimeRef")
    if isinstance(ref, dict):
        ref.setdefault("apiGroup", GROUP)
        ref.setdefault("kind", "ClusterTrainingRuntime")
    spec.setdefault("suspend", False)
    spec.setdefault("managedBy", DEFAULT_MANAGED_BY)
    for source in _dicts(_get(spec, "initializer", "dataset"), _get(spec, "initializer", "model")):
        for secret in _dicts(source.get("secretRef")):
            secret.setdefault("name", "")


def _default_runtime(spec: JsonObject) -> None:
    for mpi in _dicts(_get(spec, "mlPolicy", "mpi")):
        mpi.setdefault("numProcPerNode", 1)
        mpi.setdefault("mpiImplementation", "OpenMPI")
        mpi.setdefault("sshAuthMountPath", "/root/.ssh")
        mpi.setdefault("runLauncherAsNode", False)
    for flux in _dicts(_get(spec, "mlPolicy", "flux")):
        flux.setdefault("numProcPerNode", 1)
    for cosched in _dicts(_get(spec, "podGroupPolicy", "coscheduling")):
        cosched.setdefault("scheduleTimeoutSeconds", 60)
    for topology in _dicts(_get(spec, "podGroupPolicy", "volcano", "networkTopology")):
        topology.setdefault("mode", "hard")
        topology.setdefault("highestTierAllowed", 1)
    jobset = _get(spec, "template", "spec")
    for job in _dicts(*_items(_get(jobset, "replicatedJobs"))):
        job.setdefault("replicas", 1)
        job.setdefault("groupName", "default")
    for policy in _dicts(_get(jobset, "failurePolicy")):
        policy.setdefault("restartStrategy", "Recreate")
    for claim in _dicts(*_items(_get(jobset, "volumeClaimPolicies"))):
        for retention in _dicts(claim.get("retentionPolicy")):
            retention.setdefault("whenDeleted", "Delete")


def _get(value: JsonValue, *path: str) -> JsonValue:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _items(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _dicts(*values: JsonValue) -> list[JsonObject]:
    return [value for value in values if isinstance(value, dict)]


def defaulted(
    loaded: LoadedObject, *, default_namespace: str = DEFAULT_NAMESPACE, schema_valid: bool = True
) -> DefaultedObject:
    """``loaded`` as the structural layer hands it on: defaulted, with its namespace."""
    info = KINDS_BY_NAME.get(loaded.kind)
    namespaced = info is None or info.namespaced
    return DefaultedObject(
        loaded=loaded,
        data=apply_defaults(loaded.data),
        namespace=(loaded.namespace or default_namespace) if namespaced else None,
        schema_valid=schema_valid,
    )


# --------------------------------------------------------------------------- objects


def make_trainjob(
    name: str = "job",
    *,
    namespace: str | None = None,
    runtime: str = "torch-distributed",
    runtime_kind: str | None = None,
    runtime_group: str | None = None,
    path: str = "trainjob.yaml",
    labels: dict[str, JsonValue] | None = None,
    **spec: JsonValue,
) -> DefaultedObject:
    """A defaulted TrainJob on ``runtime``; keyword arguments become spec fields."""
    ref: JsonObject = {"name": runtime}
    if runtime_kind is not None:
        ref["kind"] = runtime_kind
    if runtime_group is not None:
        ref["apiGroup"] = runtime_group
    metadata: JsonObject = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if labels is not None:
        metadata["labels"] = labels
    data: JsonObject = {
        "apiVersion": API_VERSION,
        "kind": TRAINJOB.kind,
        "metadata": metadata,
        "spec": {"runtimeRef": ref, **spec},
    }
    return defaulted(make_object(data, path))


def make_runtime(
    name: str = "torch-distributed",
    *,
    kind: str = "ClusterTrainingRuntime",
    namespace: str | None = None,
    labels: dict[str, JsonValue] | None = None,
    ml_policy: JsonValue = None,
    replicated_jobs: Sequence[JsonValue] | None = None,
    jobset: JsonObject | None = None,
    jobset_metadata: JsonObject | None = None,
    path: str = "runtime.yaml",
    **spec: JsonValue,
) -> DefaultedObject:
    """A defaulted runtime; by default torch-distributed's shape (one ``node`` trainer job).

    ``jobset`` adds JobSet spec fields next to ``replicatedJobs``, ``jobset_metadata`` sets
    the JobSet template's metadata; other keyword arguments become runtime spec fields
    (``ttlSecondsAfterFinished=30``).
    """
    metadata: JsonObject = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if labels is not None:
        metadata["labels"] = labels
    jobs: list[JsonValue] = (
        list(replicated_jobs) if replicated_jobs is not None else [rjob("node", ancestor="trainer")]
    )
    template: JsonObject = {"spec": {"replicatedJobs": jobs, **(jobset or {})}}
    if jobset_metadata is not None:
        template["metadata"] = jobset_metadata
    data: JsonObject = {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": metadata,
        "spec": {
            "mlPolicy": ml_policy if ml_policy is not None else {"numNodes": 1, "torch": {}},
            "template": template,
            **spec,
        },
    }
    return defaulted(make_object(data, path))


# --------------------------------------------------------------------------- YAML


def object_from_yaml(text: str, path: str = "test.yaml", index: int = 0) -> LoadedObject:
    """The ``index``-th document of ``text`` with node positions, as the loader would give it."""
    documents = list(YAML(typ="rt").load_all(text))
    node = documents[index]
    positions: dict[FieldPath, tuple[int, int]] = {(): (node.lc.line, node.lc.col)}
    _collect_positions(node, (), positions)
    data = _plain(node)
    assert isinstance(data, dict)
    document = Document(
        source=SourceFile(path=path, text=text), index=index, data=data, positions=positions
    )
    namespace = _get(data, "metadata", "namespace")
    return LoadedObject(
        document=document,
        api_version=str(data.get("apiVersion", "")),
        kind=str(data.get("kind", "")),
        name=str(_get(data, "metadata", "name") or ""),
        namespace=namespace if isinstance(namespace, str) else None,
    )


def _collect_positions(
    node: object, path: FieldPath, positions: dict[FieldPath, tuple[int, int]]
) -> None:
    if isinstance(node, CommentedMap):
        for key, value in node.items():
            line, column = node.lc.key(key)
            positions[(*path, str(key))] = (line, column)
            _collect_positions(value, (*path, str(key)), positions)
    elif isinstance(node, CommentedSeq):
        for i, value in enumerate(node):
            line, column = node.lc.item(i)
            positions[(*path, i)] = (line, column)
            _collect_positions(value, (*path, i), positions)


def _plain(node: object) -> JsonValue:
    if isinstance(node, dict):
        return {str(key): _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(value) for value in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return str(node)


def objects_from_file(path: Path, *, name: str | None = None) -> list[LoadedObject]:
    """The trainer.kubeflow.org objects of a YAML file, read with the safe loader."""
    documents = YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    return [
        make_object(document, name or path.name)
        for document in documents
        if isinstance(document, dict) and str(document.get("apiVersion", "")).startswith(GROUP)
    ]


def located(diagnostics: Iterable[Diagnostic]) -> list[tuple[str, str | None]]:
    """(code, field path) of each diagnostic, the pair most tests assert."""
    return [(diagnostic.code, diagnostic.field_path) for diagnostic in diagnostics]
