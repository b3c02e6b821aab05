"""Upstream's LimitRanger tests, replayed: each case admitted or refused in its words."""

from __future__ import annotations

import pytest

from tests.checks.admission.limit_ranges.corpus import (
    ADMITTED,
    CLAIMS,
    NEWEST,
    REFUSED,
    Case,
    ClaimCase,
)
from trainc.checks.admission.limit_ranges import apply_defaults, claim_errors, pod_errors
from trainc.checks.admission.limit_ranges.limit_range import Item, LimitRange
from trainc.checks.admission.resource_lists import aggregate
from trainc.checks.workload.quantities import resource_amounts
from trainc.model.json import JsonObject


def as_built(raw: JsonObject) -> LimitRange:
    """A LimitRange as upstream's tests build it: in memory, without storage defaulting."""
    built = Item(
        type=str(raw["type"]),
        min=resource_amounts(raw.get("min")),
        max=resource_amounts(raw.get("max")),
        default={},
        default_request={},
        max_limit_request_ratio=resource_amounts(raw.get("maxLimitRequestRatio")),
    )
    return LimitRange("abc", (built,))


@pytest.mark.parametrize("case", ADMITTED + REFUSED, ids=lambda case: case.name)
def test_pod(case: Case) -> None:
    limit_range = as_built(case.item)
    spec, _ = apply_defaults(case.spec, [limit_range])
    errors = pod_errors(limit_range, spec, NEWEST)
    assert (aggregate(errors) if errors else None) == case.expect


@pytest.mark.parametrize("case", CLAIMS, ids=lambda case: case.name)
def test_claim(case: ClaimCase) -> None:
    claim: JsonObject = {"spec": {"resources": {"requests": {"storage": case.request}}}}
    errors = claim_errors(as_built(case.item), claim)
    assert (aggregate(errors) if errors else None) == case.expect
