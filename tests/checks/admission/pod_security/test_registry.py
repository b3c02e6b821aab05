"""Which checks each level runs at each version, and in which order (upstream's registry)."""

from __future__ import annotations

import pytest

from trainc.checks.admission.pod_security import (
    LATEST,
    Level,
    checks_for,
    effective_version,
    evaluate,
)
from trainc.checks.admission.pod_security.registry import compose
from trainc.checks.admission.pod_security.results import Check, VersionedRule
from trainc.model.json import JsonObject

BASELINE_1_36 = [
    "appArmorProfile",
    "capabilities_baseline",
    "hostNamespaces",
    "hostPathVolumes",
    "hostPorts",
    "hostProbesAndHostLifecycle",
    "privileged",
    "procMount",
    "seLinuxOptions",
    "seccompProfile_baseline",
    "sysctls",
    "windowsHostProcess",
]


def ids(level: Level, version: tuple[int, int]) -> list[str]:
    return [check_id for check_id, _ in checks_for(level, version)]


def test_baseline_runs_its_checks_sorted_by_id() -> None:
    assert ids(Level.BASELINE, (1, 36)) == BASELINE_1_36


def test_the_probe_host_check_joins_baseline_in_1_34() -> None:
    assert "hostProbesAndHostLifecycle" not in ids(Level.BASELINE, (1, 33))
    assert ids(Level.BASELINE, (1, 34)) == BASELINE_1_36


def test_restricted_runs_baseline_minus_overridden_then_its_own() -> None:
    assert ids(Level.RESTRICTED, (1, 36)) == [
        "appArmorProfile",
        "hostNamespaces",
        "hostPorts",
        "hostProbesAndHostLifecycle",
        "privileged",
        "seLinuxOptions",
        "sysctls",
        "windowsHostProcess",
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "procMount_restricted",
        "restrictedVolumes",
        "runAsNonRoot",
        "runAsUser",
        "seccompProfile_restricted",
    ]


def test_restricted_before_1_35_keeps_baseline_procmount() -> None:
    restricted = ids(Level.RESTRICTED, (1, 34))
    assert "procMount" in restricted
    assert "procMount_restricted" not in restricted


def test_restricted_at_1_21_keeps_the_baseline_capability_check() -> None:
    restricted = ids(Level.RESTRICTED, (1, 21))
    assert "capabilities_baseline" in restricted
    assert "capabilities_restricted" not in restricted
    assert "runAsUser" not in restricted


def test_privileged_runs_nothing() -> None:
    assert ids(Level.PRIVILEGED, (1, 36)) == []
    spec: JsonObject = {"containers": [{"name": "a", "securityContext": {"privileged": True}}]}
    assert evaluate(Level.PRIVILEGED, LATEST, {}, spec, release=(1, 36)) == []


@pytest.mark.parametrize(
    ("version", "release", "expected"),
    [
        (LATEST, (1, 33), (1, 33)),
        ((1, 28), (1, 33), (1, 28)),
        ((1, 40), (1, 33), (1, 33)),
        ((1, 0), (1, 29), (1, 0)),
    ],
)
def test_effective_version(version, release, expected) -> None:
    assert effective_version(version, release) == expected


def test_violations_come_in_registry_order() -> None:
    spec: JsonObject = {
        "hostNetwork": True,
        "volumes": [{"name": "data", "hostPath": {"path": "/mnt/data"}}],
        "containers": [
            {
                "name": "node",
                "securityContext": {"privileged": True, "capabilities": {"add": ["IPC_LOCK"]}},
            }
        ],
    }
    found = evaluate(Level.RESTRICTED, LATEST, {}, spec, release=(1, 36))
    assert [v.check for v in found] == [
        "hostNamespaces",
        "privileged",
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "restrictedVolumes",
        "runAsNonRoot",
        "seccompProfile_restricted",
    ]
    baseline = evaluate(Level.BASELINE, LATEST, {}, spec, release=(1, 36))
    assert [v.check for v in baseline] == [
        "capabilities_baseline",
        "hostNamespaces",
        "hostPathVolumes",
        "privileged",
    ]


def _synthetic(check_id: str, level: Level, *versions: tuple[int, int]) -> Check:
    """A check whose rules do nothing, with rules from each of ``versions``."""
    return Check(check_id, level, tuple(VersionedRule(v, lambda _pod: None) for v in versions))


def _overriding(check: Check, *overrides: tuple[str, ...]) -> Check:
    rules = tuple(
        VersionedRule(rule.since, rule.rule, ids)
        for rule, ids in zip(check.versions, overrides, strict=True)
    )
    return Check(check.id, check.level, rules)


#: Upstream's registry test: baseline a-d, restricted e-i, overrides that come and go.
SYNTHETIC = (
    _synthetic("a", Level.BASELINE, (1, 0)),
    _synthetic("b", Level.BASELINE, (1, 10)),
    _synthetic("c", Level.BASELINE, (1, 0), (1, 5), (1, 10)),
    _synthetic("d", Level.BASELINE, (1, 11), (1, 15), (1, 20)),
    _synthetic("e", Level.RESTRICTED, (1, 0)),
    _synthetic("f", Level.RESTRICTED, (1, 12), (1, 16), (1, 21)),
    _overriding(_synthetic("g", Level.RESTRICTED, (1, 10)), ("a",)),
    _overriding(_synthetic("h", Level.RESTRICTED, (1, 0)), ("b",)),
    _overriding(_synthetic("i", Level.RESTRICTED, (1, 10), (1, 21)), ("c",), ("d",)),
)


@pytest.mark.parametrize(
    ("level", "version", "expected"),
    [
        (Level.PRIVILEGED, (1, 0), []),
        (Level.BASELINE, (1, 0), ["a:1.0", "c:1.0"]),
        (Level.BASELINE, (1, 4), ["a:1.0", "c:1.0"]),
        (Level.BASELINE, (1, 5), ["a:1.0", "c:1.5"]),
        (Level.BASELINE, (1, 10), ["a:1.0", "b:1.10", "c:1.10"]),
        (Level.BASELINE, (1, 11), ["a:1.0", "b:1.10", "c:1.10", "d:1.11"]),
        (Level.BASELINE, (1, 36), ["a:1.0", "b:1.10", "c:1.10", "d:1.20"]),
        (Level.RESTRICTED, (1, 0), ["a:1.0", "c:1.0", "e:1.0", "h:1.0"]),
        (Level.RESTRICTED, (1, 5), ["a:1.0", "c:1.5", "e:1.0", "h:1.0"]),
        (Level.RESTRICTED, (1, 10), ["e:1.0", "g:1.10", "h:1.0", "i:1.10"]),
        (Level.RESTRICTED, (1, 11), ["d:1.11", "e:1.0", "g:1.10", "h:1.0", "i:1.10"]),
        (
            Level.RESTRICTED,
            (1, 36),
            ["c:1.10", "e:1.0", "f:1.21", "g:1.10", "h:1.0", "i:1.21"],
        ),
    ],
)
def test_composition_as_upstream_s_registry_test(level, version, expected) -> None:
    composed = compose(SYNTHETIC, level, version)
    assert [f"{i}:{r.since[0]}.{r.since[1]}" for i, r in composed] == expected
