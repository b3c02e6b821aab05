"""The pod's DRA claims as the containers' ``resources.claims`` see them."""

from __future__ import annotations

from trainc.checks.workload.claims import pod_claim_names
from trainc.checks.workload.objects import check_pod_spec
from trainc.model.json import JsonObject, JsonValue

NOT_FOUND = (
    'spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the names in '
    "pod.spec.resourceClaims"
)


def test_pod_claim_names_are_a_set_of_non_empty_names() -> None:
    spec: JsonObject = {
        "resourceClaims": [{"name": "b"}, {"name": ""}, {}, {"name": "a"}, {"name": "b"}, "x"]
    }
    assert pod_claim_names(spec) == {"a", "b"}


def claim_findings(claims: list[JsonValue]) -> list[str]:
    pod: JsonObject = {
        "resourceClaims": claims,
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
    }
    return [
        e.message() for e in check_pod_spec(pod, ("spec",), (1, 34)) if e.path[-2:] == ("claims", 0)
    ]


def test_containers_are_told_the_pods_claim_names_as_upstream_gathers_them() -> None:
    # gatherPodResourceClaimNames skips unnamed claims and lists each name once.
    assert claim_findings([{"name": "a"}, {"name": ""}, {"name": "a"}]) == [f"{NOT_FOUND}: a"]
    assert claim_findings([{"name": ""}]) == [f"{NOT_FOUND} which is empty"]
    assert claim_findings([{"name": "gpu"}]) == []
