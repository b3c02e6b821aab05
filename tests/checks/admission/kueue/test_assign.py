"""Kueue's flavor assignment, replayed on trainc's model with nothing in use."""

from __future__ import annotations

import pytest

from tests.checks.admission.kueue.corpus import (
    FLAVORS,
    GPU,
    GPU_FLAVORS,
    GPU_TOLERATION,
    HIERARCHY,
    HIERARCHY_FLAVORS,
    HIERARCHY_OTHER,
    HIERARCHY_QUEUE,
    ML,
    UPSTREAM,
    AssignCase,
    gpu_queue,
    pods,
)
from trainc.checks.admission.kueue import (
    Assignment,
    assign,
    capacity_reason,
    cluster_queue_from_json,
    cohort_from_json,
    pod_set,
    resource_flavor_from_json,
    tree,
)
from trainc.checks.admission.kueue.api import ClusterQueue
from trainc.model.json import JsonObject


def run(
    pod_sets: list[tuple[str, int, JsonObject]],
    queue_json: JsonObject,
    flavors: list[JsonObject],
    others: list[JsonObject],
    cohorts: list[JsonObject],
) -> Assignment:
    queue = cluster_queue_from_json(queue_json)
    queues: list[ClusterQueue] = [queue, *map(cluster_queue_from_json, others)]
    cohort_tree, node = tree(queue, queues, map(cohort_from_json, cohorts))
    known = {f.name: f for f in map(resource_flavor_from_json, flavors)}
    sets = [pod_set(name, count, spec) for name, count, spec in pod_sets]
    return assign(sets, queue, cohort_tree, node, known)


def check(case: AssignCase, flavors: list[JsonObject]) -> None:
    found = run(case.pod_sets, case.queue, flavors, case.others, case.cohorts)
    assert found.message == case.expect
    assert found.admissible == (not case.expect)
    if case.flavors:
        assert {r.name: r.flavors for r in found.pod_sets} == case.flavors


@pytest.mark.parametrize("case", UPSTREAM, ids=lambda case: case.name)
def test_upstream(case: AssignCase) -> None:
    check(case, FLAVORS)


@pytest.mark.parametrize("case", ML, ids=lambda case: case.name)
def test_ml(case: AssignCase) -> None:
    check(case, FLAVORS + GPU_FLAVORS)


@pytest.mark.parametrize(
    ("cpu", "expect", "flavor"),
    [
        # Nothing in use: the nearest cohort's quota of flavor one is enough.
        ("4", "", "one"),
        # Each flavor's quota sits in one cohort of the chain; none holds 5.
        (
            "5",
            "couldn't assign flavors to pod set main: "
            + ", ".join(
                capacity_reason("cpu", name, 0, 5000, 4000) for name in ("one", "three", "two")
            ),
            None,
        ),
    ],
)
def test_hierarchy(cpu: str, expect: str, flavor: str | None) -> None:
    """``TestHierarchical``'s tree of cohorts, with nothing in use."""
    found = run(
        [pods("main", 1, {"cpu": cpu})],
        HIERARCHY_QUEUE,
        HIERARCHY_FLAVORS,
        [HIERARCHY_OTHER],
        HIERARCHY,
    )
    assert found.message == expect
    if flavor is not None:
        assert found.pod_sets[0].flavors == {"cpu": flavor}


def test_a_missing_flavor_is_passed_over() -> None:
    found = run([pods("main", 1, {"cpu": "1"})], UPSTREAM[0].queue, [], [], [])
    assert found.message == "couldn't assign flavors to pod set main: flavor default not found"


@pytest.mark.parametrize(("when_can_borrow", "chosen"), [("", "a100"), ("TryNextFlavor", "h100")])
def test_try_next_flavor_prefers_a_flavor_without_borrowing(
    when_can_borrow: str, chosen: str
) -> None:
    """``whenCanBorrow: TryNextFlavor`` passes over a flavor that would borrow."""
    fungibility: JsonObject = {"whenCanBorrow": when_can_borrow} if when_can_borrow else {}
    queue_json = gpu_queue(
        "team", a100="8", h100="16", cohortName="research", flavorFungibility=fungibility
    )
    found = run(
        [pods("node", 4, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION)],
        queue_json,
        GPU_FLAVORS,
        [gpu_queue("idle-team", a100="8", cohortName="research")],
        [],
    )
    assert found.pod_sets[0].flavors == {"cpu": chosen, GPU: chosen}


def test_the_capacity_reason_before_kueue_0_15() -> None:
    assert capacity_reason("nvidia.com/gpu", "a100", 0, 16, 8, release=(0, 14, 0)) == (
        "insufficient quota for nvidia.com/gpu in flavor a100, request > maximum capacity (16 > 8)"
    )
