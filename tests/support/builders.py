"""Realistic TrainJob and runtime objects for tests, with the defaults the API server applies.

``make_trainjob`` and ``make_runtime`` are the analogue of upstream's test wrappers: they
return :class:`DefaultedObject` values as the cross-object layer receives them, with the
CRD defaults (``docs/upstream.md``, "Defaults the builder depends on") applied by hand.
``object_from_yaml`` keeps
node positions so tests can assert lines; ``objects_from_file`` reads upstream example
files the way the conformance tests need them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.support.documents import make_object
from trainc.checks.webhooks.cross_object import check_cross_object, document_order
from trainc.config.limits import InputLimits
from trainc.config.settings import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.load.inputs import load_single_file
from trainc.load.objects import classify_documents
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, JsonValue, get_path
from trainc.model.kinds import KINDS_BY_NAME, TRAINJOB
from trainc.model.labels import ANCESTOR_LABEL, API_VERSION
from trainc.model.schematree import load_kind_schema
from trainc.plugins.registry import PLUGINS
from trainc.policy.apply import PolicySet, check_policies
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import resolve_job
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.defaults import apply_defaults as real_defaults
from trainc.schema.defaults import drop_nulls

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
    """``data`` with its kind's CRD defaults applied by trainc's own defaulting.

    Tests share the production code path, so a builder can never drift from what the
    structural layer hands on. Unknown kinds are returned as a deep copy.
    """
    plain: JsonObject = copy.deepcopy(dict(data))
    kind = plain.get("kind")
    if not isinstance(kind, str) or kind not in KINDS_BY_NAME:
        return plain
    result = real_defaults(drop_nulls(plain), load_kind_schema(kind))
    assert isinstance(result, dict)
    return result


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
    annotations: dict[str, JsonValue] | None = None,
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
    if annotations is not None:
        metadata["annotations"] = annotations
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
    path: str = "runtime.yaml",
    **spec: JsonValue,
) -> DefaultedObject:
    """A defaulted runtime; by default torch-distributed's shape (one ``node`` trainer job).

    ``jobset`` adds JobSet spec fields next to ``replicatedJobs`` (the JobSet template's
    metadata: :func:`with_jobset_metadata`); other keyword arguments become runtime spec
    fields (``ttlSecondsAfterFinished=30``).
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


def with_jobset_metadata(runtime: DefaultedObject, metadata: JsonObject | None) -> DefaultedObject:
    """``runtime`` re-made with its JobSet template's metadata (as is when None)."""
    if metadata is None:
        return runtime
    data = copy.deepcopy(runtime.loaded.data)
    template = get_path(data, ("spec", "template"))
    assert isinstance(template, dict)
    template["metadata"] = metadata
    return defaulted(make_object(data, runtime.loaded.path))


def annotated(obj: DefaultedObject, annotations: dict[str, JsonValue]) -> DefaultedObject:
    """``obj`` re-made with metadata annotations (the builders above take none)."""
    data = copy.deepcopy(obj.loaded.data)
    metadata = data["metadata"]
    assert isinstance(metadata, dict)
    metadata["annotations"] = annotations
    return defaulted(make_object(data, obj.loaded.path))


# --------------------------------------------------------------------------- YAML


def object_from_yaml(text: str, path: str = "test.yaml", index: int = 0) -> LoadedObject:
    """The ``index``-th document of ``text``, read by trainc's loader (positions included)."""
    parsed = parse_documents(SourceFile(path=path, text=text), InputLimits())
    assert not parsed.diagnostics, parsed.diagnostics
    document = next(d for d in parsed.documents if d.index == index)
    objects = classify_documents([document]).objects
    if objects:
        return objects[0]
    return make_object(document.data if isinstance(document.data, dict) else {}, path)


def objects_from_file(path: Path, *, name: str | None = None) -> list[LoadedObject]:
    """The trainer.kubeflow.org objects of a YAML file, read by trainc's loader."""
    loaded = load_single_file(path, name or path.name)
    return list(classify_documents(loaded.documents).objects)


def located(diagnostics: Iterable[Diagnostic]) -> list[tuple[str, str | None]]:
    """(code, field path) of each diagnostic, the pair most tests assert."""
    return [(diagnostic.code, diagnostic.field_path) for diagnostic in diagnostics]


def resolved(
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    settings: CompileSettings = CompileSettings(),  # noqa: B008 - frozen, so sharing is safe
) -> ResolvedJob:
    """``trainjob`` on ``runtime``, resolved by trainc's resolver (every plugin)."""
    return resolve_job(trainjob, runtime, settings, plugins=PLUGINS)


def cross_object(objects: Sequence[DefaultedObject]) -> list[Diagnostic]:
    """The cross-object layer over ``objects``, with the runtime index a run builds."""
    return check_cross_object(objects, RuntimeIndex(document_order(objects)))


def policy_findings(policies: PolicySet, objects: Sequence[DefaultedObject]) -> list[Diagnostic]:
    """The policies over ``objects`` as a run checks them: TrainJobs with their runtime and
    what they resolve to."""
    index = RuntimeIndex(document_order(objects))
    found: list[Diagnostic] = []
    for obj in objects:
        looked_up = index.lookup(obj) if obj.kind == TRAINJOB.kind else None
        runtime = looked_up if isinstance(looked_up, DefaultedObject) else None
        job = None
        if runtime is not None and obj.schema_valid and runtime.schema_valid:
            job = resolved(obj, runtime)
        found += check_policies(policies, obj, runtime=runtime, resolved=job)
    return found
