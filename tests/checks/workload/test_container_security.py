"""A container's securityContext."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.container_security import check_security_context
from trainc.model.json import JsonObject

S = "spec.containers[0].securityContext"


def security(
    context: JsonObject, version: tuple[int, int] = (1, 33), pod_spec: JsonObject | None = None
) -> list[str]:
    ctx = context_of(pod_spec or {}, version, {})
    errors = check_security_context(context, ("spec", "containers", 0, "securityContext"), ctx)
    assert {e.code for e in errors} <= {"pod.security-context"}
    return [e.message() for e in errors]


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        pytest.param(
            {"runAsUser": -1, "runAsGroup": 2**31},
            [
                f"{S}.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
                f"{S}.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, "
                "inclusive",
            ],
            id="ids",
        ),
        pytest.param(
            {"allowPrivilegeEscalation": False, "privileged": True},
            [
                f'{S}: Invalid value: {{"allowPrivilegeEscalation":false,"privileged":true}}: '
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            ],
            id="escalation-privileged",
        ),
        pytest.param(
            {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}},
            [
                f'{S}: Invalid value: {{"allowPrivilegeEscalation":false,"capabilities":'
                f'{{"add":["CAP_SYS_ADMIN"]}}}}: cannot set `allowPrivilegeEscalation` to false '
                "and `capabilities.Add` CAP_SYS_ADMIN"
            ],
            id="escalation-sys-admin",
        ),
        pytest.param(
            {"procMount": "unmasked"},
            [
                f'{S}.procMount: Unsupported value: "unmasked": supported values: "Default", '
                '"Unmasked"'
            ],
            id="proc-mount-unknown",
        ),
        pytest.param(
            {"procMount": "Unmasked"},
            [
                f'{S}.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use '
                "`Unmasked`"
            ],
            id="proc-mount-host-users",
        ),
        pytest.param(
            {"seccompProfile": {"type": "Localhost"}},
            [
                f"{S}.seccompProfile.localhostProfile: Required value: must be set when seccomp "
                "type is Localhost"
            ],
            id="seccomp-localhost",
        ),
        pytest.param(
            {"appArmorProfile": {"type": "localhost"}},
            [
                f'{S}.appArmorProfile.type: Unsupported value: "localhost": supported values: '
                '"Localhost", "RuntimeDefault", "Unconfined"'
            ],
            id="apparmor-type",
        ),
        pytest.param(
            {"windowsOptions": {"runAsUserName": ""}},
            [
                f'{S}.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an '
                "empty string"
            ],
            id="windows-user",
        ),
    ],
)
def test_invalid(context: JsonObject, expected: list[str]) -> None:
    assert security(context) == expected


@pytest.mark.parametrize(
    "context",
    [
        pytest.param({"runAsUser": 0, "runAsGroup": 2**31 - 1, "runAsNonRoot": False}, id="ids"),
        pytest.param(
            {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}, id="hardened"
        ),
        pytest.param({"privileged": True, "allowPrivilegeEscalation": True}, id="privileged"),
        pytest.param({"procMount": "Default"}, id="proc-mount-default"),
        pytest.param({"seccompProfile": {"type": "RuntimeDefault"}}, id="seccomp"),
    ],
)
def test_valid(context: JsonObject) -> None:
    assert security(context) == []


def test_proc_mount_judged_from_1_33() -> None:
    assert security({"procMount": "Unmasked"}, (1, 32)) == []  # reset to Default
    assert security({"procMount": "Unmasked"}, (1, 33), {"hostUsers": False}) == []


def test_host_users_is_read_from_the_pod_spec() -> None:
    # The v1 API keeps hostUsers on the pod spec (upstream's internal type moves it into the
    # pod's security context); the key written inside a securityContext is no field there.
    unmasked: JsonObject = {"procMount": "Unmasked"}
    refused = [
        f'{S}.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`'
    ]
    assert security(unmasked, (1, 33), {"hostUsers": False}) == []
    assert security(unmasked, (1, 33), {"securityContext": {"hostUsers": False}}) == refused
    assert security({**unmasked, "hostUsers": False}, (1, 33)) == refused


def test_apparmor_fields_from_1_30() -> None:
    assert security({"appArmorProfile": {"type": "Bogus"}}, (1, 29)) == []
    assert security({"appArmorProfile": {"type": "Bogus"}}, (1, 30)) == [
        f'{S}.appArmorProfile.type: Unsupported value: "Bogus": supported values: "Localhost", '
        '"RuntimeDefault", "Unconfined"'
    ]
