"""The pod security context, host namespaces, operating system and pod annotations."""

from __future__ import annotations

import pytest

from tests.checks.workload.test_pod import Case, found, template
from trainc.schema.metadata import dns1123_subdomain_errors

S = "spec.template.spec"
SC = f"{S}.securityContext"
A = "spec.template.annotations"
RANGE = "must be between 0 and 2147483647, inclusive"
WINDOWS = "cannot be set for a windows pod"
SYSCTL_WORDS = (
    "a sysctl name must consist of segments of lower case alphanumeric characters, '-' or '_', "
    "each starting and ending with an alphanumeric character, separated by '.' or '/' "
    "(e.g. 'kernel.shm_rmid_forced' or 'net/ipv4/ip_local_port_range')"
)

SECURITY: list[Case] = [
    (
        template(
            securityContext={"runAsUser": -1, "fsGroup": 2**31, "supplementalGroups": [0, -5]},
            shareProcessNamespace=True,
            hostPID=True,
        ),
        (1, 33),
        [
            ("pod.security-context", f"{SC}.fsGroup: Invalid value: 2147483648: {RANGE}"),
            ("pod.security-context", f"{SC}.runAsUser: Invalid value: -1: {RANGE}"),
            ("pod.security-context", f"{SC}.supplementalGroups[1]: Invalid value: -5: {RANGE}"),
            (
                "pod.security-context",
                f"{SC}.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and "
                "HostPID cannot both be enabled",
            ),
        ],
    ),
    (template(securityContext={"runAsUser": 1000, "runAsGroup": 0, "fsGroup": 100}), (1, 33), []),
    (
        template(
            securityContext={
                "sysctls": [
                    {"name": ""},
                    {"name": "Net.Core"},
                    {"name": "kernel.shm_rmid_forced"},
                    {"name": "kernel.shm_rmid_forced"},
                ]
            }
        ),
        (1, 33),
        [
            ("pod.security-context", f"{SC}.sysctls[0].name: Required value"),
            (
                "pod.security-context",
                f'{SC}.sysctls[1].name: Invalid value: "Net.Core": must have at most 253 '
                f"characters: {SYSCTL_WORDS}",
            ),
            (
                "pod.security-context",
                f'{SC}.sysctls[3].name: Duplicate value: "kernel.shm_rmid_forced"',
            ),
        ],
    ),
    (
        template(securityContext={"sysctls": [{"name": "net/ipv4/ip_local_port_range"}]}),
        (1, 33),
        [],
    ),
    (
        template(
            securityContext={
                "fsGroupChangePolicy": "Sometimes",
                "seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "a.json"},
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: '
                '"Always", "OnRootMismatch"',
            ),
            (
                "pod.security-context",
                f"{SC}.seccompProfile.localhostProfile: Invalid value: "
                '{"localhostProfile":"a.json","type":"RuntimeDefault"}: can only be set when '
                "seccomp type is Localhost",
            ),
        ],
    ),
    (
        template(
            securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "/a"}}
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.seccompProfile.localhostProfile: Invalid value: "/a": must be a relative '
                "path",
            )
        ],
    ),
    (
        template(securityContext={"seccompProfile": {"type": ""}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f"{SC}.seccompProfile.type: Required value: type is required when seccompProfile "
                "is set",
            )
        ],
    ),
    (
        template(
            securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "a.json"}}
        ),
        (1, 33),
        [],
    ),
    # appArmorProfile exists from 1.30; before, the API server drops it unchecked.
    (template(securityContext={"appArmorProfile": {"type": "Localhost"}}), (1, 29), []),
    (
        template(securityContext={"appArmorProfile": {"type": "Localhost"}}),
        (1, 30),
        [
            (
                "pod.security-context",
                f"{SC}.appArmorProfile.localhostProfile: Required value: must be set when "
                "AppArmor type is Localhost",
            )
        ],
    ),
    (
        template(
            securityContext={"appArmorProfile": {"type": "Localhost", "localhostProfile": " k "}}
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.appArmorProfile.localhostProfile: Invalid value: " k ": must not be padded '
                "with whitespace",
            )
        ],
    ),
    (
        template(securityContext={"appArmorProfile": {"type": "unconfined"}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.appArmorProfile.type: Unsupported value: "unconfined": supported values: '
                '"Localhost", "RuntimeDefault", "Unconfined"',
            )
        ],
    ),
    (template(securityContext={"appArmorProfile": {"type": "RuntimeDefault"}}), (1, 33), []),
    (
        template(
            securityContext={
                "seccompProfile": {"type": "Default"},
                "appArmorProfile": {"type": "RuntimeDefault", "localhostProfile": "k"},
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.seccompProfile.type: Unsupported value: "Default": supported values: '
                '"Localhost", "RuntimeDefault", "Unconfined"',
            ),
            (
                "pod.security-context",
                f'{SC}.appArmorProfile.localhostProfile: Invalid value: "k": can only be set when '
                "AppArmor type is Localhost",
            ),
        ],
    ),
    (
        template(securityContext={"appArmorProfile": {"type": ""}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f"{SC}.appArmorProfile.type: Required value: type is required when "
                "appArmorProfile is set",
            )
        ],
    ),
    (
        template(
            securityContext={
                "appArmorProfile": {"type": "Localhost", "localhostProfile": "p" * 4096}
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f"{SC}.appArmorProfile.localhostProfile: Too long: must have at most 4095 bytes",
            )
        ],
    ),
    # Policies whose fields exist from 1.33.
    (
        template(
            securityContext={
                "supplementalGroupsPolicy": "Loose",
                "seLinuxChangePolicy": "MountOption",
            }
        ),
        (1, 32),
        [],
    ),
    (
        template(
            securityContext={
                "supplementalGroupsPolicy": "Loose",
                "seLinuxChangePolicy": "MountOption",
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: '
                '"Merge", "Strict"',
            ),
            (
                "pod.security-context",
                f'{SC}.seLinuxChangePolicy: Unsupported value: "MountOption": supported values: '
                '"Recursive"',
            ),
        ],
    ),
    (
        template(
            securityContext={
                "supplementalGroupsPolicy": "Strict",
                "seLinuxChangePolicy": "Recursive",
            }
        ),
        (1, 33),
        [],
    ),
    (
        template(securityContext={"windowsOptions": {"runAsUserName": "a\\b\\c"}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName '
                "cannot contain more than one backslash",
            )
        ],
    ),
    (
        template(
            securityContext={
                "windowsOptions": {
                    "gmsaCredentialSpecName": "Spec",
                    "gmsaCredentialSpec": "",
                    "runAsUserName": "CORP\\..",
                }
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.windowsOptions.gmsaCredentialSpecName: Invalid value: "Spec": '
                f"{dns1123_subdomain_errors('Spec')[0]}",
            ),
            (
                "pod.security-context",
                f'{SC}.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec '
                "cannot be an empty string",
            ),
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "CORP\\\\..": runAsUserName\'s '
                "User cannot contain only periods or spaces",
            ),
        ],
    ),
    (template(securityContext={"windowsOptions": {"runAsUserName": "CORP\\trainer"}}), (1, 33), []),
    (
        template(
            securityContext={
                "windowsOptions": {
                    "gmsaCredentialSpec": "x" * (64 * 1024 + 1),
                    "runAsUserName": "corp:x\\" + "u" * 105,
                }
            }
        ),
        (1, 33),
        [
            (
                "pod.security-context",
                f"{SC}.windowsOptions.gmsaCredentialSpec: Invalid value: "
                f'"{"x" * (64 * 1024 + 1)}": gmsaCredentialSpec size must be under 64 KiB',
            ),
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "corp:x\\\\{"u" * 105}": '
                "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
            ),
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "corp:x\\\\{"u" * 105}": '
                "runAsUserName's User length must not be longer than 104 characters",
            ),
        ],
    ),
    (
        template(securityContext={"windowsOptions": {"runAsUserName": "a\tb"}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "a\\tb": runAsUserName '
                "cannot contain control characters",
            )
        ],
    ),
    (
        template(securityContext={"windowsOptions": {"runAsUserName": "CORP\\a@b"}}),
        (1, 33),
        [
            (
                "pod.security-context",
                f'{SC}.windowsOptions.runAsUserName: Invalid value: "CORP\\\\a@b": '
                "runAsUserName's User cannot contain the following characters: "
                '"/\\:;|=,+*?<>@[]',
            )
        ],
    ),
]

