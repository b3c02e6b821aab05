"""LimitRanger end to end: stored defaults, pod defaulting, several LimitRanges, ML pods."""

from __future__ import annotations

from tests.checks.admission.limit_ranges.corpus import NEWEST
from trainc.checks.admission.limit_ranges import (
    ANNOTATION,
    admit_claim,
    admit_pod,
    apply_defaults,
    container_defaults,
    limit_range_from_json,
    ordered,
)
from trainc.checks.admission.resource_lists import forbidden
from trainc.model.json import JsonObject, JsonValue


def limit_range(name: str, *items: JsonObject) -> JsonObject:
    return {"metadata": {"name": name}, "spec": {"limits": list[JsonValue](items)}}


def container(
    name: str, requests: JsonObject | None = None, limits: JsonObject | None = None
) -> JsonObject:
    resources: JsonObject = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "resources": resources}


def resources_of(spec: JsonObject, index: int = 0, key: str = "containers") -> JsonValue:
    found = spec[key]
    assert isinstance(found, list)
    entry = found[index]
    assert isinstance(entry, dict)
    return entry["resources"]


VALID = limit_range(
    "abc",
    {
        "type": "Pod",
        "max": {"cpu": "200m", "memory": "4Gi"},
        "min": {"cpu": "50m", "memory": "2Mi"},
    },
    {
        "type": "Container",
        "max": {"cpu": "100m", "memory": "2Gi"},
        "min": {"cpu": "25m", "memory": "1Mi"},
        "default": {"cpu": "75m", "memory": "10Mi"},
        "defaultRequest": {"cpu": "50m", "memory": "5Mi"},
    },
)


def test_default_container_resource_requirements() -> None:
    requests, limits = container_defaults(limit_range_from_json(VALID))
    assert {k: str(v) for k, v in requests.items()} == {"cpu": "50m", "memory": "5Mi"}
    assert {k: str(v) for k, v in limits.items()} == {"cpu": "75m", "memory": "10Mi"}


def test_merge_annotates_what_it_set() -> None:
    lr = limit_range_from_json(VALID)
    spec, note = apply_defaults({"containers": [container("foo-0")]}, [lr])
    assert resources_of(spec) == {
        "limits": {"cpu": "75m", "memory": "10Mi"},
        "requests": {"cpu": "50m", "memory": "5Mi"},
    }
    assert note == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; "
        "cpu, memory limit for container foo-0"
    )
    spec, note = apply_defaults({"containers": [container("foo-0", {"memory": "512Mi"})]}, [lr])
    assert note == (
        "LimitRanger plugin set: cpu request for container foo-0; "
        "cpu, memory limit for container foo-0"
    )
    full = container("foo-0", {"cpu": "100m", "memory": "512Mi"}, {"cpu": "200m", "memory": "1G"})
    spec, note = apply_defaults({"containers": [full]}, [lr])
    assert note == ""
    assert resources_of(spec) == full["resources"]
    assert ANNOTATION == "kubernetes.io/limit-ranger"


def test_init_containers_get_defaults_too() -> None:
    """``TestPodLimitFuncApplyDefault``: containers and init containers alike."""
    spec: JsonObject = {"containers": [container("foo")], "initContainers": [container("init")]}
    defaulted, note = apply_defaults(spec, [limit_range_from_json(VALID)])
    for key in ("containers", "initContainers"):
        assert resources_of(defaulted, key=key) == {
            "limits": {"cpu": "75m", "memory": "10Mi"},
            "requests": {"cpu": "50m", "memory": "5Mi"},
        }
    assert "cpu, memory limit for init container init" in note
    assert spec["containers"] == [container("foo")]  # the input is left alone


def test_stored_limit_range_defaults_max_to_default_and_default_to_request() -> None:
    """A LimitRange written with only ``max`` limits and requests every container at it."""
    only_max = limit_range_from_json(limit_range("cap", {"type": "Container", "max": {"cpu": "2"}}))
    decision = admit_pod([only_max], {"containers": [container("node")]}, NEWEST)
    assert decision.refusal is None
    assert resources_of(decision.spec) == {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}
    with_min = limit_range_from_json(
        limit_range("floor", {"type": "Container", "min": {"memory": "1Gi"}})
    )
    decision = admit_pod([with_min], {"containers": [container("node")]}, NEWEST)
    assert decision.refusal is None
    assert resources_of(decision.spec) == {"requests": {"memory": "1Gi"}}


