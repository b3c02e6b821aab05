"""Lifecycle hooks, the sleep action across releases, and terminationMessagePolicy."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.lifecycle import (
    check_lifecycle,
    check_termination_message_policy,
    effective_lifecycle,
)
from trainc.model.json import JsonObject, JsonValue

L = "spec.containers[0].lifecycle"
SLEEP_60: JsonObject = {"preStop": {"sleep": {"seconds": 60}}}


def hooks(
    lifecycle: JsonValue, version: tuple[int, int] = (1, 33), pod_spec: JsonObject | None = None
) -> list[str]:
    kept = effective_lifecycle(lifecycle, version)
    if kept is None:
        return []
    ctx = context_of(pod_spec or {}, version, {})
    errors = check_lifecycle(kept, ("spec", "containers", 0, "lifecycle"), ctx)
    assert {e.code for e in errors} <= {"pod.lifecycle"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("version", "lifecycle", "expected"),
    [
        pytest.param((1, 29), SLEEP_60, [], id="1.29-sleep-dropped"),
        pytest.param(
            (1, 30),
            SLEEP_60,
            [
                f"{L}.preStop.sleep: Invalid value: 60: must be greater than 0 and less than "
                "terminationGracePeriodSeconds (30)"
            ],
            id="1.30-too-long",
        ),
        pytest.param(
            (1, 32),
            {"preStop": {"sleep": {"seconds": 0}}},
            [
                f"{L}.preStop.sleep: Invalid value: 0: must be greater than 0 and less than "
                "terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue "
                "feature gate for zero sleep."
            ],
            id="1.32-zero",
        ),
        pytest.param((1, 33), {"preStop": {"sleep": {"seconds": 0}}}, [], id="1.33-zero"),
        pytest.param(
            (1, 33),
            {"postStart": {"sleep": {"seconds": -1}}},
            [
                f"{L}.postStart.sleep: Invalid value: -1: must be non-negative and less than "
                "terminationGracePeriodSeconds (30)"
            ],
            id="1.33-negative",
        ),
        pytest.param((1, 33), {"preStop": {"sleep": {"seconds": 30}}}, [], id="grace-period-exact"),
        pytest.param(
            (1, 33),
            {"preStop": {}},
            [f"{L}.preStop: Required value: must specify a handler type"],
            id="no-action",
        ),
        pytest.param(
            (1, 33),
            {"postStart": {"grpc": {"port": 1}}},
            [f"{L}.postStart: Required value: must specify a handler type"],
            id="hooks-cannot-grpc",
        ),
        pytest.param(
            (1, 33),
            {"preStop": {"exec": {"command": ["sh"]}, "sleep": {"seconds": 5}}},
            [f"{L}.preStop.sleep: Forbidden: may not specify more than 1 handler type"],
            id="two-actions",
        ),
        pytest.param(
            (1, 29),
            {"preStop": {"exec": {"command": ["sh"]}, "sleep": {"seconds": 5}}},
            [],
            id="1.29-sleep-dropped-next-to-exec",
        ),
        pytest.param((1, 33), {"stopSignal": "SIGUSR1"}, [], id="stop-signal-dropped"),
    ],
)
def test_hooks(version: tuple[int, int], lifecycle: JsonObject, expected: list[str]) -> None:
    assert hooks(lifecycle, version) == expected


def test_grace_period_from_pod() -> None:
    assert hooks(SLEEP_60, (1, 33), {"terminationGracePeriodSeconds": 120}) == []
    assert hooks(
        {"preStop": {"sleep": {"seconds": 5}}}, (1, 33), {"terminationGracePeriodSeconds": 2}
    ) == [
        f"{L}.preStop.sleep: Invalid value: 5: must be non-negative and less than "
        "terminationGracePeriodSeconds (2)"
    ]


@pytest.mark.parametrize(
    ("version", "lifecycle", "kept"),
    [
        pytest.param((1, 33), {}, {}, id="empty-kept"),
        pytest.param((1, 29), {}, None, id="1.29-empty-dropped"),
        pytest.param((1, 33), {"stopSignal": "SIGTERM"}, None, id="only-stop-signal"),
        pytest.param((1, 29), SLEEP_60, None, id="1.29-only-sleep"),
        pytest.param((1, 30), SLEEP_60, SLEEP_60, id="1.30-sleep-kept"),
        pytest.param((1, 33), "not-a-lifecycle", None, id="wrong-type"),
    ],
)
def test_effective_lifecycle(
    version: tuple[int, int], lifecycle: JsonValue, kept: JsonObject | None
) -> None:
    assert effective_lifecycle(lifecycle, version) == kept


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        pytest.param(
            "fallback",
            [
                'spec.containers[0].terminationMessagePolicy: Unsupported value: "fallback": '
                'supported values: "File", "FallbackToLogsOnError"'
            ],
            id="unknown",
        ),
        pytest.param("FallbackToLogsOnError", [], id="fallback"),
        pytest.param(None, [], id="defaulted"),
    ],
)
def test_termination_message_policy(policy: JsonValue, expected: list[str]) -> None:
    container: JsonObject = {"terminationMessagePolicy": policy}
    errors = check_termination_message_policy(container, ("spec", "containers", 0))
    assert [(e.code, e.message()) for e in errors] == [("pod.lifecycle", m) for m in expected]
