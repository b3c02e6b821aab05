"""Two compile outputs compared: only what differs, by owner, in the canonical order."""

from __future__ import annotations

from trainc.diff.changes import SHARED, Change, Emitted, compare
from trainc.model.json import JsonObject, JsonValue


def obj(kind: str, name: str, namespace: str | None = "ml", **spec: JsonValue) -> JsonObject:
    metadata: JsonObject = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": "v1", "kind": kind, "metadata": metadata, "spec": dict(spec)}


def test_unchanged_objects_make_no_noise() -> None:
    same = Emitted({"ml/a": [obj("JobSet", "a", image="x")]}, [obj("CronJob", "sweeper")])
    assert compare(same, same) == ()


def test_added_removed_and_changed_objects_by_owner_then_canonical_order() -> None:
    before = Emitted(
        {"ml/a": [obj("JobSet", "a", image="old")], "ml/gone": [obj("JobSet", "gone")]},
        [obj("CronJob", "sweeper", schedule="*/5 * * * *")],
    )
    after = Emitted(
        {
            "ml/a": [obj("JobSet", "a", image="new"), obj("PodGroup", "a")],
            "ml/new": [obj("JobSet", "new")],
        },
        [obj("CronJob", "sweeper", schedule="*/10 * * * *")],
    )

    changes = compare(before, after)

    assert [(c.owner, c.title, c.change) for c in changes] == [
        ("ml/a", "PodGroup ml/a", Change.ADDED),
        ("ml/a", "JobSet ml/a", Change.CHANGED),
        ("ml/gone", "JobSet ml/gone", Change.REMOVED),
        ("ml/new", "JobSet ml/new", Change.ADDED),
        (SHARED, "CronJob ml/sweeper", Change.CHANGED),
    ]
    changed = changes[1]
    assert "-  image: old" in changed.unified("HEAD", "working tree")
    assert "+  image: new" in changed.unified("HEAD", "working tree")
    assert changes[2].after == ""
    assert changes[2].unified("HEAD", "w")[1] == "+++ /dev/null"


def test_only_a_changed_jobset_carries_the_refusals_of_its_trainjob() -> None:
    before = Emitted({"ml/a": [obj("JobSet", "a", image="x"), obj("PodGroup", "a", n=1)]})
    after = Emitted({"ml/a": [obj("JobSet", "a", image="y"), obj("PodGroup", "a", n=2)]})

    changes = compare(before, after, lambda owner: [f"{owner}: immutable"])

    assert {c.kind: c.refusals for c in changes} == {
        "JobSet": ("ml/a: immutable",),
        "PodGroup": (),
    }


def test_a_cluster_scoped_object_is_named_without_namespace() -> None:
    (change,) = compare(Emitted({}), Emitted({}, [obj("ClusterRole", "sweeper", namespace=None)]))
    assert change.title == "ClusterRole sweeper"
    assert change.unified("HEAD", "w")[1].startswith("+++ b/ClusterRole/sweeper")