def test_a_limit_without_request_requests_the_limit_before_the_checks() -> None:
    lr = limit_range_from_json(limit_range("cap", {"type": "Container", "max": {"cpu": "8"}}))
    decision = admit_pod([lr], {"containers": [container("node", limits={"cpu": "16"})]}, NEWEST)
    assert decision.refusal == "maximum cpu usage per Container is 8, but limit is 16"
    assert decision.refused_by == "cap"
    assert forbidden("pods", "train-node-0-0-x7k2p", decision.refusal) == (
        'pods "train-node-0-0-x7k2p" is forbidden: '
        "maximum cpu usage per Container is 8, but limit is 16"
    )


def test_a_request_above_the_max_that_becomes_the_default_limit() -> None:
    """A TrainJob asks for 16 CPUs without a limit: the default limit is the max, 8."""
    lr = limit_range_from_json(limit_range("cap", {"type": "Container", "max": {"cpu": "8"}}))
    decision = admit_pod([lr], {"containers": [container("node", {"cpu": "16"})]}, NEWEST)
    assert decision.refusal == "maximum cpu usage per Container is 8, but request is 16"


def test_a_default_limit_below_the_request_is_left_to_pod_validation() -> None:
    """LimitRanger admits it; the pod it returns has a request above its limit."""
    lr = limit_range_from_json(
        limit_range("defaults", {"type": "Container", "default": {"cpu": "2", "memory": "4Gi"}})
    )
    spec: JsonObject = {
        "containers": [
            container("node", {"cpu": "4", "nvidia.com/gpu": "2"}, {"nvidia.com/gpu": "2"})
        ]
    }
    decision = admit_pod([lr], spec, NEWEST)
    assert decision.refusal is None
    assert resources_of(decision.spec) == {
        "requests": {"cpu": "4", "nvidia.com/gpu": "2", "memory": "4Gi"},
        "limits": {"nvidia.com/gpu": "2", "cpu": "2", "memory": "4Gi"},
    }
    assert decision.annotation == (
        "LimitRanger plugin set: memory request for container node; "
        "cpu, memory limit for container node"
    )


def test_ratio_is_printed_with_six_decimals() -> None:
    lr = limit_range_from_json(
        limit_range("ratio", {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}})
    )
    decision = admit_pod(
        [lr], {"containers": [container("node", {"cpu": "1"}, {"cpu": "4"})]}, NEWEST
    )
    assert decision.refusal == (
        "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"
    )
    decision = admit_pod(
        [lr], {"containers": [container("node", {"cpu": "3"}, {"cpu": "4"})]}, NEWEST
    )
    assert decision.refusal is None


def test_errors_of_one_limit_range_are_aggregated_and_repeats_dropped() -> None:
    lr = limit_range_from_json(
        limit_range(
            "bounds",
            {"type": "Container", "min": {"cpu": "1"}, "max": {"memory": "1Gi"}},
        )
    )
    spec: JsonObject = {
        "containers": [
            container("a", {"cpu": "500m", "memory": "2Gi"}, {"memory": "2Gi"}),
            container("b", {"cpu": "500m"}, {"memory": "512Mi"}),
        ]
    }
    decision = admit_pod([lr], spec, NEWEST)
    assert decision.refusal == (
        "[minimum cpu usage per Container is 1, but request is 500m, "
        "maximum memory usage per Container is 1Gi, but limit is 2Gi]"
    )


