"""A flavor's taints and labels against a pod: Kubernetes' toleration and selector rules."""

from __future__ import annotations

import pytest

from trainc.checks.admission.kueue.api import Taint, Toleration
from trainc.checks.admission.kueue.nodes import matches_flavor, show_taint, untolerated_taint
from trainc.model.json import JsonObject, JsonValue

SPOT = Taint("instance", "spot", "NoSchedule")


@pytest.mark.parametrize(
    ("toleration", "tolerated"),
    [
        (Toleration("instance", "Equal", "spot", "NoSchedule"), True),
        (Toleration("instance", "", "spot"), True),
        (Toleration("instance", "Equal", "reserved"), False),
        (Toleration("instance", "Exists"), True),
        (Toleration("", "Exists"), True),
        (Toleration("instance", "Exists", effect="NoExecute"), False),
        (Toleration("other", "Exists"), False),
    ],
)
def test_tolerations(toleration: Toleration, tolerated: bool) -> None:
    assert (untolerated_taint([SPOT], [toleration]) is None) == tolerated


def test_only_scheduling_effects_count() -> None:
    soft = Taint("instance", "spot", "PreferNoSchedule")
    hard = Taint("gpu", "", "NoExecute")
    assert untolerated_taint([soft, hard], []) == hard
    assert show_taint(hard) == "{gpu  NoExecute <nil>}"


def affinity(*expressions: JsonObject) -> JsonObject:
    terms: JsonValue = [{"matchExpressions": list[JsonValue](expressions)}]
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }
    }


LABELS = {"gpu": "a100", "memory-gb": "80"}


@pytest.mark.parametrize(
    ("spec", "matches"),
    [
        ({"nodeSelector": {"gpu": "a100", "zone": "x"}}, True),
        ({"nodeSelector": {"gpu": "h100"}}, False),
        (affinity({"key": "gpu", "operator": "NotIn", "values": ["h100"]}), True),
        (affinity({"key": "gpu", "operator": "DoesNotExist"}), False),
        (affinity({"key": "memory-gb", "operator": "Gt", "values": ["40"]}), True),
        (affinity({"key": "memory-gb", "operator": "Lt", "values": ["40"]}), False),
        # A requirement on a key the flavor does not name is the scheduler's, not Kueue's.
        (affinity({"key": "zone", "operator": "In", "values": ["y"]}), True),
        # A bad requirement lets the flavor match nothing.
        (affinity({"key": "memory-gb", "operator": "Gt", "values": ["a lot"]}), False),
    ],
)
def test_node_constraints(spec: JsonObject, matches: bool) -> None:
    try:
        found = matches_flavor(spec, LABELS)
    except ValueError:
        found = False
    assert found == matches
