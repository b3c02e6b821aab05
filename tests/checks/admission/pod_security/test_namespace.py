"""A namespace's Pod Security labels, read as upstream's ``PolicyToEvaluate`` reads them."""

from __future__ import annotations

import pytest

from trainc.checks.admission.pod_security import (
    LATEST,
    Level,
    LevelVersion,
    NamespacePolicy,
    exempt_namespace_warning,
    namespace_refusal,
    parse_level,
    parse_version,
    policy_from_labels,
)

PRIVILEGED = LevelVersion(Level.PRIVILEGED)
PREFIX = "pod-security.kubernetes.io/"


def labels(**modes: str) -> dict[str, str]:
    """Pod Security labels (``enforce_version`` is ``enforce-version``), beside another label."""
    found = {PREFIX + key.replace("_", "-"): value for key, value in modes.items()}
    return {"other-label": "foo-bar", **found}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("latest", LATEST),
        ("v1.0", (1, 0)),
        ("v1.1", (1, 1)),
        ("v1.20", (1, 20)),
        ("v1.10000", (1, 10000)),
    ],
)
def test_versions_upstream_accepts(text, expected) -> None:
    assert parse_version(text) == (expected, None)


@pytest.mark.parametrize("text", ["foo", "", "v2.0", "v1", "1.1", "v1.30.0", "v1.030", "V1.3"])
def test_versions_upstream_refuses_read_as_latest(text) -> None:
    assert parse_version(text) == (LATEST, 'must be "latest" or "v1.x"')


def test_a_bad_level_reads_as_restricted() -> None:
    assert parse_level("Baseline") == (
        Level.RESTRICTED,
        "must be one of privileged, baseline, restricted",
    )


@pytest.mark.parametrize(
    ("given", "enforce", "warn", "audit"),
    [
        (
            labels(enforce="baseline"),
            LevelVersion(Level.BASELINE),
            LevelVersion(Level.BASELINE),
            PRIVILEGED,
        ),
        (labels(warn="restricted"), PRIVILEGED, LevelVersion(Level.RESTRICTED), PRIVILEGED),
        (labels(audit="baseline"), PRIVILEGED, PRIVILEGED, LevelVersion(Level.BASELINE)),
        (
            labels(enforce="baseline", warn="restricted"),
            LevelVersion(Level.BASELINE),
            LevelVersion(Level.RESTRICTED),
            PRIVILEGED,
        ),
        (
            labels(enforce="baseline", enforce_version="v1.22"),
            LevelVersion(Level.BASELINE, (1, 22)),
            LevelVersion(Level.BASELINE, (1, 22)),
            PRIVILEGED,
        ),
        (
            labels(enforce="baseline", enforce_version="v1.22", warn_version="latest"),
            LevelVersion(Level.BASELINE, (1, 22)),
            LevelVersion(Level.BASELINE),
            PRIVILEGED,
        ),
        (
            labels(enforce="baseline", warn_version="v1.23"),
            LevelVersion(Level.BASELINE),
            LevelVersion(Level.BASELINE, (1, 23)),
            PRIVILEGED,
        ),
        (
            labels(
                enforce="baseline",
                enforce_version="v1.20",
                warn="restricted",
                warn_version="v1.21",
                audit="restricted",
                audit_version="v1.22",
            ),
            LevelVersion(Level.BASELINE, (1, 20)),
            LevelVersion(Level.RESTRICTED, (1, 21)),
            LevelVersion(Level.RESTRICTED, (1, 22)),
        ),
        (
            labels(enforce="baseline", warn="privileged"),
            LevelVersion(Level.BASELINE),
            PRIVILEGED,
            PRIVILEGED,
        ),
    ],
)
def test_valid_labels(given, enforce, warn, audit) -> None:
    assert policy_from_labels(given) == NamespacePolicy(enforce, audit, warn)


def test_a_bad_warn_level_fails_open_and_is_reported() -> None:
    policy = policy_from_labels(labels(enforce="baseline", warn="foo"))
    assert (policy.enforce, policy.warn, policy.audit) == (
        LevelVersion(Level.BASELINE),
        PRIVILEGED,
        PRIVILEGED,
    )
    [error] = policy.errors
    assert error.text == (
        'metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "foo": '
        "must be one of privileged, baseline, restricted"
    )


