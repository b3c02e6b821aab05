"""Container ports and host-port conflicts."""

from __future__ import annotations

import pytest

from trainc.checks.workload.ports import check_host_port_conflicts, check_ports
from trainc.model.json import JsonObject, JsonValue

PORTS = ("spec", "containers", 0, "ports")
P = "spec.containers[0].ports"
RANGE = "must be between 1 and 65535, inclusive"


def messages(ports: JsonValue) -> list[str]:
    errors = check_ports(ports, PORTS)
    assert {e.code for e in errors} <= {"pod.ports"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        pytest.param([{}], [f"{P}[0].containerPort: Required value"], id="container-port-missing"),
        pytest.param(
            [{"containerPort": 65536}],
            [f"{P}[0].containerPort: Invalid value: 65536: {RANGE}"],
            id="container-port-range",
        ),
        pytest.param(
            [{"containerPort": -1}],
            [f"{P}[0].containerPort: Invalid value: -1: {RANGE}"],
            id="container-port-negative",
        ),
        pytest.param(
            [{"containerPort": 80, "hostPort": 70000}],
            [f"{P}[0].hostPort: Invalid value: 70000: {RANGE}"],
            id="host-port-range",
        ),
        pytest.param(
            [{"containerPort": 80, "protocol": "HTTP"}],
            [f'{P}[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
            id="protocol",
        ),
        pytest.param(
            [{"containerPort": 6006, "name": "tensorboard-port"}],
            [f'{P}[0].name: Invalid value: "tensorboard-port": must be no more than 15 characters'],
            id="name-too-long",
        ),
        pytest.param(
            [{"containerPort": 80, "name": "HTTP"}],
            [
                f'{P}[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters '
                "(a-z, 0-9), and hyphens (-)",
                f'{P}[0].name: Invalid value: "HTTP": must contain at least one letter (a-z)',
            ],
            id="name-upper-case",
        ),
        pytest.param(
            [{"containerPort": 80, "name": "-web--ui"}],
            [
                f'{P}[0].name: Invalid value: "-web--ui": must not contain consecutive hyphens',
                f'{P}[0].name: Invalid value: "-web--ui": must not begin or end with a hyphen',
            ],
            id="name-hyphens",
        ),
        pytest.param(
            [{"containerPort": 80, "name": "web"}, {"containerPort": 81, "name": "web"}],
            [f'{P}[1].name: Duplicate value: "web"'],
            id="name-duplicate",
        ),
    ],
)
def test_invalid(ports: JsonValue, expected: list[str]) -> None:
    assert messages(ports) == expected


@pytest.mark.parametrize(
    "ports",
    [
        pytest.param([{"containerPort": 29500}], id="protocol-defaulted"),
        pytest.param([{"containerPort": 1, "hostPort": 65535, "protocol": "UDP"}], id="bounds"),
        pytest.param([{"containerPort": 80, "name": "web"}, {"containerPort": 81}], id="named"),
        pytest.param(None, id="absent"),
    ],
)
def test_valid(ports: JsonValue) -> None:
    assert messages(ports) == []


def _container(*ports: JsonObject) -> JsonObject:
    return {"name": "c", "ports": list(ports)}


def test_host_port_conflicts() -> None:
    containers: list[JsonValue] = [
        _container({"containerPort": 80, "hostPort": 8080}),
        _container({"containerPort": 81, "hostPort": 8080, "protocol": "UDP"}),
        _container({"containerPort": 82, "hostPort": 8080, "hostIP": "10.0.0.1"}),
        _container({"containerPort": 83, "hostPort": 8080, "protocol": "TCP"}),
    ]
    errors = check_host_port_conflicts(containers, ("spec", "containers"))
    assert [(e.code, e.message()) for e in errors] == [
        ("pod.ports", 'spec.containers[3].ports[0].hostPort: Duplicate value: "TCP//8080"')
    ]


def test_host_network_fills_in_host_ports() -> None:
    containers: list[JsonValue] = [
        _container({"containerPort": 80}),
        _container({"containerPort": 80}),
    ]
    assert check_host_port_conflicts(containers, ("spec", "containers")) == []
    errors = check_host_port_conflicts(containers, ("spec", "containers"), host_network=True)
    assert [e.message() for e in errors] == [
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"'
    ]
