from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trainc.emit.order import KIND_ORDER, ObjectId, object_id, sort_objects
from trainc.model.json import JsonObject


def _obj(kind: str, name: str, namespace: str | None = None, api: str = "v1") -> JsonObject:
    metadata: JsonObject = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": api, "kind": kind, "metadata": metadata}


def test_kinds_come_in_dependency_order_then_unknown_kinds_by_name() -> None:
    objects = [_obj(kind, "x", "ns") for kind in reversed(KIND_ORDER)]
    objects += [_obj("Zebra", "x", "ns"), _obj("Alpaca", "x", "ns")]
    assert [obj["kind"] for obj in sort_objects(objects)] == [
        "Namespace",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "ConfigMap",
        "Secret",
        "PersistentVolumeClaim",
        "PodGroup",
        "JobSet",
        "CronJob",
        "Alpaca",
        "Zebra",
    ]


def test_within_a_kind_namespace_then_name_then_api_version() -> None:
    volcano = "scheduling.volcano.sh/v1beta1"
    coscheduling = "scheduling.x-k8s.io/v1alpha1"
    objects = [
        _obj("PodGroup", "b", "team-a", volcano),
        _obj("PodGroup", "a", "team-b", coscheduling),
        _obj("PodGroup", "b", "team-a", coscheduling),
        _obj("PodGroup", "a", "team-a", volcano),
    ]
    assert [object_id(obj) for obj in sort_objects(objects)] == [
        ObjectId("PodGroup", "team-a", "a", volcano),
        ObjectId("PodGroup", "team-a", "b", volcano),  # scheduling.v... < scheduling.x...
        ObjectId("PodGroup", "team-a", "b", coscheduling),
        ObjectId("PodGroup", "team-b", "a", coscheduling),
    ]


def test_cluster_scoped_objects_sort_before_namespaced_ones_of_their_kind() -> None:
    objects = [_obj("Role", "r", "ns"), _obj("Role", "r")]
    assert [object_id(obj).namespace for obj in sort_objects(objects)] == ["", "ns"]


def test_missing_or_malformed_fields_read_as_empty() -> None:
    assert object_id({"kind": 3, "metadata": "oops"}) == ObjectId("", "", "", "")
    assert sort_objects([_obj("JobSet", "a"), {}]) == [_obj("JobSet", "a"), {}]


@given(
    st.permutations(
        [_obj(kind, name, ns) for kind in KIND_ORDER[:4] for name in "ab" for ns in "xy"]
    )
)
def test_the_order_does_not_depend_on_the_input_order(objects: list[JsonObject]) -> None:
    canonical = sort_objects(sorted(objects, key=str))
    assert sort_objects(objects) == canonical
