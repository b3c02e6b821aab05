"""Liveness, readiness and startup probes, and the actions they run."""

from __future__ import annotations

import pytest

from trainc.checks.workload.probes import check_probes
from trainc.model.json import JsonObject

C = "spec.containers[0]"
RANGE = "must be between 1 and 65535, inclusive"


def probes(container: JsonObject) -> list[str]:
    errors = check_probes(container, ("spec", "containers", 0))
    assert {e.code for e in errors} <= {"pod.probe"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        pytest.param(
            {"livenessProbe": {"initialDelaySeconds": 5}},
            [f"{C}.livenessProbe: Required value: must specify a handler type"],
            id="no-action",
        ),
        pytest.param(
            {"readinessProbe": {"exec": {"command": ["true"]}, "httpGet": {"port": 8080}}},
            [f"{C}.readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type"],
            id="two-actions",
        ),
        pytest.param(
            {"startupProbe": {"exec": {"command": []}}},
            [f"{C}.startupProbe.exec.command: Required value"],
            id="exec-no-command",
        ),
        pytest.param(
            {"livenessProbe": {"httpGet": {"path": "/healthz", "port": "8080"}}},
            [
                f'{C}.livenessProbe.httpGet.port: Invalid value: "8080": must contain at least '
                "one letter (a-z)"
            ],
            id="port-number-quoted",
        ),
        pytest.param(
            {"livenessProbe": {"httpGet": {"port": 0, "scheme": "https"}}},
            [
                f"{C}.livenessProbe.httpGet.port: Invalid value: 0: {RANGE}",
                f'{C}.livenessProbe.httpGet.scheme: Unsupported value: "https": supported values: '
                '"HTTP", "HTTPS"',
            ],
            id="http-port-and-scheme",
        ),
        pytest.param(
            {
                "readinessProbe": {
                    "httpGet": {"port": 80, "httpHeaders": [{"name": "X Auth", "value": "1"}]}
                }
            },
            [
                f'{C}.readinessProbe.httpGet.httpHeaders: Invalid value: "X Auth": a valid HTTP '
                "header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name')"
            ],
            id="header-name",
        ),
        pytest.param(
            {"livenessProbe": {"tcpSocket": {"port": 65536}}},
            [f"{C}.livenessProbe.tcpSocket.port: Invalid value: 65536: {RANGE}"],
            id="tcp-port",
        ),
        pytest.param(
            {"livenessProbe": {"grpc": {}}},
            [f"{C}.livenessProbe.grpc.port: Invalid value: 0: {RANGE}"],
            id="grpc-port-missing",
        ),
        pytest.param(
            {"livenessProbe": {"sleep": {"seconds": 1}}},
            [f"{C}.livenessProbe: Required value: must specify a handler type"],
            id="probes-cannot-sleep",
        ),
        pytest.param(
            {
                "livenessProbe": {
                    "exec": {"command": ["true"]},
                    "initialDelaySeconds": -1,
                    "periodSeconds": -10,
                    "failureThreshold": -3,
                }
            },
            [
                f"{C}.livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than "
                "or equal to 0",
                f"{C}.livenessProbe.periodSeconds: Invalid value: -10: must be greater than or "
                "equal to 0",
                f"{C}.livenessProbe.failureThreshold: Invalid value: -3: must be greater than or "
                "equal to 0",
            ],
            id="negative-timings",
        ),
        pytest.param(
            {"startupProbe": {"exec": {"command": ["true"]}, "successThreshold": 2}},
            [f"{C}.startupProbe.successThreshold: Invalid value: 2: must be 1"],
            id="startup-success-threshold",
        ),
        pytest.param(
            {"livenessProbe": {"exec": {"command": ["true"]}, "successThreshold": -1}},
            [
                f"{C}.livenessProbe.successThreshold: Invalid value: -1: must be greater than or "
                "equal to 0",
                f"{C}.livenessProbe.successThreshold: Invalid value: -1: must be 1",
            ],
            id="liveness-success-threshold-negative",
        ),
        pytest.param(
            {"readinessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 5}},
            [
                f"{C}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be "
                "set for readinessProbes"
            ],
            id="readiness-grace-period",
        ),
        pytest.param(
            {"livenessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 0}},
            [
                f"{C}.livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be "
                "greater than 0"
            ],
            id="liveness-grace-period-zero",
        ),
    ],
)
def test_invalid(container: JsonObject, expected: list[str]) -> None:
    assert probes(container) == expected


@pytest.mark.parametrize(
    "container",
    [
        pytest.param({"livenessProbe": {"httpGet": {"port": "http"}}}, id="named-port-defaults"),
        pytest.param(
            {"readinessProbe": {"tcpSocket": {"port": 29500}, "successThreshold": 3}},
            id="readiness-may-need-several",
        ),
        pytest.param(
            {"startupProbe": {"grpc": {"port": 9000}, "successThreshold": 0, "timeoutSeconds": 0}},
            id="zero-timings-defaulted",
        ),
        pytest.param(
            {"livenessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 10}},
            id="liveness-grace-period",
        ),
        pytest.param({}, id="no-probes"),
    ],
)
def test_valid(container: JsonObject) -> None:
    assert probes(container) == []
