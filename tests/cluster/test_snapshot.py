"""The pure part of ``trainc cluster pull``: what is read, what is kept, where it goes."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.checks.admission.policies.resources import Resource
from trainc.cluster.snapshot import (
    LAST_APPLIED,
    PULLED_KINDS,
    ParamFetch,
    file_path,
    group_versions,
    label_selector_text,
    param_fetches,
    resource_of_kind,
    served_resource,
    snapshot_files,
    stripped,
)
from trainc.model.json import JsonObject

LIMIT_RANGE = Resource("", "v1", "limitranges", "LimitRange", namespaced=True)
LOCAL_QUEUE = Resource("kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue", namespaced=True)
FLAVOR = Resource("kueue.x-k8s.io", "v1beta2", "resourceflavors", "ResourceFlavor", False)


def kind(name: str) -> Any:
    return next(k for k in PULLED_KINDS if k.kind == name)


def test_server_set_fields_and_status_are_dropped() -> None:
    live: JsonObject = {
        "metadata": {
            "name": "limits",
            "namespace": "team-a",
            "uid": "0b0e",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "deletionTimestamp": "2025-01-02T00:00:00Z",
            "deletionGracePeriodSeconds": 30,
            "selfLink": "/api/v1/namespaces/team-a/limitranges/limits",
            "managedFields": [{"manager": "kubectl"}],
            "finalizers": ["example.com/keep"],
            "generateName": "limits-",
            "labels": {"team": "a"},
            "annotations": {LAST_APPLIED: "{...}", "owner": "platform"},
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Namespace", "name": "team-a", "uid": "77"}
            ],
        },
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "8"}}]},
        "status": {"anything": True},
    }
    assert stripped(live, LIMIT_RANGE) == {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {
            "name": "limits",
            "namespace": "team-a",
            "labels": {"team": "a"},
            "annotations": {"owner": "platform"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Namespace", "name": "team-a"}],
        },
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "8"}}]},
    }


def test_empty_metadata_maps_vanish_and_top_level_fields_stay() -> None:
    priority = Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False)
    live: JsonObject = {
        "metadata": {"name": "high", "annotations": {LAST_APPLIED: "{}"}, "labels": {}},
        "value": 1000,
        "globalDefault": False,
    }
    assert stripped(live, priority) == {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "globalDefault": False,
    }


def test_files_per_namespace_and_kind_sorted_by_name() -> None:
    def queue(name: str, namespace: str) -> dict[str, Any]:
        return {"metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": "q"}}

    files = snapshot_files(
        [
            (LOCAL_QUEUE, queue("z", "team-b")),
            (LOCAL_QUEUE, queue("b", "team-a")),
            (LOCAL_QUEUE, queue("a", "team-a")),
            (FLAVOR, {"metadata": {"name": "gpu"}, "spec": {}}),
        ]
    )
    assert list(files) == [
        "cluster/resourceflavors.kueue.x-k8s.io.yaml",
        "namespaces/team-a/localqueues.kueue.x-k8s.io.yaml",
        "namespaces/team-b/localqueues.kueue.x-k8s.io.yaml",
    ]
    assert files["namespaces/team-a/localqueues.kueue.x-k8s.io.yaml"].decode() == (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: a\n"
        "  namespace: team-a\nspec:\n  clusterQueue: q\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: b\n"
        "  namespace: team-a\nspec:\n  clusterQueue: q\n"
    )


def test_an_object_read_twice_is_written_once() -> None:
    obj: JsonObject = {"metadata": {"name": "limits", "namespace": "team-a"}, "spec": {}}
    files = snapshot_files([(LIMIT_RANGE, obj), (LIMIT_RANGE, dict(obj))])
    assert files["namespaces/team-a/limitranges.yaml"].decode().count("kind: LimitRange") == 1


def test_core_kinds_have_no_group_in_their_file_name() -> None:
    namespace = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
    assert file_path(namespace, "") == "cluster/namespaces.yaml"
    assert file_path(LIMIT_RANGE, "ml") == "namespaces/ml/limitranges.yaml"


def test_kueue_prefers_v1beta2_and_falls_back_to_v1beta1() -> None:
    queue = kind("LocalQueue")
    both = {
        ("kueue.x-k8s.io", "v1beta2"): {"localqueues": LOCAL_QUEUE},
        ("kueue.x-k8s.io", "v1beta1"): {"localqueues": LOCAL_QUEUE},
    }
    assert served_resource(queue, both) == queue.resource("v1beta2")
    old = {("kueue.x-k8s.io", "v1beta2"): None, ("kueue.x-k8s.io", "v1beta1"): {"localqueues": 1}}
    assert served_resource(queue, old) == queue.resource("v1beta1")  # type: ignore[arg-type]
    assert served_resource(queue, {}) is None


def test_a_served_group_without_the_resource_does_not_serve_the_kind() -> None:
    # admissionregistration.k8s.io/v1 is served long before ValidatingAdmissionPolicy is.
    old_cluster = {("admissionregistration.k8s.io", "v1"): {"validatingwebhookconfigurations": 1}}
    policy = kind("ValidatingAdmissionPolicy")
    assert served_resource(policy, old_cluster) is None  # type: ignore[arg-type]


def test_core_kinds_are_not_discovered() -> None:
    pairs = group_versions(PULLED_KINDS)
    assert ("", "v1") not in pairs
    assert pairs == [
        ("admissionregistration.k8s.io", "v1"),
        ("kueue.x-k8s.io", "v1beta2"),
        ("kueue.x-k8s.io", "v1beta1"),
    ]
    assert served_resource(kind("ResourceQuota"), {}) is not None


def test_resource_of_kind_skips_subresources() -> None:
    status = Resource("", "v1", "resourcequotas/status", "ResourceQuota", True)
    quota = Resource("", "v1", "resourcequotas", "ResourceQuota", True)
    assert (
        resource_of_kind(
            {"resourcequotas/status": status, "resourcequotas": quota}, "ResourceQuota"
        )
        == quota
    )


def policy(name: str, param_kind: dict[str, str] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"validations": [{"expression": "true"}]}
    if param_kind is not None:
        spec["paramKind"] = param_kind
    return {"metadata": {"name": name}, "spec": spec}


def binding(name: str, policy_name: str, param_ref: dict[str, Any] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy_name, "validationActions": ["Deny"]}
    if param_ref is not None:
        spec["paramRef"] = param_ref
    return {"metadata": {"name": name}, "spec": spec}


CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap"}


def test_param_fetches_follow_each_binding_to_its_policys_param_kind() -> None:
    policies = [policy("registry", CONFIG_MAP), policy("plain", None)]
    selector: JsonObject = {"matchLabels": {"policy": "registry"}}
    bindings = [
        binding("by-name", "registry", {"name": "allowed", "namespace": "platform"}),
        binding("again", "registry", {"name": "allowed", "namespace": "platform"}),
        binding("by-selector", "registry", {"selector": selector}),
        binding("no-params", "plain", {"name": "ignored"}),
        binding("no-policy", "missing", {"name": "ignored"}),
        binding("no-ref", "registry", None),
    ]
    assert param_fetches(policies, bindings) == [
        ParamFetch("v1", "ConfigMap", "", "", "policy=registry", selector),
        ParamFetch("v1", "ConfigMap", "platform", "allowed"),
    ]


def test_a_fetch_keeps_what_its_reference_names() -> None:
    by_name = ParamFetch("v1", "ConfigMap", "platform", "allowed")
    assert by_name.keeps({"metadata": {"name": "allowed", "namespace": "platform"}})
    assert not by_name.keeps({"metadata": {"name": "allowed", "namespace": "other"}})
    assert not by_name.keeps({"metadata": {"name": "other", "namespace": "platform"}})
    selector: JsonObject = {
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["gpu"]}]
    }
    by_selector = ParamFetch("v1", "ConfigMap", "", "", "tier in (gpu)", selector)
    assert by_selector.keeps({"metadata": {"name": "x", "labels": {"tier": "gpu"}}})
    assert not by_selector.keeps({"metadata": {"name": "x", "labels": {"tier": "cpu"}}})


@pytest.mark.parametrize(
    ("selector", "text"),
    [
        ({}, ""),
        ({"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2"),
        (
            {
                "matchLabels": {"team": "ml"},
                "matchExpressions": [
                    {"key": "tier", "operator": "NotIn", "values": ["z", "a"]},
                    {"key": "env", "operator": "In", "values": ["prod"]},
                    {"key": "gpu", "operator": "Exists"},
                    {"key": "cpu", "operator": "DoesNotExist"},
                ],
            },
            "!cpu,env in (prod),gpu,team=ml,tier notin (a,z)",
        ),
    ],
)
def test_label_selector_text(selector: dict[str, Any], text: str) -> None:
    assert label_selector_text(selector) == text
