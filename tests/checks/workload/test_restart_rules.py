"""Container restart policies and rules across 1.33 / 1.34 / 1.35, and sidecar-only fields."""

from __future__ import annotations

import pytest

from trainc.checks.workload.containers import check_containers
from trainc.checks.workload.restart_rules import check_container_restart, check_init_restart
from trainc.model.json import JsonObject

C = "spec.containers[0]"
INIT = "spec.initContainers[0]"
PATH = ("spec", "containers", 0)
IPATH = ("spec", "initContainers", 0)
NEEDS_POLICY = "Required value: must specify restartPolicy when restart rules are used"
RULE: JsonObject = {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}


def regular(container: JsonObject, version: tuple[int, int]) -> list[str]:
    errors = check_container_restart(container, PATH, version)
    assert {e.code for e in errors} <= {"pod.container-restart"}
    return [e.message() for e in errors]


def init(container: JsonObject, version: tuple[int, int]) -> list[str]:
    errors = check_init_restart(container, IPATH, version)
    assert {e.code for e in errors} <= {"pod.container-restart"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        pytest.param(
            (1, 33),
            [f"{C}.restartPolicy: Forbidden: may not be set for non-init containers"],
            id="1.33-forbidden",
        ),
        pytest.param((1, 34), [], id="1.34-dropped"),
        pytest.param((1, 35), [], id="1.35-allowed"),
    ],
)
def test_regular_policy(version: tuple[int, int], expected: list[str]) -> None:
    assert regular({"restartPolicy": "Never", "restartPolicyRules": [RULE]}, version) == expected


def test_regular_rules_1_35() -> None:
    container: JsonObject = {
        "restartPolicy": "Sometimes",
        "restartPolicyRules": [
            {
                "action": "RestartAllContainers",
                "exitCodes": {"operator": "in", "values": list(range(256))},
            },
            {"action": "Restart"},
        ],
    }
    assert regular(container, (1, 35)) == [
        f'{C}.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", '
        '"OnFailure"',
        f'{C}.restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported '
        'values: "Restart"',
        f'{C}.restartPolicyRules[0].exitCodes.operator: Unsupported value: "in": supported '
        'values: "In", "NotIn"',
        f"{C}.restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items",
        f"{C}.restartPolicyRules[1].exitCodes: Required value: must be specified",
    ]
    assert regular({"restartPolicyRules": [RULE] * 21}, (1, 35)) == [
        f"{C}.restartPolicy: {NEEDS_POLICY}",
        f"{C}.restartPolicyRules: Too many: 21: must have at most 20 items",
    ]


@pytest.mark.parametrize(
    ("container", "version", "expected"),
    [
        pytest.param(
            {"restartPolicy": "OnFailure"},
            (1, 33),
            [f'{INIT}.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
            id="1.33-on-failure",
        ),
        pytest.param({"restartPolicy": "OnFailure"}, (1, 34), [], id="1.34-dropped"),
        pytest.param({"restartPolicy": "OnFailure"}, (1, 35), [], id="1.35-on-failure"),
        pytest.param(
            {"restartPolicy": "Sometimes"},
            (1, 35),
            [
                f'{INIT}.restartPolicy: Unsupported value: "Sometimes": supported values: '
                '"Always", "Never", "OnFailure"'
            ],
            id="1.35-unknown",
        ),
        pytest.param(
            {"restartPolicyRules": [RULE]},
            (1, 35),
            [f"{INIT}.restartPolicy: {NEEDS_POLICY}"],
            id="1.35-rules-without-policy",
        ),
        pytest.param(
            {"restartPolicy": "Always", "restartPolicyRules": [RULE]},
            (1, 35),
            [
                f"{INIT}.restartPolicyRules: Forbidden: restartPolicyRules are not allowed for "
                "init containers with restart policy Always"
            ],
            id="1.35-sidecar-rules",
        ),
        pytest.param({"restartPolicy": "Always"}, (1, 29), [], id="sidecar"),
    ],
)
def test_init_policy(container: JsonObject, version: tuple[int, int], expected: list[str]) -> None:
    assert init(container, version) == expected


def test_sidecar_only_fields() -> None:
    plain: JsonObject = {
        "name": "wait-for-data",
        "image": "busybox",
        "lifecycle": {"postStart": {"exec": {"command": ["true"]}}},
        "livenessProbe": {"exec": {"command": ["true"]}},
        "readinessProbe": {"exec": {"command": ["true"]}},
        "startupProbe": {"exec": {"command": ["true"]}},
    }
    pod_spec: JsonObject = {
        "containers": [{"name": "node", "image": "i"}],
        "initContainers": [plain],
    }
    errors = check_containers(pod_spec, ("spec",), (1, 33), volumes={})
    detail = "Forbidden: may not be set for init containers without restartPolicy=Always"
    assert [(e.code, e.message()) for e in errors] == [
        ("pod.container-restart", f"{INIT}.{field}: {detail}")
        for field in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
    ]
    sidecar = {**plain, "restartPolicy": "Always"}
    assert (
        check_containers({**pod_spec, "initContainers": [sidecar]}, ("spec",), (1, 33), volumes={})
        == []
    )


def test_dropped_lifecycle_is_no_lifecycle() -> None:
    """Only a stop signal (dropped while ContainerStopSignals is off) leaves no lifecycle."""
    plain: JsonObject = {"name": "i", "image": "busybox", "lifecycle": {"stopSignal": "SIGTERM"}}
    pod_spec: JsonObject = {
        "containers": [{"name": "node", "image": "i"}],
        "initContainers": [plain],
    }
    assert check_containers(pod_spec, ("spec",), (1, 33), volumes={}) == []
