"""Transition rules: every immutable field of the three API kinds, and correlation semantics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainc.model.schematree import load_kind_schema
from trainc.schema.cel.transitions import check_transitions
from trainc.schema.defaults import drop_nulls

from .builders import (
    HOSTILE,
    Doc,
    codes,
    is_transition,
    jobset_spec,
    model_rules,
    patch_pod_spec,
    paths_of,
    replaced,
    replicated_job,
    rule,
    runtime,
    schema_of,
    structural_problems,
    trainjob,
    transitions,
    undefaulted,
)

RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
_POD = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec"
POD_SPEC = f"{_POD}.template.spec"


@dataclass(frozen=True)
class Edit:
    """An object at its base revision, a forbidden edit of it, and a harmless one."""

    old: Doc
    new: Doc
    path: str
    same: Doc


def _patched(**pod_spec: Any) -> Doc:
    return trainjob(runtimePatches=patch_pod_spec(**pod_spec))


def _containers(field: str) -> Edit:
    def pod(value: str, *names: str) -> Doc:
        items = [{"name": name, "env": [{"name": "A", "value": value}]} for name in names]
        return _patched(**{field: items})

    return Edit(
        pod("1", "node", "sidecar"),
        pod("2", "node", "sidecar"),
        f"{POD_SPEC}.{field}",
        pod("1", "sidecar", "node"),
    )


def _named_items(field: str, *names: str) -> Doc:
    return _patched(**{field: [{"name": name} for name in names]})


def _volumes(*volumes: tuple[str, Any]) -> Doc:
    return _patched(volumes=[{"name": name, "emptyDir": dir_} for name, dir_ in volumes])


def _trainer(image: str, *env: str) -> Doc:
    return trainjob(trainer={"image": image, "env": [{"name": n, "value": "1"} for n in env]})


def _jobset(**fields: Any) -> Doc:
    return runtime(template=jobset_spec(**fields))


def _depends(status: str, *, reorder: bool = False) -> Doc:
    later = {**replicated_job("node"), "dependsOn": [{"name": "init", "status": status}]}
    jobs = [later, replicated_job("init")] if reorder else [replicated_job("init"), later]
    return runtime(template={"spec": {"replicatedJobs": jobs}})


def _claims(size: str, *labels: str) -> Doc:
    claim = {
        "metadata": {"name": "data", "labels": dict.fromkeys(labels, "x")},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}},
    }
    return _jobset(volumeClaimPolicies=[{"templates": [claim]}])


_DEFAULT_MANAGER = "trainer.kubeflow.org/trainjob-controller"

#: Every transition rule id of the model except ``trainjob.patch-manager-immutable``
#: (see :func:`test_a_renamed_patch_manager_is_a_new_patch`).
EDITS: dict[str, Edit] = {
    "trainjob.deadline-immutable": Edit(
        trainjob(activeDeadlineSeconds=3600),
        trainjob(activeDeadlineSeconds=7200),
        "spec.activeDeadlineSeconds",
        trainjob(activeDeadlineSeconds=3600),
    ),
    "trainjob.initializer-immutable": Edit(
        trainjob(
            initializer={
                "dataset": {
                    "storageUri": "hf://a",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                }
            }
        ),
        trainjob(
            initializer={
                "dataset": {
                    "storageUri": "hf://b",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                }
            }
        ),
        "spec.initializer",
        trainjob(
            initializer={
                "dataset": {
                    "storageUri": "hf://a",
                    "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}],
                }
            }
        ),
    ),
    "trainjob.managed-by-immutable": Edit(
        trainjob(),
        trainjob(managedBy="kueue.x-k8s.io/multikueue"),
        "spec.managedBy",
        trainjob(managedBy=_DEFAULT_MANAGER),
    ),
    "trainjob.patch-containers-immutable": _containers("containers"),
    "trainjob.patch-image-pull-secrets-immutable": Edit(
        _named_items("imagePullSecrets", "a", "b"),
        _named_items("imagePullSecrets", "a", "c"),
        f"{POD_SPEC}.imagePullSecrets",
        _named_items("imagePullSecrets", "b", "a"),
    ),
    "trainjob.patch-security-context-immutable": Edit(
        _patched(securityContext={"runAsUser": 1000}),
        _patched(securityContext={"runAsUser": 1001}),
        f"{POD_SPEC}.securityContext",
        _patched(securityContext={"runAsUser": 1000}),
    ),
    "trainjob.patch-service-account-immutable": Edit(
        _patched(serviceAccountName="a"),
        _patched(serviceAccountName="b"),
        f"{POD_SPEC}.serviceAccountName",
        _patched(serviceAccountName="a"),
    ),
    "trainjob.patch-grace-period-immutable": Edit(
        _patched(terminationGracePeriodSeconds=30),
        _patched(terminationGracePeriodSeconds=60),
        f"{POD_SPEC}.terminationGracePeriodSeconds",
        _patched(terminationGracePeriodSeconds=30),
    ),
    "trainjob.patch-volumes-immutable": Edit(
        _volumes(("data", {}), ("cache", {})),
        _volumes(("data", {"medium": "Memory"}), ("cache", {})),
        f"{POD_SPEC}.volumes",
        _volumes(("cache", {}), ("data", {})),
    ),
    "trainjob.runtime-ref-immutable": Edit(
        trainjob(),
        trainjob(runtimeRef={"name": "other"}),
        "spec.runtimeRef",
        trainjob(runtimeRef={"name": "torch-distributed", "kind": "ClusterTrainingRuntime"}),
    ),
    "trainjob.trainer-immutable": Edit(
        _trainer("a:1", "A", "B"),
        _trainer("a:2", "A", "B"),
        "spec.trainer",
        _trainer("a:1", "B", "A"),
    ),
    "jobset.failure-policy-immutable": Edit(
        _jobset(failurePolicy={"maxRestarts": 1}),
        _jobset(failurePolicy={"maxRestarts": 2}),
        "spec.template.spec.failurePolicy",
        _jobset(failurePolicy={"maxRestarts": 1}),
    ),
    "jobset.network-immutable": Edit(
        _jobset(network={"enableDNSHostnames": True}),
        _jobset(network={"enableDNSHostnames": False}),
        "spec.template.spec.network",
        _jobset(network={"enableDNSHostnames": True}),
    ),
    "jobset.depends-on-immutable": Edit(
        _depends("Ready"),
        _depends("Complete"),
        "spec.template.spec.replicatedJobs[1].dependsOn",
        _depends("Ready", reorder=True),
    ),
    "jobset.startup-policy-immutable": Edit(
        _jobset(startupPolicy={"startupPolicyOrder": "AnyOrder"}),
        _jobset(startupPolicy={"startupPolicyOrder": "InOrder"}),
        "spec.template.spec.startupPolicy",
        _jobset(startupPolicy={"startupPolicyOrder": "AnyOrder"}),
    ),
    "jobset.success-policy-immutable": Edit(
        _jobset(successPolicy={"operator": "All"}),
        _jobset(successPolicy={"operator": "Any"}),
        "spec.template.spec.successPolicy",
        _jobset(successPolicy={"operator": "All"}),
    ),
    "jobset.volume-claim-policies-immutable": Edit(
        _claims("1Gi", "a", "b"),
        _claims("2Gi", "a", "b"),
        "spec.template.spec.volumeClaimPolicies",
        _claims("1Gi", "b", "a"),
    ),
}
#: Rules declared at more than one place: the other places.
MORE_EDITS: dict[str, list[Edit]] = {
    "trainjob.patch-containers-immutable": [_containers("initContainers")],
}
_UNTESTABLE = {"trainjob.patch-manager-immutable"}


def _kinds(rule_id: str) -> tuple[str, ...]:
    return ("TrainJob",) if rule_id.startswith("trainjob.") else RUNTIME_KINDS


PARAMETERS = [
    pytest.param(rule_id, edit, kind, id=f"{rule_id}-{index}-{kind}")
    for rule_id, first in EDITS.items()
    for index, edit in enumerate([first, *MORE_EDITS.get(rule_id, [])])
    for kind in _kinds(rule_id)
]


def _check(old: Doc, new: Doc, kind: str) -> list[tuple[str, str | None]]:
    old, new = {**old, "kind": kind}, {**new, "kind": kind}
    assert structural_problems(old, kind) == []
    assert structural_problems(new, kind) == []
    return codes(transitions(old, new, load_kind_schema(kind)))


def test_every_transition_rule_id_has_an_edit() -> None:
    expected = {rule_id for rule_id, marker in model_rules().items() if is_transition(marker)}
    assert set(EDITS) | _UNTESTABLE == expected


@pytest.mark.parametrize(("rule_id", "edit", "kind"), PARAMETERS)
def test_an_edit_yields_exactly_its_rule(rule_id: str, edit: Edit, kind: str) -> None:
    assert _check(edit.old, edit.new, kind) == [(f"cel.{rule_id}", edit.path)]


@pytest.mark.parametrize(("rule_id", "edit", "kind"), PARAMETERS)
def test_no_change_or_a_reordering_yields_nothing(rule_id: str, edit: Edit, kind: str) -> None:
    assert _check(edit.old, edit.old, kind) == []
    assert _check(edit.old, edit.same, kind) == []


def test_a_renamed_patch_manager_is_a_new_patch() -> None:
    """runtimePatches is a map list keyed by manager, so a renamed manager is another item.

    Nothing correlates with it, and Kubernetes does not run the rule on it: the upstream
    ``manager`` immutability rule can never fail, and neither does trainc's.
    """
    old = trainjob(runtimePatches=[{"manager": "example.com/a"}])
    new = trainjob(runtimePatches=[{"manager": "example.com/b"}])
    assert _check(old, new, "TrainJob") == []


def test_the_hint_says_what_changed() -> None:
    edit = EDITS["trainjob.trainer-immutable"]
    (found,) = transitions(edit.old, edit.new, load_kind_schema("TrainJob"))
    assert found.message == "field is immutable"
    assert found.hint == 'changed spec.trainer.image: "a:1" → "a:2"; rule: self == oldSelf'


# --- correlation semantics ------------------------------------------------------------------

STRING = {"type": "string"}
IMMUTABLE = [rule("self == oldSelf", "x.immutable", "field is immutable")]


def _item(**extra: Any) -> Any:
    return {
        "type": "object",
        "properties": {"name": STRING, "value": {**STRING, "x-kubernetes-validations": IMMUTABLE}},
        **extra,
    }


def _list_schema(list_type: str, **extra: Any) -> Any:
    return schema_of(
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": _item(),
                    "x-kubernetes-list-type": list_type,
                    **extra,
                },
            },
        }
    )


def _values(*pairs: tuple[str, str]) -> Doc:
    return {"items": [{"name": name, "value": value} for name, value in pairs]}


def test_map_list_items_correlate_by_key_wherever_they_are() -> None:
    schema = _list_schema("map", **{"x-kubernetes-list-map-keys": ["name"]})
    old = _values(("a", "1"), ("b", "2"))
    assert codes(transitions(old, _values(("b", "2"), ("a", "1")), schema)) == []
    assert codes(transitions(old, _values(("b", "3"), ("a", "1")), schema)) == [
        ("cel.x.immutable", "items[0].value")
    ]
    assert codes(transitions(old, _values(("c", "3")), schema)) == []


@pytest.mark.parametrize("list_type", ["atomic", "set"])
def test_items_of_atomic_and_set_lists_never_correlate(list_type: str) -> None:
    schema = _list_schema(list_type)
    assert transitions(_values(("a", "1")), _values(("a", "2")), schema) == []


def test_map_keys_missing_from_an_item_take_their_default() -> None:
    item = _item()
    item["properties"]["name"] = {**STRING, "default": "main"}
    schema = schema_of(
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": item,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                }
            },
        }
    )
    old = {"items": [{"value": "1"}]}
    new = {"items": [{"name": "main", "value": "2"}]}
    assert codes(transitions(old, new, schema)) == [("cel.x.immutable", "items[0].value")]


def test_rules_do_not_run_where_the_old_object_has_no_value() -> None:
    schema = _list_schema("map", **{"x-kubernetes-list-map-keys": ["name"]})
    assert transitions({}, _values(("a", "1")), schema) == []
    assert transitions({"items": [{"name": "a"}]}, _values(("a", "1")), schema) == []


def test_equality_on_sets_and_map_lists_ignores_order_at_any_depth() -> None:
    schema = schema_of(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "x-kubernetes-validations": IMMUTABLE,
                    "properties": {
                        "tags": {"type": "array", "items": STRING, "x-kubernetes-list-type": "set"},
                        "order": {
                            "type": "array",
                            "items": STRING,
                            "x-kubernetes-list-type": "atomic",
                        },
                    },
                }
            },
        }
    )
    old = {"spec": {"tags": ["a", "b"], "order": ["a", "b"]}}
    assert transitions(old, {"spec": {"tags": ["b", "a"], "order": ["a", "b"]}}, schema) == []
    assert codes(transitions(old, {"spec": {"tags": ["a", "b"], "order": ["b", "a"]}}, schema)) == [
        ("cel.x.immutable", "spec")
    ]


def test_optional_old_self_sees_the_old_value_or_none() -> None:
    growing = {
        "rule": "!oldSelf.hasValue() || self >= oldSelf.value()",
        "message": "may only grow",
        "optionalOldSelf": True,
        "x-trainc-id": "x.grow",
    }
    created = {
        "rule": "oldSelf.hasValue() || self == 1",
        "message": "starts at 1",
        "optionalOldSelf": True,
        "x-trainc-id": "x.first",
    }
    schema = schema_of(
        {
            "type": "object",
            "properties": {
                "size": {
                    "type": "integer",
                    "x-kubernetes-validations": [growing, created],
                }
            },
        }
    )
    assert transitions({"size": 2}, {"size": 3}, schema) == []
    assert codes(transitions({"size": 3}, {"size": 2}, schema)) == [("cel.x.grow", "size")]
    assert codes(transitions({}, {"size": 2}, schema)) == [("cel.x.first", "size")]


def test_other_transition_rules_see_both_values() -> None:
    schema = schema_of(
        {
            "type": "object",
            "properties": {
                "size": {
                    "type": "integer",
                    "x-kubernetes-validations": [rule("self >= oldSelf", "x.grow")],
                }
            },
        }
    )
    assert transitions({"size": 2}, {"size": 3}, schema) == []
    (found,) = transitions({"size": 3}, {"size": 2}, schema)
    assert found.hint == "changed size: 3 → 2; rule: self >= oldSelf"


# --- hostile input ------------------------------------------------------------------------

_PAIRS = [
    (kind, {**edit.old, "kind": kind}, {**edit.new, "kind": kind})
    for rule_id, edit in EDITS.items()
    for kind in _kinds(rule_id)
]


@given(data=st.data())
def test_no_input_makes_check_transitions_raise(data: st.DataObject) -> None:
    kind, old, new = data.draw(st.sampled_from(_PAIRS))
    documents = []
    for document in (old, new):
        path = data.draw(st.sampled_from(paths_of(document)))
        hostile = drop_nulls(replaced(document, path, data.draw(HOSTILE)))
        assert isinstance(hostile, dict)
        documents.append(hostile)
    before, after = documents
    found = check_transitions(undefaulted(after), undefaulted(before), load_kind_schema(kind))
    assert all(d.code.startswith("cel.") for d in found)
