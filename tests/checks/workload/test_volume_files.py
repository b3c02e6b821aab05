import pytest

from trainc.checks.workload.fielderrors import FieldError
from trainc.checks.workload.volume_sources import downward_api_errors, secret_errors

P = ("v",)
QUALIFIED_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')"
)


def messages(errors: list[FieldError]) -> list[str]:
    assert {error.code for error in errors} == {"pod.volume-items"} or not errors
    return [error.message() for error in errors]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"key": "tls.crt", "path": "certs/tls.crt", "mode": 0o400}, []),
        ({}, ["v.items[0].key: Required value", "v.items[0].path: Required value"]),
        (
            {"key": "k", "path": "/etc/k"},
            ['v.items[0].path: Invalid value: "/etc/k": must be a relative path'],
        ),
        (
            {"key": "k", "path": "a/../../k"},
            ["v.items[0].path: Invalid value: \"a/../../k\": must not contain '..'"],
        ),
        (
            {"key": "k", "path": "..data"},
            ["v.items[0].path: Invalid value: \"..data\": must not start with '..'"],
        ),
        (
            {"key": "k", "path": "k", "mode": 0o1000},
            [
                "v.items[0].mode: Invalid value: 512: must be a number "
                "between 0 and 0777 (octal), both inclusive",
            ],
        ),
        # YAML's 512.0 reaches the API server as the JSON number 512, an integer mode.
        (
            {"key": "k", "path": "k", "mode": 512.0},
            [
                "v.items[0].mode: Invalid value: 512: must be a number "
                "between 0 and 0777 (octal), both inclusive",
            ],
        ),
    ],
)
def test_key_to_path(item, expected):
    assert messages(secret_errors({"secretName": "s", "items": [item]}, P)) == expected


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}, []),
        (
            {
                "path": "rank",
                "fieldRef": {
                    "apiVersion": "v1",
                    "fieldPath": "metadata.annotations['Trainer/Rank']",
                },
            },
            [],
        ),
        (
            {
                "path": "cpu",
                "resourceFieldRef": {
                    "containerName": "node",
                    "resource": "limits.cpu",
                    "divisor": "1m",
                },
            },
            [],
        ),
        (
            {
                "path": "mem",
                "resourceFieldRef": {
                    "containerName": "node",
                    "resource": "requests.memory",
                    "divisor": "1Mi",
                },
            },
            [],
        ),
        (
            {
                "path": "hp",
                "resourceFieldRef": {"containerName": "node", "resource": "limits.hugepages-2Mi"},
            },
            [],
        ),
        # Upstream reports an item's problems at the volume, not at items[i].
        (
            {},
            [
                "v.path: Required value",
                "v: Required value: one of fieldRef and resourceFieldRef is required",
            ],
        ),
        (
            {
                "path": "x",
                "fieldRef": {"fieldPath": "spec.nodeName"},
                "resourceFieldRef": {},
                "mode": 0o777,
            },
            [
                'v.fieldRef.fieldPath: Unsupported value: "spec.nodeName": '
                'supported values: "metadata.annotations", "metadata.labels", '
                '"metadata.name", "metadata.namespace", "metadata.uid"',
                'v: Invalid value: "resource": fieldRef and resourceFieldRef '
                "can not be specified simultaneously",
            ],
        ),
        (
            {"path": "x", "fieldRef": {"fieldPath": "spec.host"}},
            [
                'v.fieldRef.fieldPath: Unsupported value: "spec.nodeName": '
                'supported values: "metadata.annotations", "metadata.labels", '
                '"metadata.name", "metadata.namespace", "metadata.uid"',
            ],
        ),
        (
            {"path": "x", "fieldRef": {"fieldPath": "status.podIPs['0']"}},
            [
                "v.fieldRef.fieldPath: Invalid value: \"status.podIPs['0']\": "
                "error converting fieldPath: field label does not support "
                "subscript: status.podIPs['0']",
            ],
        ),
        (
            {"path": "x", "fieldRef": {"fieldPath": "metadata.generation"}},
            [
                'v.fieldRef.fieldPath: Invalid value: "metadata.generation": '
                "error converting fieldPath: field label not supported: "
                "metadata.generation",
            ],
        ),
        (
            {"path": "x", "fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}},
            [
                'v.fieldRef.fieldPath: Invalid value: "metadata.name": error '
                "converting fieldPath: unsupported pod version: v2",
            ],
        ),
        ({"path": "x", "fieldRef": {}}, ["v.fieldRef.fieldPath: Required value"]),
        (
            {"path": "x", "fieldRef": {"fieldPath": "metadata.labels['-bad']"}},
            [
                f'v.fieldRef: Invalid value: "-bad": {QUALIFIED_MSG}',
            ],
        ),
        (
            {"path": "x", "resourceFieldRef": {"resource": "limits.cpu"}},
            ["v.resourceFieldRef.containerName: Required value"],
        ),
        (
            {"path": "x", "resourceFieldRef": {"containerName": "c"}},
            ["v.resourceFieldRef.resource: Required value"],
        ),
        (
            {
                "path": "x",
                "resourceFieldRef": {"containerName": "c", "resource": "limits.nvidia.com/gpu"},
            },
            [
                "v.resourceFieldRef.resource: Unsupported value: "
                '"limits.nvidia.com/gpu": supported values: "limits.cpu", '
                '"limits.ephemeral-storage", "limits.memory", "requests.cpu", '
                '"requests.ephemeral-storage", "requests.memory"',
            ],
        ),
        (
            {
                "path": "x",
                "resourceFieldRef": {
                    "containerName": "c",
                    "resource": "limits.cpu",
                    "divisor": "0.5",
                },
            },
            [
                'v.resourceFieldRef.divisor: Invalid value: "limits.cpu": '
                "only divisor's values 1m and 1 are supported with the cpu "
                "resource",
            ],
        ),
        (
            {
                "path": "x",
                "resourceFieldRef": {
                    "containerName": "c",
                    "resource": "requests.ephemeral-storage",
                    "divisor": "1024",
                },
            },
            [
                "v.resourceFieldRef.divisor: Invalid value: "
                '"requests.ephemeral-storage": only divisor\'s values 1, 1k, '
                "1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
                "supported with the local ephemeral storage resource",
            ],
        ),
        (
            {
                "path": "x",
                "resourceFieldRef": {
                    "containerName": "c",
                    "resource": "limits.hugepages-1Gi",
                    "divisor": "2Mi",
                },
            },
            [
                "v.resourceFieldRef.divisor: Invalid value: "
                '"limits.hugepages-1Gi": only divisor\'s values 1, 1k, 1M, '
                "1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported "
                "with the hugepages resource",
            ],
        ),
    ],
)
def test_downward_api_files(item, expected):
    assert messages(downward_api_errors({"items": [item]}, P)) == expected