HOST_NAMESPACES: list[Case] = [
    (
        template(
            hostNetwork=True,
            containers=[{"name": "node", "ports": [{"containerPort": 29500, "hostPort": 29501}]}],
            securityContext={"sysctls": [{"name": "net.core.somaxconn"}]},
        ),
        (1, 33),
        [
            (
                "pod.host-namespaces",
                f"{S}.containers[0].ports[0].hostPort: Invalid value: 29501: must match "
                "`containerPort` when `hostNetwork` is true",
            ),
            (
                "pod.host-namespaces",
                f'{SC}.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified '
                "when 'hostNetwork' is true",
            ),
        ],
    ),
    (
        template(
            hostNetwork=True,
            containers=[
                {
                    "name": "node",
                    "ports": [{"containerPort": 29500}, {"containerPort": 80, "hostPort": 80}],
                }
            ],
            securityContext={"sysctls": [{"name": "kernel.msgmax"}]},
        ),
        (1, 33),
        [],
    ),
    (
        template(
            hostIPC=True,
            securityContext={
                "sysctls": [
                    {"name": "kernel.msgmax"},
                    {"name": "fs/mqueue/msg_max"},
                    {"name": "kernel.msgfoo"},
                ]
            },
        ),
        (1, 33),
        [
            (
                "pod.host-namespaces",
                f'{SC}.sysctls[0].name: Invalid value: "kernel.msgmax": may not be specified when '
                "'hostIPC' is true",
            ),
            (
                "pod.host-namespaces",
                f'{SC}.sysctls[1].name: Invalid value: "fs/mqueue/msg_max": may not be specified '
                "when 'hostIPC' is true",
            ),
        ],
    ),
    # hostUsers is dropped before 1.33 (UserNamespacesSupport off by default).
    (template(hostUsers=False, hostNetwork=True, hostPID=True), (1, 32), []),
    (
        template(hostUsers=False, hostNetwork=True, hostPID=True),
        (1, 33),
        [
            (
                "pod.host-namespaces",
                f"{S}.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false",
            ),
            ("pod.host-namespaces", f"{S}.HostPID: Forbidden: when `pod.Spec.HostUsers` is false"),
        ],
    ),
    (template(hostUsers=False), (1, 33), []),
]

