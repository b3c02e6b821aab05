"""Output checks shared by every kind, and those of the custom resources trainc emits.

An emitted object is checked with the very layers that judge input documents: the
generated JSON Schema (:mod:`.structural`), CRD defaults (:mod:`.defaults`), create-time
CEL rules (:mod:`.cel.rules`) and the ObjectMeta rules (:mod:`.metadata`). Those layers
speak of loaded documents, so the object is wrapped as one without a file; their
findings come back as one-line messages, since a problem in output is trainc's bug and
has no user file to point at.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.checks.created.childjobs import child_job_errors
from trainc.checks.created.names import name_budget_problems
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import Document, LoadedObject
from trainc.load.source import SourceFile
from trainc.model.json import JsonObject, as_object, format_path
from trainc.model.kinds import CLUSTER_SCOPED_KINDS
from trainc.model.labels import JOBSET_KIND
from trainc.model.schemafiles import OUTPUT_SCHEMAS
from trainc.model.schematree import KindSchema, load_kind_schema
from trainc.resolve.childjobs import child_jobs
from trainc.schema.cel.rules import check_rules
from trainc.schema.defaults import store
from trainc.schema.metadata import check_metadata
from trainc.schema.structural import check_stored

#: Stand-in file name of emitted objects in the diagnostics the shared layers produce.
_OUTPUT_FILE = "<output>"


def custom_schema(obj: JsonObject) -> KindSchema | None:
    """The generated schema of a custom resource, None for anything else (core kinds)."""
    target = OUTPUT_SCHEMAS.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
    return load_kind_schema(target.name) if target is not None else None


def as_loaded(obj: JsonObject) -> LoadedObject:
    """``obj`` as a loaded document without a file, so the input layers can judge it."""
    metadata = as_object(obj.get("metadata"))
    name = metadata.get("name")
    namespace = metadata.get("namespace")
    return LoadedObject(
        document=Document(SourceFile(path=_OUTPUT_FILE, text=""), 0, obj, {}),
        api_version=str(obj.get("apiVersion")),
        kind=str(obj.get("kind")),
        name=name if isinstance(name, str) else "",
        namespace=namespace if isinstance(namespace, str) else None,
    )


def check_object_metadata(obj: JsonObject) -> list[str]:
    """ObjectMeta problems: name, namespace, label and annotation keys and values."""
    loaded = as_loaded(obj)
    return _messages(check_metadata(loaded, namespaced=loaded.kind not in CLUSTER_SCOPED_KINDS))


def check_custom_resource(obj: JsonObject, schema: KindSchema) -> list[str]:
    """Schema, then CEL rules on the defaulted object; for a JobSet also its name budgets."""
    stored = store(obj, schema)
    # Structural messages already name their field.
    problems = [f"{finding.message} [{finding.code}]" for finding in check_stored(stored, schema)]
    defaulted = stored.defaulted
    if not isinstance(defaulted, dict):
        return [*problems, "the object is not a mapping"]
    loaded = as_loaded(obj)
    wrapped = DefaultedObject(loaded, defaulted, loaded.namespace, schema_valid=not problems)
    problems += _messages(check_rules(wrapped, schema))
    if loaded.kind == JOBSET_KIND:
        problems += list(_name_budgets(loaded.name, defaulted))
    return problems


def check_child_jobs(obj: JsonObject, version: KubeVersion) -> list[str]:
    """For a JobSet, what the API server would refuse in the Jobs created from it."""
    if obj.get("kind") != JOBSET_KIND:
        return []
    metadata = as_object(obj.get("metadata"))
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not isinstance(namespace, str):
        return []
    spec = as_object(obj.get("spec"))
    return [
        f"Job of replicatedJob {child.replicated_job!r}: {error.message()} [{error.code}]"
        for child in child_jobs(name, namespace, metadata, spec)
        for error in child_job_errors(child, version)
    ]


def _messages(diagnostics: list[Diagnostic]) -> list[str]:
    return [
        f"{diagnostic.field_path or 'the object'}: {diagnostic.message} [{diagnostic.code}]"
        for diagnostic in diagnostics
    ]


def _name_budgets(jobset: str, data: JsonObject) -> Iterator[str]:
    """Generated Job and pod names must be DNS-1035 labels (the JobSet webhook)."""
    spec = as_object(data.get("spec"))
    for names, problem in name_budget_problems(jobset, spec):
        yield f"{format_path(('spec', 'replicatedJobs', names.index, 'name'))}: {problem}"
