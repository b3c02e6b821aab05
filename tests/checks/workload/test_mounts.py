"""volumeMounts and volumeDevices."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.mounts import check_mounts
from trainc.model.json import JsonObject

M = "spec.containers[0].volumeMounts"
D = "spec.containers[0].volumeDevices"
BACKSTEPS = "can not contain backsteps ('..')"
VOLUMES: dict[str, JsonObject] = {
    "data": {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
    "scratch": {"name": "scratch", "emptyDir": {}},
    "cache": {"name": "cache", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
}


def mounts(
    container: JsonObject, version: tuple[int, int] = (1, 33), pod_spec: JsonObject | None = None
) -> list[str]:
    ctx = context_of(pod_spec or {}, version, VOLUMES)
    errors = check_mounts(container, ("spec", "containers", 0), ctx)
    assert {e.code for e in errors} <= {"pod.volume-mount"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        pytest.param(
            {"volumeMounts": [{"name": "dataset", "mountPath": "/data"}]},
            [f'{M}[0].name: Not found: "dataset"'],
            id="volume-not-found",
        ),
        pytest.param(
            {"volumeMounts": [{"mountPath": "/data"}]},
            [f"{M}[0].name: Required value", f'{M}[0].name: Not found: ""'],
            id="name-empty",
        ),
        pytest.param(
            {"volumeMounts": [{"name": "data"}]},
            [f"{M}[0].mountPath: Required value"],
            id="mount-path-empty",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {"name": "data", "mountPath": "/d"},
                    {"name": "scratch", "mountPath": "/d"},
                ]
            },
            [f'{M}[1].mountPath: Invalid value: "/d": must be unique'],
            id="mount-path-twice",
        ),
        pytest.param(
            {"volumeMounts": [{"name": "data", "mountPath": "/d", "subPath": "/abs/../x"}]},
            [
                f'{M}.subPath: Invalid value: "/abs/../x": must be a relative path',
                f"{M}.subPath: Invalid value: \"/abs/../x\": must not contain '..'",
            ],
            id="sub-path",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {"name": "data", "mountPath": "/d", "subPath": "a", "subPathExpr": "$(POD)/.."}
                ]
            },
            [
                f'{M}[0].subPathExpr: Invalid value: "$(POD)/..": subPathExpr and subPath are '
                "mutually exclusive",
                f"{M}.subPathExpr: Invalid value: \"$(POD)/..\": must not contain '..'",
            ],
            id="sub-path-expr",
        ),
        pytest.param(
            {"volumeMounts": [{"name": "data", "mountPath": "/d", "mountPropagation": "Shared"}]},
            [
                f'{M}.mountPropagation: Unsupported value: "Shared": supported values: '
                '"Bidirectional", "HostToContainer", "None"'
            ],
            id="propagation-unknown",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {"name": "data", "mountPath": "/d", "mountPropagation": "Bidirectional"}
                ]
            },
            [
                f"{M}.mountPropagation: Forbidden: Bidirectional mount propagation is available "
                "only to privileged containers"
            ],
            id="propagation-unprivileged",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {
                        "name": "data",
                        "mountPath": "/d",
                        "recursiveReadOnly": "Enabled",
                        "mountPropagation": "HostToContainer",
                    }
                ]
            },
            [
                f"{M}.recursiveReadOnly: Forbidden: may only be specified when readOnly is true",
                f"{M}.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is "
                "None or not specified",
            ],
            id="recursive-read-only",
        ),
        pytest.param(
            {"volumeMounts": [{"name": "data", "mountPath": "/d", "recursiveReadOnly": "Always"}]},
            [
                f'{M}.recursiveReadOnly: Unsupported value: "Always": supported values: '
                '"Disabled", "Enabled", "IfPossible"'
            ],
            id="recursive-read-only-unknown",
        ),
        pytest.param(
            {"volumeDevices": [{"name": "scratch", "devicePath": "/dev/x"}]},
            [
                f'{D}[0].name: Invalid value: "scratch": can only use volume source type of '
                "PersistentVolumeClaim or Ephemeral for block mode"
            ],
            id="device-not-a-claim",
        ),
        pytest.param(
            {
                "volumeDevices": [
                    {"name": "data", "devicePath": "/dev/../x"},
                    {"name": "data", "devicePath": ""},
                    {"name": "nope", "devicePath": "/dev/../x"},
                ]
            },
            [
                f'{D}[0].devicePath: Invalid value: "/dev/../x": {BACKSTEPS}',
                f'{D}[1].name: Invalid value: "data": must be unique',
                f"{D}[1].devicePath: Required value",
                f'{D}[2].name: Not found: "nope"',
                f'{D}[2].devicePath: Invalid value: "/dev/../x": {BACKSTEPS}',
            ],
            id="devices",
        ),
        pytest.param(
            {
                "volumeMounts": [{"name": "data", "mountPath": "/dev/xvda"}],
                "volumeDevices": [{"name": "data", "devicePath": "/dev/xvda"}],
            },
            [
                f'{M}[0].name: Invalid value: "data": must not already exist in volumeDevices',
                f'{M}[0].mountPath: Invalid value: "/dev/xvda": must not already exist as a path '
                "in volumeDevices",
                f'{D}[0].name: Invalid value: "data": must not already exist in volumeMounts',
                f'{D}[0].devicePath: Invalid value: "/dev/xvda": must not already exist as a path '
                "in volumeMounts",
            ],
            id="mount-and-device-overlap",
        ),
    ],
)
def test_invalid(container: JsonObject, expected: list[str]) -> None:
    assert mounts(container) == expected


@pytest.mark.parametrize(
    "container",
    [
        pytest.param(
            {"volumeMounts": [{"name": "data", "mountPath": "/data", "subPath": "run-1"}]},
            id="sub-path",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {"name": "data", "mountPath": "/d", "mountPropagation": "Bidirectional"}
                ],
                "securityContext": {"privileged": True},
            },
            id="bidirectional-privileged",
        ),
        pytest.param(
            {
                "volumeMounts": [
                    {
                        "name": "data",
                        "mountPath": "/d",
                        "readOnly": True,
                        "recursiveReadOnly": "IfPossible",
                    }
                ]
            },
            id="recursive-read-only",
        ),
        pytest.param(
            {"volumeDevices": [{"name": "cache", "devicePath": "/dev/xvdb"}]}, id="ephemeral-device"
        ),
    ],
)
def test_valid(container: JsonObject) -> None:
    assert mounts(container) == []


def test_recursive_read_only_gate() -> None:
    container: JsonObject = {
        "volumeMounts": [{"name": "data", "mountPath": "/d", "recursiveReadOnly": "Enabled"}]
    }
    assert mounts(container, (1, 30)) == []  # alpha: the API server drops the field
    assert mounts(container, (1, 31)) == [
        f"{M}.recursiveReadOnly: Forbidden: may only be specified when readOnly is true"
    ]


def test_image_volume_mounts_dropped_before_1_35() -> None:
    pod_spec: JsonObject = {"volumes": [{"name": "model", "image": {"reference": "reg/model:1"}}]}
    container: JsonObject = {
        "volumeMounts": [
            {"name": "model", "mountPath": "/model"},
            {"name": "nope", "mountPath": "/n"},
        ]
    }
    # 1.34: the image volume and its mount are dropped; the next mount moves up to index 0.
    assert mounts(container, (1, 34), pod_spec) == [f'{M}[0].name: Not found: "nope"']
    # 1.35: the volume is kept, so (passed as valid) its mount resolves.
    ctx = context_of(pod_spec, (1, 35), {"model": {"name": "model", "image": {}}})
    errors = check_mounts(container, ("spec", "containers", 0), ctx)
    assert [e.message() for e in errors] == [f'{M}[1].name: Not found: "nope"']