OPERATING_SYSTEM: list[Case] = [
    (
        template(os={"name": "linux"}, securityContext={"windowsOptions": {"runAsUserName": "a"}}),
        (1, 33),
        [
            (
                "pod.os",
                f"{SC}.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
            )
        ],
    ),
    (template(os={}), (1, 33), [("pod.os", f"{S}.os.name: Required value: cannot be empty")]),
    (
        template(os={"name": "Linux"}),
        (1, 33),
        [
            (
                "pod.os",
                f'{S}.os: Unsupported value: "Linux": supported values: "linux", "windows"',
            )
        ],
    ),
    (
        template(
            os={"name": "linux"},
            containers=[{"name": "node", "securityContext": {"windowsOptions": {}}}],
        ),
        (1, 33),
        [
            (
                "pod.os",
                f"{S}.containers[0].securityContext.windowsOptions: Forbidden: windows options "
                "cannot be set for a linux pod",
            )
        ],
    ),
    (
        template(
            os={"name": "windows"},
            hostPID=True,
            securityContext={"runAsUser": 1000, "sysctls": []},
            initContainers=[{"name": "init", "securityContext": {"privileged": False}}],
        ),
        (1, 33),
        [
            ("pod.os", f"{S}.hostPID: Forbidden: {WINDOWS}"),
            ("pod.os", f"{SC}.runAsUser: Forbidden: {WINDOWS}"),
            ("pod.os", f"{S}.initContainers[0].securityContext.privileged: Forbidden: {WINDOWS}"),
        ],
    ),
    (
        template(
            os={"name": "windows"},
            containers=[{"name": "node", "securityContext": {"procMount": "Default"}}],
        ),
        (1, 32),
        [],
    ),
    (
        template(
            os={"name": "windows"},
            containers=[{"name": "node", "securityContext": {"procMount": "Default"}}],
        ),
        (1, 33),
        [("pod.os", f"{S}.containers[0].securityContext.procMount: Forbidden: {WINDOWS}")],
    ),
    (
        template(
            securityContext={"windowsOptions": {"hostProcess": True}},
            containers=[
                {"name": "a", "securityContext": {"windowsOptions": {"hostProcess": False}}},
                {"name": "b"},
            ],
        ),
        (1, 33),
        [
            (
                "pod.os",
                f"{S}.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: "
                "false: pod hostProcess value must be identical if both are specified, was true",
            ),
            (
                "pod.os",
                f'{S}: Invalid value: "": If pod contains any hostProcess containers then all '
                "containers must be HostProcess containers",
            ),
            (
                "pod.os",
                f"{S}.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains "
                "any hostProcess containers",
            ),
        ],
    ),
    (
        template(
            os={"name": "windows"},
            hostNetwork=True,
            securityContext={"windowsOptions": {"hostProcess": True}},
        ),
        (1, 33),
        [],
    ),
]

