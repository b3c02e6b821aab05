"""Upstream's quota evaluator and plugin tests, replayed on trainc's model."""

from __future__ import annotations

import pytest

from tests.checks.admission.resource_quotas.corpus import (
    ADMIT,
    CONSTRAINTS,
    NEWEST,
    SCOPES,
    USAGE,
    AdmitCase,
    ConstraintCase,
    ScopeCase,
    UsageCase,
)
from trainc.checks.admission.resource_quotas import (
    Quota,
    Selector,
    Target,
    admit,
    missing,
    quota_from_json,
    usage,
)
from trainc.checks.admission.resource_quotas.evaluators import scope_matches
from trainc.checks.workload.quantities import resource_amounts
from trainc.model.json import JsonObject


def pod(spec: JsonObject) -> Target:
    return Target("", "pods", {"metadata": {"name": "pod"}, "spec": spec})


@pytest.mark.parametrize("case", CONSTRAINTS, ids=lambda case: case.name)
def test_constraints(case: ConstraintCase) -> None:
    assert missing(pod(case.spec), case.required, case.release) == case.expect


@pytest.mark.parametrize("case", USAGE, ids=lambda case: case.name)
def test_usage(case: UsageCase) -> None:
    found = usage(pod(case.spec), case.release)
    expected = resource_amounts(dict(case.usage))
    assert {k: v.value for k, v in found.items()} == {k: v.value for k, v in expected.items()}


SELECTORS = {
    "Terminating": Selector("Terminating"),
    "NotTerminating": Selector("NotTerminating"),
    "BestEffort": Selector("BestEffort"),
    "NotBestEffort": Selector("NotBestEffort"),
    "PriorityClass In [class1]": Selector("PriorityClass", "In", ("class1",)),
    "CrossNamespacePodAffinity": Selector("CrossNamespacePodAffinity"),
}


@pytest.mark.parametrize("case", SCOPES, ids=lambda case: case.name)
def test_matching_scopes(case: ScopeCase) -> None:
    found = [name for name, s in SELECTORS.items() if scope_matches(s, pod(case.spec), NEWEST)]
    assert sorted(found) == sorted(case.scopes)


@pytest.mark.parametrize("case", ADMIT, ids=lambda case: case.name)
def test_admit(case: AdmitCase) -> None:
    quota = quota_from_json(
        {"metadata": {"name": "quota"}, "spec": {**case.quota_spec, "hard": case.hard}}
    )
    used = {"quota": resource_amounts(dict(case.used))}
    refusal = admit([quota], pod(case.spec), NEWEST, used)
    assert (refusal.message if refusal else None) == case.expect


def test_a_quota_without_hard_limits_matches_nothing() -> None:
    """A quota whose ``hard`` tracks none of the pod's resources does not apply to it."""
    assert admit([Quota("quota", {})], pod({}), NEWEST) is None
