"""check_containers: the container lists, names, images, and the order of findings."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.checks.workload.containers import check_containers
from trainc.model.json import JsonObject

SPEC = ("spec", "template", "spec")
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc')"
)
C0 = "spec.template.spec.containers[0]"


def node(**fields: Any) -> JsonObject:
    return {"name": "node", "image": "pytorch/pytorch:2.5.1", **fields}


def run(pod_spec: JsonObject, version: tuple[int, int] = (1, 33)) -> list[tuple[str, str]]:
    volumes: dict[str, JsonObject] = {"data": {"name": "data", "emptyDir": {}}}
    return [
        (e.code, e.message()) for e in check_containers(pod_spec, SPEC, version, volumes=volumes)
    ]


@pytest.mark.parametrize(
    ("pod_spec", "expected"),
    [
        pytest.param(
            {"containers": []},
            [("pod.containers", "spec.template.spec.containers: Required value")],
            id="no-containers",
        ),
        pytest.param(
            {"initContainers": [node(name="init")]},
            [("pod.containers", "spec.template.spec.containers: Required value")],
            id="only-init-containers",
        ),
        pytest.param(
            {"containers": [node(name="")]},
            [("pod.container-name", f"{C0}.name: Required value")],
            id="name-empty",
        ),
        pytest.param(
            {"containers": [node(name="pytorch_trainer")]},
            [("pod.container-name", f'{C0}.name: Invalid value: "pytorch_trainer": {LABEL_MSG}')],
            id="name-underscore",
        ),
        pytest.param(
            {"containers": [node(name="a.b")]},
            [("pod.container-name", f'{C0}.name: Invalid value: "a.b": must not contain dots')],
            id="name-dots",
        ),
        pytest.param(
            {"containers": [node(), node()]},
            [
                (
                    "pod.container-name",
                    'spec.template.spec.containers[1].name: Duplicate value: "node"',
                )
            ],
            id="name-duplicate",
        ),
        pytest.param(
            {"containers": [node()], "initContainers": [node(name="node")]},
            [
                (
                    "pod.container-name",
                    'spec.template.spec.initContainers[0].name: Duplicate value: "node"',
                )
            ],
            id="name-duplicate-across-lists",
        ),
        pytest.param(
            {"containers": [node()], "initContainers": [node(name="a"), node(name="a")]},
            [
                (
                    "pod.container-name",
                    'spec.template.spec.initContainers[1].name: Duplicate value: "a"',
                )
            ],
            id="name-duplicate-init",
        ),
        pytest.param(
            {"containers": [{"name": "node"}]},
            [("pod.image", f"{C0}.image: Required value")],
            id="image-missing",
        ),
        pytest.param(
            {"containers": [node(imagePullPolicy="always")]},
            [
                (
                    "pod.image",
                    f'{C0}.imagePullPolicy: Unsupported value: "always": supported values: '
                    '"Always", "IfNotPresent", "Never"',
                )
            ],
            id="pull-policy-case",
        ),
        pytest.param(
            {"containers": [node(image="pytorch/pytorch:2.5.1 ")]},
            [
                (
                    "pod.image",
                    f'{C0}.image: Invalid value: "pytorch/pytorch:2.5.1 ": must not have leading '
                    "or trailing whitespace",
                )
            ],
            id="image-whitespace-pod-only",
        ),
        pytest.param(
            {"containers": [node()], "ephemeralContainers": [node(name="debug")]},
            [
                (
                    "pod.containers",
                    "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not "
                    "allowed in pod template",
                )
            ],
            id="ephemeral-in-template",
        ),
    ],
)
def test_invalid(pod_spec: JsonObject, expected: list[tuple[str, str]]) -> None:
    assert run(pod_spec) == expected


@pytest.mark.parametrize(
    "pod_spec",
    [
        pytest.param({"containers": [node()]}, id="minimal"),
        pytest.param({"containers": [node(imagePullPolicy="Never")]}, id="pull-policy"),
        pytest.param({"containers": [node(image="pytorch:latest")]}, id="pull-policy-defaulted"),
        pytest.param(
            {"containers": [node()], "initContainers": [node(name="init")]}, id="init-named-apart"
        ),
        pytest.param({"containers": [node(name="a" * 63)]}, id="name-63"),
        pytest.param(
            {
                "containers": [node(livenessProbe={"exec": {"command": ["true"]}})],
                "initContainers": [
                    node(
                        name="metrics",
                        restartPolicy="Always",
                        readinessProbe={"httpGet": {"port": "metrics"}},
                        lifecycle={"preStop": {"exec": {"command": ["true"]}}},
                    )
                ],
            },
            id="sidecar-with-probes",
        ),
    ],
)
def test_valid(pod_spec: JsonObject) -> None:
    assert run(pod_spec) == []


def test_order_follows_the_api_server() -> None:
    """Per container: name, image, ports, env, mounts, pull policy, security, probes; then
    init containers; pod-only findings last."""
    pod_spec: JsonObject = {
        "containers": [
            node(
                name="Node",
                image=" img",
                livenessProbe={"exec": {}},
                securityContext={"runAsUser": -1},
                imagePullPolicy="sometimes",
                volumeMounts=[{"name": "missing", "mountPath": "/m"}],
                env=[{"name": "A=B"}],
                ports=[{"containerPort": 70000}],
            )
        ],
        "initContainers": [node(name="init", startupProbe={"tcpSocket": {"port": 1}})],
    }
    assert [message.split(":")[0] for _, message in run(pod_spec)] == [
        f"{C0}.name",
        f"{C0}.ports[0].containerPort",
        f"{C0}.env[0].name",
        f"{C0}.volumeMounts[0].name",
        f"{C0}.imagePullPolicy",
        f"{C0}.securityContext.runAsUser",
        f"{C0}.livenessProbe.exec.command",
        "spec.template.spec.initContainers[0].startupProbe",
        f"{C0}.image",
    ]


def test_host_network_ports_collide_on_the_pod_only() -> None:
    """A template without hostPort passes; its Pods default hostPort to containerPort."""
    pod_spec: JsonObject = {
        "hostNetwork": True,
        "containers": [
            node(ports=[{"containerPort": 8080}]),
            node(name="metrics", ports=[{"containerPort": 8080}]),
        ],
    }
    assert run(pod_spec) == [
        (
            "pod.ports",
            'spec.template.spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
        )
    ]
    assert run({**pod_spec, "hostNetwork": False}) == []


def test_explicit_host_port_conflict_reported_once() -> None:
    pod_spec: JsonObject = {
        "hostNetwork": True,
        "containers": [
            node(ports=[{"containerPort": 80, "hostPort": 80}]),
            node(name="b", ports=[{"containerPort": 80, "hostPort": 80}]),
        ],
    }
    assert run(pod_spec) == [
        (
            "pod.ports",
            'spec.template.spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"',
        )
    ]


def test_wrong_types_are_left_to_the_schema() -> None:
    pod_spec: JsonObject = {
        "containers": [node(name=3, image=["x"], ports="p", env={"a": 1}), "not-a-container"],
        "initContainers": "x",
    }
    assert run(pod_spec) == []
