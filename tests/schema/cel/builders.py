"""Objects and schemas for the CEL layer's tests."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from tests.support.documents import make_object
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.introspect import ListOf, MapOf, Struct, TypeNode, fields_of, markers_of
from trainc.model.kinds import INPUT_KINDS
from trainc.model.markers import Rule
from trainc.model.schematree import KindSchema, load_kind_schema
from trainc.schema.cel.engine import references
from trainc.schema.cel.rules import check_rules
from trainc.schema.cel.transitions import check_transitions
from trainc.schema.defaults import apply_defaults, drop_nulls
from trainc.schema.structural import check_schema

API_VERSION = "trainer.kubeflow.org/v1alpha1"

#: A test document: JSON data, typed loosely so tests can reach into it.
Doc = dict[str, Any]


def defaulted(data: Doc, schema: KindSchema) -> DefaultedObject:
    """``data`` through the same null-dropping and defaulting as the validate stage."""
    prepared = apply_defaults(drop_nulls(copy.deepcopy(data)), schema)
    assert isinstance(prepared, dict)
    return DefaultedObject(
        loaded=make_object(data), data=prepared, namespace="team", schema_valid=True
    )


def schema_of(root: dict[str, Any], **definitions: Any) -> KindSchema:
    """A small hand-written kind schema."""
    return KindSchema(kind="Test", document={**root, "definitions": definitions})


def rule(expression: str, rule_id: str = "test.rule", message: str = "broken", **extra: Any) -> Any:
    """One ``x-kubernetes-validations`` entry."""
    return {"rule": expression, "message": message, "x-trainc-id": rule_id, **extra}


def list_schema(expression: str, item: Any | None = None) -> Any:
    """A kind whose ``spec.names`` list (of strings unless ``item`` says) has one rule."""
    return schema_of(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "names": {"type": "array", "items": item or {"type": "string"}},
                    },
                    "x-kubernetes-validations": [rule(expression)],
                }
            },
        }
    )


def violations(data: Doc, schema: KindSchema, **options: Any) -> list[Diagnostic]:
    """check_rules over ``data`` after defaulting."""
    return check_rules(defaulted(data, schema), schema, **options)


def transitions(old: Doc, new: Doc, schema: KindSchema) -> list[Diagnostic]:
    """check_transitions from ``old`` to ``new`` after defaulting both."""
    return check_transitions(defaulted(new, schema), defaulted(old, schema), schema)


def codes(found: list[Diagnostic]) -> list[tuple[str, str | None]]:
    """(code, field path) of each diagnostic, in order."""
    return [(d.code, d.field_path) for d in found]


def structural_problems(data: Doc, kind: str) -> list[str]:
    """Structural findings of a test document, which would mask the rule under test."""
    found = check_schema(drop_nulls(copy.deepcopy(data)), load_kind_schema(kind))
    return [f"{f.code} at {f.path}: {f.message}" for f in found]


def trainjob(**spec: Any) -> Doc:
    """A minimal valid TrainJob with ``spec`` fields added."""
    return {
        "apiVersion": API_VERSION,
        "kind": "TrainJob",
        "metadata": {"name": "job", "namespace": "team"},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, **spec},
    }


def replicated_job(name: str, **job_spec: Any) -> Doc:
    """A replicatedJob running one ``node`` container, with Job spec fields added."""
    pod = {"spec": {"containers": [{"name": "node", "image": "trainer:1"}]}}
    return {"name": name, "template": {"spec": {"template": pod, **job_spec}}}


def runtime(kind: str = "TrainingRuntime", **spec: Any) -> Doc:
    """A minimal valid runtime of ``kind`` with ``spec`` fields added (or replaced)."""
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": {"name": "torch"},
        "spec": {
            "mlPolicy": {"torch": {}},
            "template": {"spec": {"replicatedJobs": [replicated_job("node")]}},
            **spec,
        },
    }


def jobset_spec(**fields: Any) -> Doc:
    """``spec.template`` of a runtime whose JobSet spec has ``fields`` added."""
    return {"spec": {"replicatedJobs": [replicated_job("node")], **fields}}


def patch_pod_spec(**pod_spec: Any) -> Any:
    """``spec.runtimePatches`` with one patch changing the ``node`` pod spec."""
    job = {"name": "node", "template": {"spec": {"template": {"spec": pod_spec}}}}
    return [
        {
            "manager": "example.com/team",
            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [job]}}},
        }
    ]


def model_rules() -> dict[str, Rule]:
    """Every CEL rule marker in the API model of the input kinds, by id."""
    found: dict[str, Rule] = {}
    seen: set[type] = set()

    def visit(node: TypeNode) -> None:
        for marker in markers_of(node, Rule):
            assert isinstance(marker, Rule)
            found[marker.id] = marker
        match node:
            case Struct(cls=cls) if cls not in seen:
                seen.add(cls)
                for field in fields_of(cls):
                    visit(field.type)
            case ListOf(item=item):
                visit(item)
            case MapOf(value=value):
                visit(value)
            case _:
                pass

    for info in INPUT_KINDS:
        visit(Struct(info.model))
    return found


def is_transition(marker: Rule) -> bool:
    """True for a rule reading ``oldSelf``, decided as the CEL layer decides it."""
    return references(marker.rule, "oldSelf", ("self", "oldSelf"))


def paths_of(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path inside ``value`` (below the root), parents first."""
    found: list[tuple[str | int, ...]] = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths_of(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths_of(item, (*path, index)))
    return found


def replaced(document: Doc, path: tuple[str | int, ...], value: Any) -> Doc:
    """A copy of ``document`` with the value at ``path`` replaced."""
    copied = copy.deepcopy(document)
    parent: Any = copied
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return copied


def undefaulted(data: Doc) -> DefaultedObject:
    """``data`` as it stands, claimed schema-valid: what a hostile input can reach."""
    return DefaultedObject(loaded=make_object(data), data=data, namespace="team", schema_valid=True)


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
#: Any JSON-like value, with the awkward ones a YAML file can hold.
HOSTILE = st.recursive(
    _SCALARS | st.sampled_from(["", "node", "\ud800", 2**64]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
