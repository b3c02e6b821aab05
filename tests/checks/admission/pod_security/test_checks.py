"""Every check against the cases written from upstream's unit tests and conformance fixtures."""

from __future__ import annotations

import pytest

from tests.checks.admission.pod_security.corpus import CASES, Case
from trainc.checks.admission.pod_security import CHECKS, LATEST, Level, evaluate


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_case(case: Case) -> None:
    violations = evaluate(case.level, case.version, case.metadata, case.spec, release=case.release)
    found = [(v.reason, v.detail) for v in violations if v.check == case.check]
    assert found == ([case.expect] if case.expect else [])


def test_the_corpus_covers_every_check_and_every_rule_change() -> None:
    checked = {case.check for case in CASES}
    assert checked == {check.id for check in CHECKS}
    versions = {(case.check, case.version) for case in CASES}
    for check in CHECKS:
        for rule in check.versions[1:]:
            assert (check.id, rule.since) in versions, (check.id, rule.since)


def test_a_violation_reads_as_reason_then_detail() -> None:
    [violation] = evaluate(
        Level.BASELINE,
        LATEST,
        {},
        {"containers": [{"name": "a"}], "hostPID": True},
        release=(1, 36),
    )
    assert violation.text == "host namespaces (hostPID=true)"