def test_a_bad_enforce_level_closes_and_does_not_default_warn() -> None:
    policy = policy_from_labels(labels(enforce="foo"))
    assert policy.enforce == LevelVersion(Level.RESTRICTED)
    assert policy.warn == PRIVILEGED
    assert [error.label for error in policy.errors] == [PREFIX + "enforce"]
    assert not policy.fully_privileged


def test_a_bad_version_reads_as_latest() -> None:
    policy = policy_from_labels(labels(enforce="restricted", enforce_version="1.30"))
    assert policy.enforce == LevelVersion(Level.RESTRICTED)
    assert [error.text for error in policy.errors] == [
        "metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "
        '"1.30": must be "latest" or "v1.x"'
    ]


def test_a_bad_audit_level_fails_open() -> None:
    policy = policy_from_labels(labels(audit="strict"))
    assert policy.audit == PRIVILEGED
    assert len(policy.errors) == 1


def test_defaults_apply_to_unlabelled_modes() -> None:
    defaults = NamespacePolicy(enforce=LevelVersion(Level.BASELINE, (1, 30)))
    assert policy_from_labels({}, defaults) == defaults
    assert policy_from_labels({"team": "ml"}, defaults) == defaults
    policy = policy_from_labels(labels(warn="restricted"), defaults)
    assert policy.enforce == LevelVersion(Level.BASELINE, (1, 30))
    assert policy.warn == LevelVersion(Level.RESTRICTED)


def test_a_label_less_strict_than_warn_leaves_warn_alone() -> None:
    defaults = NamespacePolicy(warn=LevelVersion(Level.RESTRICTED))
    policy = policy_from_labels(labels(enforce="baseline"), defaults)
    assert policy.warn == LevelVersion(Level.RESTRICTED)


def test_labels_and_equivalence() -> None:
    assert LevelVersion(Level.RESTRICTED).label == "restricted:latest"
    assert LevelVersion(Level.BASELINE, (1, 28)).label == "baseline:v1.28"
    assert LevelVersion(Level.PRIVILEGED, (1, 2)).equivalent(PRIVILEGED)
    assert not LevelVersion(Level.BASELINE, (1, 2)).equivalent(LevelVersion(Level.BASELINE))


def test_a_namespace_with_bad_labels_is_refused_with_every_error() -> None:
    policy = policy_from_labels(labels(enforce="strict", enforce_version="1.30"))
    assert namespace_refusal("ml", policy.errors) == (
        'Namespace "ml" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: '
        'Invalid value: "strict": must be one of privileged, baseline, restricted, '
        "metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "
        '"1.30": must be "latest" or "v1.x"]'
    )
    single = policy_from_labels(labels(warn="x")).errors
    assert namespace_refusal("ml", single) == (
        'Namespace "ml" is invalid: metadata.labels[pod-security.kubernetes.io/warn]: '
        'Invalid value: "x": must be one of privileged, baseline, restricted'
    )
    assert namespace_refusal("ml", ()) is None


def test_labels_on_an_exempt_namespace_are_called_out() -> None:
    assert exempt_namespace_warning("test", labels(enforce="restricted")) == (
        'namespace "test" is exempt from Pod Security, and the policy '
        "(enforce=restricted:latest) will be ignored"
    )
    given = labels(
        enforce="restricted", enforce_version="v1.0", audit="restricted", warn="baseline"
    )
    assert exempt_namespace_warning("test", given) == (
        'namespace "test" is exempt from Pod Security, and the policy '
        "(enforce=restricted:v1.0, audit=restricted:latest, warn=baseline:latest) will be ignored"
    )


def test_no_warning_for_a_privileged_or_default_policy_on_an_exempt_namespace() -> None:
    assert exempt_namespace_warning("test", labels(enforce="privileged")) is None
    defaults = NamespacePolicy(enforce=LevelVersion(Level.BASELINE))
    assert exempt_namespace_warning("test", labels(enforce="baseline"), defaults) is not None
    same = NamespacePolicy(LevelVersion(Level.BASELINE), PRIVILEGED, LevelVersion(Level.BASELINE))
    assert exempt_namespace_warning("test", labels(enforce="baseline"), same) is None
