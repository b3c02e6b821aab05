"""The queue lookup of Kueue's Workload controller, in its own words."""

from __future__ import annotations

import pytest

from trainc.checks.admission.kueue import (
    Blocker,
    cluster_queue_from_json,
    local_queue_from_json,
    lookup,
)
from trainc.checks.admission.kueue.api import ClusterQueue, LocalQueue
from trainc.checks.admission.kueue.queues import inactive_message
from trainc.model.json import JsonObject, JsonValue

TEAM = {"kubernetes.io/metadata.name": "ml", "team": "research"}


def local(name: str = "user-queue", namespace: str = "ml", **spec: JsonValue) -> LocalQueue:
    return local_queue_from_json(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": "cluster-queue", **spec},
        }
    )


def cluster(spec: JsonObject | None = None, version: str = "v1beta2") -> ClusterQueue:
    obj: JsonObject = {
        "apiVersion": f"kueue.x-k8s.io/{version}",
        "kind": "ClusterQueue",
        "metadata": {"name": "cluster-queue"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {"name": "default", "resources": [{"name": "cpu", "nominalQuota": 9}]}
                    ],
                }
            ],
            **(spec or {}),
        },
    }
    return cluster_queue_from_json(obj)


def blocker(
    locals_: list[LocalQueue],
    clusters: list[ClusterQueue],
    labels: dict[str, str] | None = TEAM,
    flavors: tuple[str, ...] = ("default",),
) -> Blocker | None:
    found = lookup(
        "user-queue",
        "ml",
        local_queues=locals_,
        cluster_queues=clusters,
        flavors=flavors,
        namespace_labels=labels,
    )
    assert (found.queue is None) != (found.blocker is None)
    return found.blocker


EVERYTHING: JsonObject = {}


def test_the_queue_is_found() -> None:
    assert blocker([local()], [cluster({"namespaceSelector": EVERYTHING})]) is None


def test_a_missing_local_queue() -> None:
    assert blocker([local(namespace="other")], [cluster()]) == Blocker(
        "Misconfigured", "LocalQueue user-queue doesn't exist"
    )


def test_a_stopped_local_queue() -> None:
    assert blocker([local(stopPolicy="Hold")], [cluster()]) == Blocker(
        "Suspended", "LocalQueue user-queue is inactive"
    )


def test_a_missing_cluster_queue() -> None:
    assert blocker([local()], []) == Blocker(
        "Misconfigured", "ClusterQueue cluster-queue doesn't exist"
    )


@pytest.mark.parametrize(
    ("spec", "flavors", "message"),
    [
        ({"stopPolicy": "HoldAndDrain"}, ("default",), "Can't admit new workloads: is stopped."),
        (
            {},
            (),
            "Can't admit new workloads: references missing ResourceFlavor(s): default.",
        ),
    ],
)
def test_an_inactive_cluster_queue(
    spec: JsonObject, flavors: tuple[str, ...], message: str
) -> None:
    queue = cluster({"namespaceSelector": EVERYTHING, **spec})
    assert inactive_message(queue, flavors) == message
    assert blocker([local()], [queue], flavors=flavors) == Blocker(
        "Suspended", "ClusterQueue cluster-queue is inactive"
    )


MISMATCH = Blocker("Misconfigured", "workload namespace doesn't match ClusterQueue selector")


@pytest.mark.parametrize(
    ("selector", "labels", "expect"),
    [
        # The API's default: no selector selects no namespace.
        (None, TEAM, MISMATCH),
        (None, None, MISMATCH),
        ({}, TEAM, None),
        ({}, None, None),
        ({"matchLabels": {"team": "research"}}, TEAM, None),
        ({"matchLabels": {"team": "vision"}}, TEAM, MISMATCH),
        (
            {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["research"]}]},
            TEAM,
            MISMATCH,
        ),
        # No Namespace object known: a real selector cannot be judged.
        ({"matchLabels": {"team": "vision"}}, None, None),
    ],
)
def test_the_namespace_selector(
    selector: JsonValue, labels: dict[str, str] | None, expect: Blocker | None
) -> None:
    spec: JsonObject = {} if selector is None else {"namespaceSelector": selector}
    assert blocker([local()], [cluster(spec)], labels=labels) == expect


@pytest.mark.parametrize(("version", "key"), [("v1beta1", "cohort"), ("v1beta2", "cohortName")])
def test_the_cohort_in_either_version(version: str, key: str) -> None:
    assert cluster({key: "research"}, version).cohort == "research"
