"""env, envFrom and the sources of env values."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.env import check_env, check_file_key_ref_volumes
from trainc.model.json import JsonObject, JsonValue

C = ("spec", "containers", 0)
E = "spec.containers[0].env"
STRICT_NAME = (
    "a valid environment variable name must consist of alphabetic characters, digits, '_', "
    "'-', or '.', and must not start with a digit (e.g. 'my.env-name', 'MY_ENV.NAME' or "
    "'MyEnvName1')"
)
RELAXED_NAME = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com')"
)
KEY = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name', 'KEY_NAME' or 'key-name')"
)
FOUR_SOURCES = (
    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
)
FIVE_SOURCES = (
    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or "
    "`fileKeyRef`"
)
BYTES = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def env(version: tuple[int, int], *variables: JsonObject, env_from: JsonValue = None) -> list[str]:
    container: JsonObject = {"name": "c", "env": list(variables), "envFrom": env_from}
    errors = check_env(container, C, version)
    assert {e.code for e in errors} <= {"pod.env"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("version", "name", "expected"),
    [
        pytest.param((1, 31), "NCCL_DEBUG=INFO", [STRICT_NAME], id="equals-strict"),
        pytest.param((1, 32), "NCCL_DEBUG=INFO", [RELAXED_NAME], id="equals-relaxed"),
        pytest.param((1, 31), "1PROC", [STRICT_NAME], id="digit-strict"),
        pytest.param((1, 32), "1PROC", [], id="digit-relaxed"),
        pytest.param((1, 31), "MY VAR", [STRICT_NAME], id="space-strict"),
        pytest.param((1, 33), "MY VAR", [], id="space-relaxed"),
        pytest.param((1, 33), "CAFÉ", [RELAXED_NAME], id="non-ascii-relaxed"),
        pytest.param((1, 31), "..", ["must not be '..'"], id="dot-dot-strict"),
        pytest.param((1, 31), "..x", ["must not start with '..'"], id="dot-prefix-strict"),
        pytest.param((1, 31), ".", ["must not be '.'"], id="dot-strict"),
        pytest.param((1, 33), "..", [], id="dot-dot-relaxed"),
        pytest.param((1, 29), "MASTER_ADDR", [], id="valid-strict"),
    ],
)
def test_names(version: tuple[int, int], name: str, expected: list[str]) -> None:
    assert env(version, {"name": name, "value": "1"}) == [
        f'{E}[0].name: Invalid value: "{name}": {detail}' for detail in expected
    ]


def test_name_required() -> None:
    assert env((1, 33), {"value": "1"}) == [f"{E}[0].name: Required value"]


@pytest.mark.parametrize(
    ("value_from", "expected"),
    [
        pytest.param({}, [f'{E}[0].valueFrom: Invalid value: "": {FOUR_SOURCES}'], id="empty"),
        pytest.param(
            {"fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}},
            [
                f'{E}[0].valueFrom: Invalid value: "": may not have more than one field '
                "specified at a time"
            ],
            id="two-sources",
        ),
        pytest.param(
            {"fieldRef": {"fieldPath": ""}},
            [f"{E}[0].valueFrom.fieldRef.fieldPath: Required value"],
            id="field-path-empty",
        ),
        pytest.param(
            {"fieldRef": {"fieldPath": "status.phase"}},
            [
                f'{E}[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": '
                'supported values: "metadata.name", "metadata.namespace", "metadata.uid", '
                '"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", '
                '"status.podIP", "status.podIPs"'
            ],
            id="field-path-not-for-env",
        ),
        pytest.param(
            {"fieldRef": {"fieldPath": "metadata.generateName"}},
            [
                f'{E}[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.generateName": '
                "error converting fieldPath: field label not supported: metadata.generateName"
            ],
            id="field-path-unknown",
        ),
        pytest.param(
            {"fieldRef": {"fieldPath": "spec.containers['a']"}},
            [
                f"{E}[0].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.containers['a']\": "
                "error converting fieldPath: field label does not support subscript: "
                "spec.containers['a']"
            ],
            id="field-path-subscript",
        ),
        pytest.param(
            {"fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}},
            [
                f'{E}[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.name": error '
                "converting fieldPath: unsupported pod version: v2"
            ],
            id="field-api-version",
        ),
        pytest.param(
            {"fieldRef": {"fieldPath": "metadata.labels['-bad']"}},
            [
                f'{E}[0].valueFrom.fieldRef: Invalid value: "-bad": name part must consist of '
                "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')"
            ],
            id="field-label-key",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.nvidia.com/gpu"}},
            [
                f"{E}[0].valueFrom.resourceFieldRef.resource: Unsupported value: "
                '"limits.nvidia.com/gpu": supported values: "limits.cpu", '
                '"limits.ephemeral-storage", "limits.memory", "requests.cpu", '
                '"requests.ephemeral-storage", "requests.memory"'
            ],
            id="resource-unsupported",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": ""}},
            [f"{E}[0].valueFrom.resourceFieldRef.resource: Required value"],
            id="resource-empty",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "requests.memory", "divisor": "512Mi"}},
            [
                f'{E}[0].valueFrom.resourceFieldRef.divisor: Invalid value: "requests.memory": '
                f"only divisor's values {BYTES} are supported with the memory resource"
            ],
            id="divisor-memory",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}},
            [
                f'{E}[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only '
                "divisor's values 1m and 1 are supported with the cpu resource"
            ],
            id="divisor-cpu",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.hugepages-2Mi", "divisor": "2Mi"}},
            [
                f"{E}[0].valueFrom.resourceFieldRef.divisor: Invalid value: "
                f'"limits.hugepages-2Mi": only divisor\'s values {BYTES} are supported with the '
                "hugepages resource"
            ],
            id="divisor-hugepages",
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.ephemeral-storage", "divisor": "3k"}},
            [
                f"{E}[0].valueFrom.resourceFieldRef.divisor: Invalid value: "
                f'"limits.ephemeral-storage": only divisor\'s values {BYTES} are supported with '
                "the local ephemeral storage resource"
            ],
            id="divisor-ephemeral",
        ),
        pytest.param(
            {"secretKeyRef": {"name": "", "key": ""}},
            [
                f'{E}[0].valueFrom.secretKeyRef.name: Invalid value: "": {SUBDOMAIN}',
                f"{E}[0].valueFrom.secretKeyRef.key: Required value",
            ],
            id="secret-key-ref-empty",
        ),
        pytest.param(
            {"configMapKeyRef": {"name": "Settings", "key": "config.yaml/x"}},
            [
                f'{E}[0].valueFrom.configMapKeyRef.name: Invalid value: "Settings": {SUBDOMAIN}',
                f'{E}[0].valueFrom.configMapKeyRef.key: Invalid value: "config.yaml/x": {KEY}',
            ],
            id="config-map-key-ref",
        ),
    ],
)
def test_value_from(value_from: JsonObject, expected: list[str]) -> None:
    assert env((1, 33), {"name": "X", "valueFrom": value_from}) == expected


def test_value_and_value_from() -> None:
    variable: JsonObject = {
        "name": "X",
        "value": "1",
        "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
    }
    assert env((1, 33), variable) == [
        f'{E}[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'
    ]


@pytest.mark.parametrize(
    "value_from",
    [
        pytest.param({"fieldRef": {"fieldPath": "spec.host"}}, id="legacy-host"),
        pytest.param({"fieldRef": {"fieldPath": "metadata.annotations['Team']"}}, id="annotation"),
        pytest.param({"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}, id="pod-ip"),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}, id="divisor-mi"
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "1000m"}}, id="divisor-1"
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.cpu", "divisor": 0}}, id="divisor-0"
        ),
        pytest.param(
            {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1000"}}, id="divisor-1k"
        ),
        pytest.param({"secretKeyRef": {"name": "wandb", "key": "api_key"}}, id="secret"),
    ],
)
def test_value_from_valid(value_from: JsonObject) -> None:
    assert env((1, 33), {"name": "X", "valueFrom": value_from}) == []


def test_file_key_ref_needs_1_35() -> None:
    variable: JsonObject = {
        "name": "TOKEN",
        "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "env", "key": "TOKEN"}},
    }
    assert env((1, 34), variable) == [f'{E}[0].valueFrom: Invalid value: "": {FOUR_SOURCES}']
    assert env((1, 35), variable) == []
    assert env((1, 35), {"name": "X", "valueFrom": {}}) == [
        f'{E}[0].valueFrom: Invalid value: "": {FIVE_SOURCES}'
    ]


def test_file_key_ref_fields() -> None:
    variable: JsonObject = {
        "name": "X",
        "valueFrom": {"fileKeyRef": {"volumeName": "Cfg", "path": "../env", "key": "A=B"}},
    }
    assert env((1, 35), variable) == [
        f'{E}[0].valueFrom.fileKeyRef.key: Invalid value: "A=B": {RELAXED_NAME}',
        f'{E}[0].valueFrom.fileKeyRef.volumeName: Invalid value: "Cfg": a lowercase RFC 1123 '
        "label must consist of lower case alphanumeric characters or '-', and must start and end "
        "with an alphanumeric character (e.g. 'my-name' or '123-abc')",
        f"{E}[0].valueFrom.fileKeyRef.path: Invalid value: \"../env\": must not contain '..'",
    ]
    assert env((1, 35), {"name": "X", "valueFrom": {"fileKeyRef": {}}}) == [
        f"{E}[0].valueFrom.fileKeyRef.{field}: Required value"
        for field in ("key", "volumeName", "path")
    ]


@pytest.mark.parametrize(
    ("env_from", "version", "expected"),
    [
        pytest.param(
            [{"prefix": "1_", "configMapRef": {"name": "cfg"}}],
            (1, 31),
            ['spec.containers[0].envFrom[0].prefix: Invalid value: "1_": ' + STRICT_NAME],
            id="prefix-strict",
        ),
        pytest.param(
            [{"prefix": "1_", "configMapRef": {"name": "cfg"}}], (1, 32), [], id="prefix-relaxed"
        ),
        pytest.param(
            [{"prefix": "A="}],
            (1, 33),
            [
                f'spec.containers[0].envFrom[0].prefix: Invalid value: "A=": {RELAXED_NAME}',
                'spec.containers[0].envFrom: Invalid value: "": must specify one of: '
                "`configMapRef` or `secretRef`",
            ],
            id="no-source",
        ),
        pytest.param(
            [{"configMapRef": {"name": "a"}, "secretRef": {"name": "b"}}],
            (1, 33),
            [
                'spec.containers[0].envFrom: Invalid value: "": may not have more than one field '
                "specified at a time"
            ],
            id="two-sources",
        ),
        pytest.param(
            [{"secretRef": {"name": ""}}, {"configMapRef": {"name": "Cfg"}}],
            (1, 33),
            [
                "spec.containers[0].envFrom[0].secretRef.name: Required value",
                'spec.containers[0].envFrom[1].configMapRef.name: Invalid value: "Cfg": '
                + SUBDOMAIN,
            ],
            id="names",
        ),
        pytest.param(
            [{"configMapRef": {"name": "cfg-"}}, {"secretRef": {"name": "team-secrets"}}],
            (1, 33),
            [],
            id="trailing-dash-allowed",
        ),
    ],
)
def test_env_from(env_from: JsonValue, version: tuple[int, int], expected: list[str]) -> None:
    assert env(version, env_from=env_from) == expected


def test_file_key_ref_volumes() -> None:
    def ref(volume: str) -> JsonObject:
        return {
            "name": "X",
            "valueFrom": {"fileKeyRef": {"volumeName": volume, "path": "p", "key": "K"}},
        }

    pod_spec: JsonObject = {
        "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "cfg"}}],
        "containers": [{"name": "c", "env": [ref("scratch"), ref("cfg")]}],
        "initContainers": [{"name": "i", "env": [ref("gone")]}],
    }
    errors = check_file_key_ref_volumes(pod_spec, ("spec",), context_of(pod_spec, (1, 35), {}))
    assert [(e.code, e.message()) for e in errors] == [
        (
            "pod.env",
            'spec.initContainers[0].env[0].valueFrom.fileKeyRef.volumeName: Not found: "gone"',
        ),
        (
            "pod.env",
            'spec.containers[0].env[1].valueFrom.fileKeyRef.volumeName: Invalid value: "cfg": '
            "referenced volume must be of type emptyDir",
        ),
    ]
    assert check_file_key_ref_volumes(pod_spec, ("spec",), context_of(pod_spec, (1, 34), {})) == []
