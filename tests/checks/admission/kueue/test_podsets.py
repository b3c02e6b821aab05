"""PodSets as Kueue's JobSet integration makes them, and what their pods request."""

from __future__ import annotations

import pytest

from trainc.checks.admission.kueue import Adjustments, jobset_pod_sets, pod_set
from trainc.checks.admission.kueue.podsets import pods_per_replica
from trainc.checks.admission.limit_ranges import LimitRange, limit_range_from_json
from trainc.model.json import JsonObject, JsonValue


def replicated(name: str, replicas: int | None, **job: JsonValue) -> JsonObject:
    found: JsonObject = {
        "name": name,
        "template": {
            "spec": {
                **job,
                "template": {
                    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
                },
            }
        },
    }
    if replicas is not None:
        found["replicas"] = replicas
    return found


def test_upstream_pod_sets() -> None:
    """``TestPodSets``: replicas times the pods one Job runs at once."""
    jobset: JsonObject = {
        "spec": {
            "replicatedJobs": [
                replicated("job1", 2, parallelism=1, completions=1),
                replicated("job2", 3, parallelism=2, completions=3),
            ]
        }
    }
    found = jobset_pod_sets(jobset)
    assert [(p.name, p.count, p.requests) for p in found] == [
        ("job1", 2, {"cpu": 2000}),
        ("job2", 6, {"cpu": 6000}),
    ]


@pytest.mark.parametrize(
    ("job", "pods"),
    [
        ({}, 1),
        ({"parallelism": 4}, 4),
        ({"parallelism": 4, "completions": 2}, 2),
        ({"parallelism": 2, "completions": 8}, 2),
        ({"completions": 3}, 1),
    ],
)
def test_pods_per_replica(job: JsonObject, pods: int) -> None:
    assert pods_per_replica(job) == pods


def test_replicas_default_to_one() -> None:
    assert jobset_pod_sets({"spec": {"replicatedJobs": [replicated("node", None)]}})[0].count == 1


def test_limits_stand_in_for_missing_requests() -> None:
    """A GPU given only as a limit is requested as much (``UseLimitsAsMissingRequestsInPod``)."""
    spec: JsonObject = {
        "containers": [
            {
                "name": "node",
                "resources": {
                    "requests": {"cpu": "4", "memory": "16Gi"},
                    "limits": {"cpu": "8", "nvidia.com/gpu": "2"},
                },
            }
        ]
    }
    assert pod_set("node", 4, spec).requests == {
        "cpu": 16000,
        "memory": 4 * 16 * 2**30,
        "nvidia.com/gpu": 8,
    }


def test_init_containers_sidecars_and_overhead() -> None:
    """The pod's effective requests, as ``PodRequests`` sums them."""
    spec: JsonObject = {
        "initContainers": [
            {"name": "fetch", "resources": {"requests": {"cpu": "6"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
        ],
        "containers": [{"name": "node", "resources": {"requests": {"cpu": "2"}}}],
        "overhead": {"cpu": "250m"},
    }
    # max(init 6, containers 2 + sidecar 1) + overhead.
    assert pod_set("node", 1, spec).requests == {"cpu": 6250}


def limit_range(name: str, *items: JsonObject) -> LimitRange:
    return limit_range_from_json({"metadata": {"name": name}, "spec": {"limits": list(items)}})


def test_limit_range_defaults_first_item_wins() -> None:
    """Kueue's ``Summarize``: the first Container default wins, within a LimitRange too."""
    ranges = [
        limit_range(
            "a",
            {"type": "Container", "default": {"nvidia.com/gpu": "1"}},
            {"type": "Container", "default": {"nvidia.com/gpu": "2", "cpu": "2"}},
        ),
        limit_range("b", {"type": "Container", "defaultRequest": {"cpu": "500m"}}),
    ]
    spec: JsonObject = {
        "containers": [{"name": "node", "resources": {"requests": {"memory": "1Gi"}}}]
    }
    requests = pod_set("node", 2, spec, Adjustments(limit_ranges=ranges)).requests
    # The stored LimitRange "a" requests its default limits: gpu 1 and cpu 2 win over b's 500m.
    assert requests == {"memory": 2 * 2**30, "nvidia.com/gpu": 2, "cpu": 4000}


def test_a_container_keeps_what_it_sets() -> None:
    ranges = [limit_range("a", {"type": "Container", "default": {"cpu": "2"}})]
    spec: JsonObject = {"containers": [{"name": "node", "resources": {"requests": {"cpu": "8"}}}]}
    assert pod_set("node", 1, spec, Adjustments(limit_ranges=ranges)).requests == {"cpu": 8000}


@pytest.mark.parametrize(
    ("overhead", "cpu"),
    [(None, 1250), ({"cpu": "100m"}, 1100)],
)
def test_the_runtime_class_overhead(overhead: JsonValue, cpu: int) -> None:
    """The RuntimeClass's overhead counts, unless the template sets its own."""
    spec: JsonObject = {
        "runtimeClassName": "kata",
        "containers": [{"name": "node", "resources": {"requests": {"cpu": "1"}}}],
    }
    if overhead is not None:
        spec["overhead"] = overhead
    adjust = Adjustments(overheads={"kata": {"cpu": "250m"}})
    assert pod_set("node", 1, spec, adjust).requests == {"cpu": cpu}