def test_several_limit_ranges_first_default_wins_first_refusal_is_reported() -> None:
    first = limit_range_from_json(
        limit_range("a-defaults", {"type": "Container", "default": {"cpu": "1"}})
    )
    second = limit_range_from_json(
        limit_range(
            "b-bounds",
            {"type": "Container", "default": {"cpu": "4"}, "min": {"cpu": "2"}},
        )
    )
    third = limit_range_from_json(limit_range("c-pods", {"type": "Pod", "max": {"cpu": "500m"}}))
    ranges = ordered([third, second, first])
    assert [lr.name for lr in ranges] == ["a-defaults", "b-bounds", "c-pods"]
    decision = admit_pod(ranges, {"containers": [container("node")]}, NEWEST)
    assert resources_of(decision.spec) == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    assert decision.refused_by == "b-bounds"
    assert decision.refusal == "minimum cpu usage per Container is 2, but request is 1"


def test_claims() -> None:
    lr = limit_range_from_json(
        limit_range(
            "storage",
            {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "1Ti"}},
        )
    )
    small: JsonObject = {"spec": {"resources": {"requests": {"storage": "500Mi"}}}}
    big: JsonObject = {"spec": {"resources": {"requests": {"storage": "2Ti"}}}}
    fine: JsonObject = {"spec": {"resources": {"requests": {"storage": "100Gi"}}}}
    assert admit_claim([lr], small) == (
        "storage",
        "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi",
    )
    assert admit_claim([lr], big) == (
        "storage",
        "maximum storage usage per PersistentVolumeClaim is 1Ti, but request is 2Ti",
    )
    assert admit_claim([lr], fine) is None
    assert admit_claim([lr], {"spec": {}}) == (
        "storage",
        "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, "
        "maximum storage usage per PersistentVolumeClaim is 1Ti.  No request is specified]",
    )


def test_huge_amounts_compare_in_whole_units() -> None:
    """Beyond ``MaxMilliValue`` thousandths overflow, so upstream compares whole units."""
    lr = limit_range_from_json(limit_range("huge", {"type": "Container", "max": {"memory": "6Ei"}}))
    decision = admit_pod(
        [lr], {"containers": [container("node", limits={"memory": "5Ei"})]}, NEWEST
    )
    assert decision.refusal is None
    decision = admit_pod(
        [lr], {"containers": [container("node", limits={"memory": "7Ei"})]}, NEWEST
    )
    assert decision.refusal == "maximum memory usage per Container is 6Ei, but limit is 7Ei"


def test_pod_level_resources_replace_the_container_sums_where_the_gate_is_on() -> None:
    """From 1.34 a pod's own cpu and memory are what a ``Pod`` item judges."""
    lr = limit_range_from_json(limit_range("pods", {"type": "Pod", "max": {"cpu": "8"}}))
    spec: JsonObject = {
        "resources": {"requests": {"cpu": "4"}, "limits": {"cpu": "4"}},
        "containers": [container("a", limits={"cpu": "6"}), container("b", limits={"cpu": "6"})],
    }
    assert admit_pod([lr], spec, (1, 34)).refusal is None
    assert admit_pod([lr], spec, (1, 33)).refusal == (
        "maximum cpu usage per Pod is 8, but limit is 12"
    )


def test_pod_level_requests_default_from_the_containers_else_the_pod_limits() -> None:
    """``defaultPodRequests``: cpu from the containers' requests where they request it,
    memory (no container requests it) from the pod-level limit."""
    spec: JsonObject = {
        "resources": {"limits": {"cpu": "8", "memory": "32Gi"}},
        "containers": [container("a", requests={"cpu": "2"}), container("b")],
    }
    assert admit_pod([], spec, (1, 34)).spec["resources"] == {
        "limits": {"cpu": "8", "memory": "32Gi"},
        "requests": {"cpu": "2", "memory": "32Gi"},
    }
    assert admit_pod([], spec, (1, 33)).spec["resources"] == {
        "limits": {"cpu": "8", "memory": "32Gi"}
    }


def test_a_pod_item_judges_the_defaulted_pod_level_request() -> None:
    lr = limit_range_from_json(limit_range("pods", {"type": "Pod", "min": {"memory": "64Gi"}}))
    spec: JsonObject = {
        "resources": {"limits": {"memory": "32Gi"}},
        "containers": [container("a")],
    }
    assert admit_pod([lr], spec, (1, 34)).refusal == (
        "minimum memory usage per Pod is 64Gi, but request is 32Gi"
    )
