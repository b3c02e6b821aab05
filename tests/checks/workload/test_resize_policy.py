"""resizePolicy, and RestartContainer on plain init containers."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.containers import check_containers
from trainc.checks.workload.resize_policy import check_resize_policy
from trainc.model.json import JsonObject, JsonValue

R = "spec.containers[0].resizePolicy"
CPU: JsonObject = {"resourceName": "cpu", "restartPolicy": "NotRequired"}


def resize(policies: JsonValue, version: tuple[int, int] = (1, 33), **pod: JsonValue) -> list[str]:
    ctx = context_of(dict(pod), version, {})
    errors = check_resize_policy(policies, ("spec", "containers", 0, "resizePolicy"), ctx)
    assert {e.code for e in errors} <= {"pod.resize-policy"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("policies", "expected"),
    [
        pytest.param(
            [{"resourceName": "nvidia.com/gpu", "restartPolicy": "RestartContainer"}],
            [f'{R}: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"'],
            id="gpu",
        ),
        pytest.param(
            [CPU, {"resourceName": "cpu", "restartPolicy": "Restart"}],
            [
                f'{R}[1]: Duplicate value: "cpu"',
                f'{R}: Unsupported value: "Restart": supported values: "NotRequired", '
                '"RestartContainer"',
            ],
            id="duplicate-and-policy",
        ),
        pytest.param(
            [{"resourceName": "", "restartPolicy": ""}],
            [f"{R}: Required value", f"{R}: Required value"],
            id="empty",
        ),
    ],
)
def test_invalid(policies: JsonValue, expected: list[str]) -> None:
    assert resize(policies) == expected


def test_valid() -> None:
    assert resize([CPU, {"resourceName": "memory", "restartPolicy": "RestartContainer"}]) == []


def test_dropped_before_1_33() -> None:
    assert resize([{"resourceName": "nvidia.com/gpu", "restartPolicy": "x"}], (1, 32)) == []


@pytest.mark.parametrize(
    ("version", "subject"),
    [
        pytest.param((1, 33), "`restartPolicy`", id="1.33"),
        pytest.param((1, 34), "pod `restartPolicy`", id="1.34"),
    ],
)
def test_pod_that_never_restarts(version: tuple[int, int], subject: str) -> None:
    policies: JsonValue = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    assert resize(policies, version, restartPolicy="Never") == [
        f"{R}: Invalid value: \"RestartContainer\": must be 'NotRequired' when {subject} is 'Never'"
    ]
    assert resize(policies, version, restartPolicy="OnFailure") == []


def test_plain_init_container_restart_from_1_36() -> None:
    init: JsonObject = {
        "name": "prepare",
        "image": "busybox",
        "resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}],
    }
    pod_spec: JsonObject = {
        "containers": [{"name": "node", "image": "i"}],
        "initContainers": [init],
    }
    assert check_containers(pod_spec, ("spec",), (1, 35), volumes={}) == []
    errors = check_containers(pod_spec, ("spec",), (1, 36), volumes={})
    assert [(e.code, e.message()) for e in errors] == [
        (
            "pod.resize-policy",
            "spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "
            "\"RestartContainer\": must not be set to 'RestartContainer' for non-sidecar "
            "initContainers",
        )
    ]
    sidecar = {**init, "restartPolicy": "Always"}
    assert (
        check_containers({**pod_spec, "initContainers": [sidecar]}, ("spec",), (1, 36), volumes={})
        == []
    )