ANNOTATIONS: list[Case] = [
    (
        template(
            {
                "kubernetes.io/config.mirror": "x",
                "controller.kubernetes.io/pod-deletion-cost": "007",
                "seccomp.security.alpha.kubernetes.io/pod": "localhost/../p.json",
                "container.seccomp.security.alpha.kubernetes.io/node": "default",
                "container.apparmor.security.beta.kubernetes.io/sidecar": "enforce",
            }
        ),
        (1, 33),
        [
            (
                "pod.annotations",
                f'{A}[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if '
                "mirror pod annotation is set",
            ),
            (
                "pod.annotations",
                f'{A}[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "007": must be a '
                "32bit integer",
            ),
            (
                "pod.annotations",
                f'{A}.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "../p.json": must '
                "not contain '..'",
            ),
            (
                "pod.annotations",
                f"{A}.container.seccomp.security.alpha.kubernetes.io/node: Invalid value: "
                '"default": must be a valid seccomp profile',
            ),
            (
                "pod.annotations",
                f"{A}[container.apparmor.security.beta.kubernetes.io/sidecar]: Invalid value: "
                '"sidecar": container not found',
            ),
            (
                "pod.annotations",
                f"{A}[container.apparmor.security.beta.kubernetes.io/sidecar]: Invalid value: "
                '"enforce": invalid AppArmor profile name: "enforce"',
            ),
        ],
    ),
    (
        template(
            {
                "controller.kubernetes.io/pod-deletion-cost": "-100",
                "container.apparmor.security.beta.kubernetes.io/node": "localhost/trainer",
                "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
            }
        ),
        (1, 33),
        [],
    ),
    (
        template(
            {
                "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                "container.apparmor.security.beta.kubernetes.io/node": "localhost/other",
            },
            securityContext={
                "seccompProfile": {"type": "RuntimeDefault"},
                "appArmorProfile": {"type": "Localhost", "localhostProfile": "trainer"},
            },
        ),
        (1, 33),
        [
            (
                "pod.annotations",
                f"{SC}.seccompProfile.type: Forbidden: seccomp type in annotation and field must "
                "match",
            ),
            (
                "pod.annotations",
                f"{S}.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: "
                "apparmor profile in annotation and field must match",
            ),
        ],
    ),
    (
        template(
            {"seccomp.security.alpha.kubernetes.io/pod": "docker/default"},
            securityContext={"seccompProfile": {"type": "RuntimeDefault"}},
        ),
        (1, 33),
        [],
    ),
]


@pytest.mark.parametrize(
    ("tmpl", "version", "expected"), SECURITY + HOST_NAMESPACES + OPERATING_SYSTEM + ANNOTATIONS
)
def test_pod_security(tmpl, version, expected):
    assert found(tmpl, version) == expected
