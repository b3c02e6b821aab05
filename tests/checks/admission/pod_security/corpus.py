"""Pod Security cases, written from Kubernetes' own tests of the pod-security-admission library.

Two kinds. ``DETAILS``: the unit tests of each check
(``staging/src/k8s.io/pod-security-admission/policy/check_*_test.go`` at v1.36.0), pods
with the exact reason and detail the check words. ``BOUNDARIES``: the conformance fixtures
(``staging/src/k8s.io/pod-security-admission/test/fixtures_*.go``), which give each check,
at each version where its rule changed, pods that must pass and pods that must fail; here
each such pod is judged on both sides of the boundary. A case names the check whose
violation it expects; other checks the pod may fail are not its concern.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainc.checks.admission.pod_security import LATEST, Level, PolicyVersion
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue

NEWEST: KubeVersion = (1, 36)


@dataclass(frozen=True)
class Case:
    """A pod, the check judging it, where, and the reason and detail expected (None: passes)."""

    name: str
    check: str
    spec: JsonObject
    expect: tuple[str, str] | None
    level: Level = Level.RESTRICTED
    version: PolicyVersion = LATEST
    release: KubeVersion = NEWEST
    metadata: JsonObject = field(default_factory=dict)


def c(name: str, **context: JsonValue) -> JsonObject:
    """A container with ``securityContext`` fields (none: no security context at all)."""
    return {"name": name, "securityContext": dict(context)} if context else {"name": name}


def ctx(name: str, context: JsonObject | None) -> JsonObject:
    """A container whose ``securityContext`` is given whole (``None``: explicit null)."""
    return {"name": name, "securityContext": context}


def caps(name: str, add: list[str] | None = None, drop: list[str] | None = None) -> JsonObject:
    """A container that adds and drops capabilities."""
    capabilities: JsonObject = {}
    if add is not None:
        capabilities["add"] = list[JsonValue](add)
    if drop is not None:
        capabilities["drop"] = list[JsonValue](drop)
    return c(name, capabilities=capabilities)


def seccomp(name: str, kind: str) -> JsonObject:
    """A container with a seccomp profile of ``kind``."""
    return c(name, seccompProfile={"type": kind})


def selinux(name: str, **options: JsonValue) -> JsonObject:
    """A container with SELinux options."""
    return c(name, seLinuxOptions=dict(options))


def sysctls(*names: str) -> JsonObject:
    """A pod spec setting these sysctls."""
    return {
        "containers": [c("a")],
        "securityContext": {"sysctls": [{"name": name, "value": "1"} for name in names]},
    }


def probe(action: str, host: str) -> JsonObject:
    """A probe or lifecycle handler of ``action`` (httpGet, tcpSocket) aimed at ``host``."""
    return {action: {"host": host, "port": 8080}}


APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APE_DETAIL = "must set securityContext.allowPrivilegeEscalation=false"
DROP_ALL = 'must set securityContext.capabilities.drop=["ALL"]'
NON_ROOT = "must set securityContext.runAsNonRoot=true"
SECCOMP_REQUIRED = 'must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'

#: From the checks' unit tests: the exact reason and detail of each check.
DETAILS: tuple[Case, ...] = (
    Case(
        "allowPrivilegeEscalation: unset, null and true are all named",
        "allowPrivilegeEscalation",
        {
            "containers": [
                c("a"),
                c("b", allowPrivilegeEscalation=None),
                c("c", allowPrivilegeEscalation=True),
                c("d", allowPrivilegeEscalation=False),
            ]
        },
        ("allowPrivilegeEscalation != false", f'containers "a", "b", "c" {APE_DETAIL}'),
    ),
    Case(
        "allowPrivilegeEscalation: a Windows pod is exempt from 1.25",
        "allowPrivilegeEscalation",
        {"os": {"name": "windows"}, "containers": [c("a")]},
        None,
    ),
    Case(
        "allowPrivilegeEscalation: a Linux pod is not",
        "allowPrivilegeEscalation",
        {"os": {"name": "linux"}, "containers": [c("a")]},
        ("allowPrivilegeEscalation != false", f'container "a" {APE_DETAIL}'),
    ),
    Case(
        "appArmorProfile: runtime default and localhost annotations pass",
        "appArmorProfile",
        {"containers": [c("test")]},
        None,
        level=Level.BASELINE,
        metadata={"annotations": {APPARMOR + "test": "localhost/sec-profile01", "env": "dev"}},
    ),
    Case(
        "appArmorProfile: an unconfined pod",
        "appArmorProfile",
        {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
        ("forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'),
        level=Level.BASELINE,
    ),
    Case(
        "appArmorProfile: an unconfined init container under a RuntimeDefault pod",
        "appArmorProfile",
        {
            "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
            "containers": [c("foo")],
            "initContainers": [c("bar", appArmorProfile={"type": "Unconfined"})],
        },
        (
            "forbidden AppArmor profile",
            'container "bar" must not set AppArmor profile type to "Unconfined"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "appArmorProfile: bad annotations, sorted, quoted as upstream quotes them",
        "appArmorProfile",
        {"containers": [c("a")]},
        (
            "forbidden AppArmor profiles",
            "annotations must not set AppArmor profile type to "
            f'"{APPARMOR}="bogus"", "{APPARMOR}e="unconfined"", "{APPARMOR}f="unknown""',
        ),
        level=Level.BASELINE,
        metadata={
            "annotations": {
                APPARMOR: "bogus",
                APPARMOR + "a": "",
                APPARMOR + "b": "runtime/default",
                APPARMOR + "c": "localhost/",
                APPARMOR + "d": "localhost/foo",
                APPARMOR + "e": "unconfined",
                APPARMOR + "f": "unknown",
            }
        },
    ),
    Case(
        "capabilities_baseline: the union of non-default capabilities, sorted",
        "capabilities_baseline",
        {"containers": [caps("a", add=["FOO", "BAR"]), caps("b", add=["BAR", "BAZ"])]},
        (
            "non-default capabilities",
            'containers "a", "b" must not include "BAR", "BAZ", "FOO" in '
            "securityContext.capabilities.add",
        ),
        level=Level.BASELINE,
    ),
    Case(
        "capabilities_restricted: missing drop ALL and forbidden adds, in one detail",
        "capabilities_restricted",
        {
            "containers": [
                caps("a", add=["FOO", "BAR"]),
                caps("b", add=["BAR", "BAZ"]),
                caps("c", add=["NET_BIND_SERVICE", "CHOWN"], drop=["ALL", "FOO"]),
            ]
        },
        (
            "unrestricted capabilities",
            f'containers "a", "b" {DROP_ALL}; containers "a", "b", "c" must not include '
            '"BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
        ),
    ),
    Case(
        "capabilities_restricted: a Windows pod is exempt from 1.25",
        "capabilities_restricted",
        {"os": {"name": "windows"}, "containers": [c("a")]},
        None,
    ),
    Case(
        "capabilities_restricted: a Linux pod without a security context",
        "capabilities_restricted",
        {"os": {"name": "linux"}, "containers": [c("a")]},
        ("unrestricted capabilities", f'container "a" {DROP_ALL}'),
    ),
    Case(
        "hostNamespaces: all three, in upstream's order",
        "hostNamespaces",
        {"hostNetwork": True, "hostIPC": True, "hostPID": True},
        ("host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"),
        level=Level.BASELINE,
    ),
    Case(
        "hostPathVolumes: the hostPath volumes by name",
        "hostPathVolumes",
        {
            "volumes": [
                {"name": "a", "hostPath": {"path": "/data"}},
                {"name": "b", "hostPath": {"path": "/data"}},
                {"name": "c", "emptyDir": {}},
            ]
        },
        ("hostPath volumes", 'volumes "a", "b"'),
        level=Level.BASELINE,
    ),
    Case(
        "hostPorts: one container, one port",
        "hostPorts",
        {
            "containers": [
                {"name": "a", "ports": [{"hostPort": 0}]},
                {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 20}]},
            ]
        },
        ("hostPort", 'container "b" uses hostPort 20'),
        level=Level.BASELINE,
    ),
    Case(
        "hostPorts: distinct ports of several containers",
        "hostPorts",
        {
            "containers": [
                {"name": "a", "ports": [{"hostPort": 0}]},
                {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]},
                {"name": "c", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]},
            ]
        },
        ("hostPort", 'containers "b", "c" use hostPorts 10, 20, 30'),
        level=Level.BASELINE,
    ),
    Case(
        "hostProbesAndHostLifecycle: handlers without a host pass",
        "hostProbesAndHostLifecycle",
        {
            "containers": [
                {
                    "name": "a",
                    "livenessProbe": {"httpGet": {"port": 80}},
                    "readinessProbe": {"tcpSocket": {"port": 80}},
                    "lifecycle": {"postStart": {"httpGet": {"port": 80}}},
                }
            ]
        },
        None,
        level=Level.BASELINE,
    ),
    Case(
        "hostProbesAndHostLifecycle: three probes, hosts sorted",
        "hostProbesAndHostLifecycle",
        {
            "containers": [
                {
                    "name": "a",
                    "livenessProbe": probe("httpGet", "127.0.0.1"),
                    "readinessProbe": probe("tcpSocket", "::1"),
                    "startupProbe": probe("httpGet", "localhost"),
                }
            ]
        },
        (
            "probe or lifecycle host",
            'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "hostProbesAndHostLifecycle: a preStop hook",
        "hostProbesAndHostLifecycle",
        {
            "containers": [
                {"name": "e", "lifecycle": {"preStop": probe("httpGet", "another.invalid.host")}}
            ]
        },
        (
            "probe or lifecycle host",
            'container "e" uses probe or lifecycle host "another.invalid.host"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "hostProbesAndHostLifecycle: containers and hosts sorted, repeats dropped",
        "hostProbesAndHostLifecycle",
        {
            "containers": [
                c("valid"),
                {"name": "invalid1", "livenessProbe": probe("httpGet", "a.com")},
                {
                    "name": "invalid2",
                    "lifecycle": {"preStop": probe("tcpSocket", "b.com")},
                    "startupProbe": probe("httpGet", "a.com"),
                },
            ]
        },
        (
            "probe or lifecycle host",
            'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "hostProbesAndHostLifecycle: an init container",
        "hostProbesAndHostLifecycle",
        {
            "initContainers": [
                {"name": "init", "livenessProbe": probe("httpGet", "invalid.init.host")}
            ]
        },
        (
            "probe or lifecycle host",
            'container "init" uses probe or lifecycle host "invalid.init.host"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "privileged: only privileged=true is named",
        "privileged",
        {
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("c", privileged=False),
                c("d", privileged=True),
                c("e", privileged=True),
            ]
        },
        ("privileged", 'containers "d", "e" must not set securityContext.privileged=true'),
        level=Level.BASELINE,
    ),
    Case(
        "procMount: Unmasked and other values, sorted",
        "procMount",
        {
            "hostUsers": True,
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("c", procMount="Default"),
                c("d", procMount="Unmasked"),
                c("e", procMount="other"),
            ],
        },
        (
            "procMount",
            'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "procMount: a pod in a user namespace passes baseline from 1.35",
        "procMount",
        {"hostUsers": False, "containers": [c("d", procMount="Unmasked")]},
        None,
        level=Level.BASELINE,
    ),
    Case(
        "procMount_restricted: a user namespace does not help at restricted",
        "procMount_restricted",
        {
            "hostUsers": False,
            "containers": [c("c", procMount="Default"), c("d", procMount="Unmasked")],
        },
        ("procMount", 'container "d" must not set securityContext.procMount to "Unmasked"'),
    ),
    Case(
        "restrictedVolumes: every restricted source named, types sorted",
        "restrictedVolumes",
        {
            "volumes": [
                {"name": "a1", "emptyDir": {}},
                {"name": "a2", "secret": {}},
                {"name": "a3", "persistentVolumeClaim": {}},
                {"name": "a4", "downwardAPI": {}},
                {"name": "a5", "configMap": {}},
                {"name": "a6", "projected": {}},
                {"name": "a7", "csi": {}},
                {"name": "a8", "ephemeral": {}},
                {"name": "a9", "image": {}},
                {"name": "b1", "hostPath": {}},
                {"name": "b2", "gcePersistentDisk": {}},
                {"name": "b3", "awsElasticBlockStore": {}},
                {"name": "b4", "gitRepo": {}},
                {"name": "b5", "nfs": {}},
                {"name": "b6", "iscsi": {}},
                {"name": "b7", "glusterfs": {}},
                {"name": "b8", "rbd": {}},
                {"name": "b9", "flexVolume": {}},
                {"name": "b10", "cinder": {}},
                {"name": "b11", "cephfs": {}},
                {"name": "b12", "flocker": {}},
                {"name": "b13", "fc": {}},
                {"name": "b14", "azureFile": {}},
                {"name": "b15", "vsphereVolume": {}},
                {"name": "b16", "quobyte": {}},
                {"name": "b17", "azureDisk": {}},
                {"name": "b18", "photonPersistentDisk": {}},
                {"name": "b19", "portworxVolume": {}},
                {"name": "b20", "scaleIO": {}},
                {"name": "b21", "storageos": {}},
            ]
        },
        (
            "restricted volume types",
            'volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", '
            '"b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21" use '
            'restricted volume types "awsElasticBlockStore", "azureDisk", "azureFile", '
            '"cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", '
            '"gitRepo", "glusterfs", "hostPath", "iscsi", "nfs", "photonPersistentDisk", '
            '"portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume"',
        ),
    ),
    Case(
        "restrictedVolumes: a volume without a source is defaulted to emptyDir first",
        "restrictedVolumes",
        {"volumes": [{"name": "volume0"}, {"name": "volume1", "emptyDir": {}}]},
        None,
    ),
    Case(
        "runAsNonRoot: nothing set",
        "runAsNonRoot",
        {"containers": [c("a")]},
        ("runAsNonRoot != true", f'pod or container "a" {NON_ROOT}'),
    ),
    Case(
        "runAsNonRoot: the pod sets false",
        "runAsNonRoot",
        {"securityContext": {"runAsNonRoot": False}, "containers": [ctx("a", None)]},
        ("runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false"),
    ),
    Case(
        "runAsNonRoot: containers set false under a pod that sets true",
        "runAsNonRoot",
        {
            "securityContext": {"runAsNonRoot": True},
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("c", runAsNonRoot=False),
                c("d", runAsNonRoot=False),
                c("e", runAsNonRoot=True),
                c("f", runAsNonRoot=True),
            ],
        },
        (
            "runAsNonRoot != true",
            'containers "c", "d" must not set securityContext.runAsNonRoot=false',
        ),
    ),
    Case(
        "runAsNonRoot: no pod value, containers fall through",
        "runAsNonRoot",
        {
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("d", runAsNonRoot=True),
                c("e", runAsNonRoot=True),
            ]
        },
        ("runAsNonRoot != true", f'pod or containers "a", "b" {NON_ROOT}'),
    ),
    Case(
        "runAsNonRoot: hostUsers false passes from 1.35",
        "runAsNonRoot",
        {"hostUsers": False, "containers": [c("a")]},
        None,
    ),
    Case(
        "runAsUser: the pod sets 0",
        "runAsUser",
        {"securityContext": {"runAsUser": 0}, "containers": [ctx("a", None)]},
        ("runAsUser=0", "pod must not set runAsUser=0"),
    ),
    Case(
        "runAsUser: a non-zero pod value passes",
        "runAsUser",
        {"securityContext": {"runAsUser": 1000}, "containers": [ctx("a", None)]},
        None,
    ),
    Case(
        "runAsUser: containers set 0",
        "runAsUser",
        {
            "securityContext": {"runAsUser": 1000},
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("c", runAsUser=0),
                c("d", runAsUser=0),
                c("e", runAsUser=1),
                c("f", runAsUser=1),
            ],
        },
        ("runAsUser=0", 'containers "c", "d" must not set runAsUser=0'),
    ),
    Case(
        "runAsUser: hostUsers false passes from 1.35",
        "runAsUser",
        {"hostUsers": False, "securityContext": {"runAsUser": 0}, "containers": [c("a")]},
        None,
    ),
    Case(
        "seLinuxOptions: the pod and containers, types sorted, user and role",
        "seLinuxOptions",
        {
            "securityContext": {"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
            "containers": [
                selinux("a", type="container_t"),
                selinux("b", type="container_init_t"),
                selinux("c", type="container_kvm_t"),
                selinux("d", type="container_engine_t"),
                selinux("e", type="bar"),
                selinux("f", user="bar"),
                selinux("g", role="baz"),
            ],
        },
        (
            "seLinuxOptions",
            'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
            'types "bar", "foo"; user may not be set; role may not be set',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "seLinuxOptions: the pod alone",
        "seLinuxOptions",
        {
            "securityContext": {"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
            "containers": [selinux("d", type="container_engine_t")],
        },
        (
            "seLinuxOptions",
            'pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; '
            "role may not be set",
        ),
        level=Level.BASELINE,
    ),
    Case(
        "seLinuxOptions: a user alone",
        "seLinuxOptions",
        {"securityContext": {"seLinuxOptions": {"user": "bad"}}},
        ("seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: user may not be set"),
        level=Level.BASELINE,
    ),
    Case(
        "seLinuxOptions: a role alone",
        "seLinuxOptions",
        {"securityContext": {"seLinuxOptions": {"role": "bad"}}},
        ("seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: role may not be set"),
        level=Level.BASELINE,
    ),
    Case(
        "seccompProfile_baseline (1.0): the pod annotation",
        "seccompProfile_baseline",
        {"containers": [c("a")]},
        ("seccompProfile", f'forbidden annotation {SECCOMP_POD}="unconfined"'),
        level=Level.BASELINE,
        version=(1, 18),
        metadata={"annotations": {SECCOMP_POD: "unconfined"}},
    ),
    Case(
        "seccompProfile_baseline (1.0): pod and container annotations, sorted",
        "seccompProfile_baseline",
        {"containers": [c("a"), c("b"), c("c")]},
        (
            "seccompProfile",
            f'forbidden annotations {SECCOMP_CONTAINER}a="unconfined", '
            f'{SECCOMP_CONTAINER}b="unknown", {SECCOMP_POD}="unconfined"',
        ),
        level=Level.BASELINE,
        version=(1, 18),
        metadata={
            "annotations": {
                SECCOMP_POD: "unconfined",
                SECCOMP_CONTAINER + "a": "unconfined",
                SECCOMP_CONTAINER + "b": "unknown",
            }
        },
    ),
    Case(
        "seccompProfile_baseline: the pod sets Unconfined",
        "seccompProfile_baseline",
        {
            "securityContext": {"seccompProfile": {"type": "Unconfined"}},
            "containers": [ctx("a", None)],
        },
        ("seccompProfile", 'pod must not set securityContext.seccompProfile.type to "Unconfined"'),
        level=Level.BASELINE,
    ),
    Case(
        "seccompProfile_baseline: pod and containers set Unconfined",
        "seccompProfile_baseline",
        {
            "securityContext": {"seccompProfile": {"type": "Unconfined"}},
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                seccomp("c", "Unconfined"),
                seccomp("d", "Unconfined"),
                seccomp("e", "RuntimeDefault"),
                seccomp("f", "RuntimeDefault"),
            ],
        },
        (
            "seccompProfile",
            'pod and containers "c", "d" must not set securityContext.seccompProfile.type to '
            '"Unconfined"',
        ),
        level=Level.BASELINE,
    ),
    Case(
        "seccompProfile_restricted: nothing set",
        "seccompProfile_restricted",
        {"containers": [c("a")]},
        ("seccompProfile", f'pod or container "a" {SECCOMP_REQUIRED}'),
    ),
    Case(
        "seccompProfile_restricted: a Windows pod is exempt from 1.25",
        "seccompProfile_restricted",
        {"os": {"name": "windows"}, "containers": [c("a")]},
        None,
    ),
    Case(
        "seccompProfile_restricted: containers set Unconfined under a RuntimeDefault pod",
        "seccompProfile_restricted",
        {
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                seccomp("c", "Unconfined"),
                seccomp("d", "Unconfined"),
                seccomp("e", "RuntimeDefault"),
            ],
        },
        (
            "seccompProfile",
            'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
        ),
    ),
    Case(
        "seccompProfile_restricted: no pod profile, containers fall through",
        "seccompProfile_restricted",
        {
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                seccomp("d", "RuntimeDefault"),
                seccomp("e", "Localhost"),
            ]
        },
        ("seccompProfile", f'pod or containers "a", "b" {SECCOMP_REQUIRED}'),
    ),
    Case(
        "sysctls: forbidden names in the pod's order, unquoted",
        "sysctls",
        sysctls("a", "b"),
        ("forbidden sysctls", "a, b"),
        level=Level.BASELINE,
    ),
    Case(
        "windowsHostProcess: the pod and two containers",
        "windowsHostProcess",
        {
            "securityContext": {"windowsOptions": {"hostProcess": True}},
            "containers": [
                ctx("a", None),
                ctx("b", {}),
                c("c", windowsOptions={}),
                c("d", windowsOptions={"hostProcess": False}),
                c("e", windowsOptions={"hostProcess": True}),
                c("f", windowsOptions={"hostProcess": True}),
            ],
        },
        (
            "hostProcess",
            'pod and containers "e", "f" must not set '
            "securityContext.windowsOptions.hostProcess=true",
        ),
        level=Level.BASELINE,
    ),
)


def _sides(
    name: str,
    check: str,
    spec: JsonObject,
    boundary: KubeVersion,
    before: tuple[str, str] | None,
    *,
    after: tuple[str, str] | None,
    level: Level = Level.BASELINE,
) -> tuple[Case, Case]:
    """The same pod judged at the version before ``boundary`` and at ``boundary``."""
    earlier = (boundary[0], boundary[1] - 1)
    return (
        Case(f"{name} (v{earlier[0]}.{earlier[1]})", check, spec, before, level, earlier),
        Case(f"{name} (v{boundary[0]}.{boundary[1]})", check, spec, after, level, boundary),
    )


_USERNS_UNMASKED: JsonObject = {
    "hostUsers": False,
    "containers": [c("container1", procMount="Unmasked")],
}
_UNMASKED = (
    "procMount",
    'container "container1" must not set securityContext.procMount to "Unmasked"',
)
_ROOT_USERNS: JsonObject = {
    "hostUsers": False,
    "securityContext": {"runAsUser": 0},
    "containers": [c("container1")],
}

#: From the conformance fixtures: each rule change, judged on both of its sides.
BOUNDARIES: tuple[Case, ...] = (
    *_sides(
        "sysctls: ip_local_reserved_ports allowed from 1.27",
        "sysctls",
        sysctls("net.ipv4.ip_local_reserved_ports"),
        (1, 27),
        ("forbidden sysctls", "net.ipv4.ip_local_reserved_ports"),
        after=None,
    ),
    *_sides(
        "sysctls: the TCP keepalive sysctls allowed from 1.29",
        "sysctls",
        sysctls(
            "net.ipv4.ip_local_reserved_ports",
            "net.ipv4.tcp_keepalive_time",
            "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl",
            "net.ipv4.tcp_keepalive_probes",
        ),
        (1, 29),
        (
            "forbidden sysctls",
            "net.ipv4.tcp_keepalive_time, net.ipv4.tcp_fin_timeout, "
            "net.ipv4.tcp_keepalive_intvl, net.ipv4.tcp_keepalive_probes",
        ),
        after=None,
    ),
    *_sides(
        "sysctls: tcp_rmem and tcp_wmem allowed from 1.32",
        "sysctls",
        sysctls("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "kernel.shm_rmid_forced"),
        (1, 32),
        ("forbidden sysctls", "net.ipv4.tcp_rmem, net.ipv4.tcp_wmem"),
        after=None,
    ),
    *_sides(
        "sysctls: an unknown sysctl stays forbidden",
        "sysctls",
        sysctls("othersysctl"),
        (1, 32),
        ("forbidden sysctls", "othersysctl"),
        after=("forbidden sysctls", "othersysctl"),
    ),
    *_sides(
        "seLinuxOptions: container_engine_t allowed from 1.31",
        "seLinuxOptions",
        {"containers": [selinux("container1", type="container_engine_t")]},
        (1, 31),
        (
            "seLinuxOptions",
            'container "container1" set forbidden securityContext.seLinuxOptions: '
            'type "container_engine_t"',
        ),
        after=None,
    ),
    *_sides(
        "hostProbesAndHostLifecycle: a probe host forbidden from 1.34",
        "hostProbesAndHostLifecycle",
        {"containers": [{"name": "container1", "startupProbe": probe("httpGet", "localhost")}]},
        (1, 34),
        None,
        after=(
            "probe or lifecycle host",
            'container "container1" uses probe or lifecycle host "localhost"',
        ),
    ),
    *_sides(
        "procMount: baseline lets a user-namespaced pod unmask /proc from 1.35",
        "procMount",
        _USERNS_UNMASKED,
        (1, 35),
        _UNMASKED,
        after=None,
    ),
    *_sides(
        "procMount: baseline's procMount judges at restricted before 1.35",
        "procMount",
        _USERNS_UNMASKED,
        (1, 35),
        _UNMASKED,
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "procMount_restricted: takes over at restricted from 1.35",
        "procMount_restricted",
        _USERNS_UNMASKED,
        (1, 35),
        None,
        after=_UNMASKED,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "runAsNonRoot: a user-namespaced pod passes from 1.35",
        "runAsNonRoot",
        {"hostUsers": False, "containers": [c("container1")]},
        (1, 35),
        ("runAsNonRoot != true", f'pod or container "container1" {NON_ROOT}'),
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "runAsUser: a user-namespaced pod may run as 0 from 1.35",
        "runAsUser",
        _ROOT_USERNS,
        (1, 35),
        ("runAsUser=0", "pod must not set runAsUser=0"),
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "runAsUser: exists from 1.23",
        "runAsUser",
        {"securityContext": {"runAsUser": 0}, "containers": [c("container1")]},
        (1, 23),
        None,
        after=("runAsUser=0", "pod must not set runAsUser=0"),
        level=Level.RESTRICTED,
    ),
    *_sides(
        "allowPrivilegeEscalation: a Windows pod is exempt from 1.25",
        "allowPrivilegeEscalation",
        {"os": {"name": "windows"}, "containers": [c("container1")]},
        (1, 25),
        ("allowPrivilegeEscalation != false", f'container "container1" {APE_DETAIL}'),
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "allowPrivilegeEscalation: exists from 1.8",
        "allowPrivilegeEscalation",
        {"containers": [c("container1")]},
        (1, 8),
        None,
        after=("allowPrivilegeEscalation != false", f'container "container1" {APE_DETAIL}'),
        level=Level.RESTRICTED,
    ),
    *_sides(
        "capabilities_restricted: a Windows pod is exempt from 1.25",
        "capabilities_restricted",
        {"os": {"name": "windows"}, "containers": [c("container1")]},
        (1, 25),
        ("unrestricted capabilities", f'container "container1" {DROP_ALL}'),
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "capabilities_restricted: exists from 1.22",
        "capabilities_restricted",
        {"containers": [caps("container1", drop=["NET_RAW"])]},
        (1, 22),
        None,
        after=("unrestricted capabilities", f'container "container1" {DROP_ALL}'),
        level=Level.RESTRICTED,
    ),
    *_sides(
        "capabilities_baseline: judges at restricted until 1.22",
        "capabilities_baseline",
        {"containers": [caps("container1", add=["NET_RAW"], drop=["ALL"])]},
        (1, 22),
        (
            "non-default capabilities",
            'container "container1" must not include "NET_RAW" in securityContext.capabilities.add',
        ),
        after=None,
        level=Level.RESTRICTED,
    ),
    *_sides(
        "seccompProfile_baseline: the fields, not the annotations, from 1.19",
        "seccompProfile_baseline",
        {
            "securityContext": {"seccompProfile": {"type": "Unconfined"}},
            "containers": [c("container1")],
        },
        (1, 19),
        None,
        after=(
            "seccompProfile",
            'pod must not set securityContext.seccompProfile.type to "Unconfined"',
        ),
    ),
    *_sides(
        "seccompProfile_restricted: required from 1.19",
        "seccompProfile_restricted",
        {"containers": [c("container1")]},
        (1, 19),
        None,
        after=("seccompProfile", f'pod or container "container1" {SECCOMP_REQUIRED}'),
        level=Level.RESTRICTED,
    ),
    *_sides(
        "seccompProfile_restricted: a Windows pod is exempt from 1.25",
        "seccompProfile_restricted",
        {"os": {"name": "windows"}, "containers": [c("container1")]},
        (1, 25),
        ("seccompProfile", f'pod or container "container1" {SECCOMP_REQUIRED}'),
        after=None,
        level=Level.RESTRICTED,
    ),
)

_DEFAULT_CAPS: list[str] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
]
_NOT_DEFAULT = "must not include {} in securityContext.capabilities.add"

#: From the conformance fixtures: the values each check lets through and refuses.
FIXTURES: tuple[Case, ...] = (
    Case(
        "capabilities_baseline: every capability of the default set may be added",
        "capabilities_baseline",
        {"containers": [caps("container1", add=_DEFAULT_CAPS)]},
        None,
        Level.BASELINE,
    ),
    Case(
        "capabilities_baseline: NET_RAW is not in the default set",
        "capabilities_baseline",
        {"initContainers": [caps("initcontainer1", add=["NET_RAW"])]},
        (
            "non-default capabilities",
            'container "initcontainer1" ' + _NOT_DEFAULT.format('"NET_RAW"'),
        ),
        Level.BASELINE,
    ),
    Case(
        "capabilities_baseline: names are case-sensitive and without the CAP_ prefix",
        "capabilities_baseline",
        {"containers": [caps("container1", add=["chown", "CAP_CHOWN"])]},
        (
            "non-default capabilities",
            'container "container1" ' + _NOT_DEFAULT.format('"CAP_CHOWN", "chown"'),
        ),
        Level.BASELINE,
    ),
    Case(
        "capabilities_restricted: drop ALL and add NET_BIND_SERVICE passes",
        "capabilities_restricted",
        {
            "containers": [caps("container1", add=["NET_BIND_SERVICE"], drop=["ALL"])],
            "initContainers": [caps("initcontainer1", add=["NET_BIND_SERVICE"], drop=["ALL"])],
        },
        None,
    ),
    Case(
        "capabilities_restricted: dropping every capability by name is not dropping ALL",
        "capabilities_restricted",
        {"containers": [caps("container1", drop=["SYS_ADMIN", "NET_RAW", *_DEFAULT_CAPS])]},
        ("unrestricted capabilities", f'container "container1" {DROP_ALL}'),
    ),
    Case(
        "capabilities_restricted: the default set may not be added",
        "capabilities_restricted",
        {"containers": [caps("container1", add=_DEFAULT_CAPS, drop=["ALL"])]},
        (
            "unrestricted capabilities",
            'container "container1" must not include "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", '
            '"FOWNER", "FSETID", "KILL", "MKNOD", "SETFCAP", "SETGID", "SETPCAP", "SETUID", '
            '"SYS_CHROOT" in securityContext.capabilities.add',
        ),
    ),
    Case(
        "hostPorts: container ports alone pass",
        "hostPorts",
        {"containers": [{"name": "container1", "ports": [{"containerPort": 12345}]}]},
        None,
        Level.BASELINE,
    ),
    Case(
        "hostPorts: containers and init containers, ports sorted as text",
        "hostPorts",
        {
            "initContainers": [
                {"name": "initcontainer1", "ports": [{"containerPort": 9, "hostPort": 9}]}
            ],
            "containers": [
                {
                    "name": "container1",
                    "ports": [{"containerPort": 12345, "hostPort": 12345}, {"containerPort": 80}],
                }
            ],
        },
        ("hostPort", 'containers "initcontainer1", "container1" use hostPorts 12345, 9'),
        Level.BASELINE,
    ),
    Case(
        "seLinuxOptions: the level may be anything, the container types pass",
        "seLinuxOptions",
        {
            "securityContext": {"seLinuxOptions": {"type": "container_t", "level": ""}},
            "containers": [selinux("container1", type="container_init_t", level="somevalue")],
            "initContainers": [selinux("initcontainer1", type="container_kvm_t")],
        },
        None,
        Level.BASELINE,
    ),
    Case(
        "seLinuxOptions: an init container with another type",
        "seLinuxOptions",
        {"initContainers": [selinux("initcontainer1", type="somevalue")]},
        (
            "seLinuxOptions",
            'container "initcontainer1" set forbidden securityContext.seLinuxOptions: '
            'type "somevalue"',
        ),
        Level.BASELINE,
    ),
    Case(
        "sysctls: the whole 1.0 list passes",
        "sysctls",
        sysctls(
            "kernel.shm_rmid_forced",
            "net.ipv4.ip_local_port_range",
            "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range",
            "net.ipv4.ip_unprivileged_port_start",
        ),
        None,
        Level.BASELINE,
        (1, 0),
    ),
    Case(
        "sysctls: repeats are kept, allowed names left out",
        "sysctls",
        sysctls("net.core.somaxconn", "kernel.shm_rmid_forced", "net.core.somaxconn"),
        ("forbidden sysctls", "net.core.somaxconn, net.core.somaxconn"),
        Level.BASELINE,
    ),
    Case(
        "windowsHostProcess: containers and init containers",
        "windowsHostProcess",
        {
            "hostNetwork": True,
            "initContainers": [c("initcontainer1", windowsOptions={"hostProcess": True})],
            "containers": [c("container1", windowsOptions={"hostProcess": True})],
        },
        (
            "hostProcess",
            'containers "initcontainer1", "container1" must not set '
            "securityContext.windowsOptions.hostProcess=true",
        ),
        Level.BASELINE,
    ),
    Case(
        "runAsNonRoot: containers may opt in one by one",
        "runAsNonRoot",
        {
            "containers": [c("container1", runAsNonRoot=True)],
            "initContainers": [c("initcontainer1", runAsNonRoot=True)],
        },
        None,
    ),
    Case(
        "runAsNonRoot: an init container opting out under a pod opting in",
        "runAsNonRoot",
        {
            "securityContext": {"runAsNonRoot": True},
            "initContainers": [c("initcontainer1", runAsNonRoot=False)],
            "containers": [c("container1")],
        },
        (
            "runAsNonRoot != true",
            'container "initcontainer1" must not set securityContext.runAsNonRoot=false',
        ),
    ),
    Case(
        "runAsNonRoot: pod and container both opting out",
        "runAsNonRoot",
        {
            "securityContext": {"runAsNonRoot": False},
            "containers": [c("container1", runAsNonRoot=False), c("container2")],
        },
        (
            "runAsNonRoot != true",
            'pod and container "container1" must not set securityContext.runAsNonRoot=false',
        ),
    ),
    Case(
        "seccompProfile_restricted: Localhost on the pod covers the containers",
        "seccompProfile_restricted",
        {
            "securityContext": {
                "seccompProfile": {"type": "Localhost", "localhostProfile": "train.json"}
            },
            "containers": [c("container1")],
        },
        None,
    ),
    Case(
        "seccompProfile_restricted: an invalid pod profile does not cover the containers",
        "seccompProfile_restricted",
        {
            "securityContext": {"seccompProfile": {"type": "Unconfined"}},
            "containers": [c("container1")],
        },
        ("seccompProfile", 'pod must not set securityContext.seccompProfile.type to "Unconfined"'),
    ),
    Case(
        "seccompProfile_baseline (1.0): docker/default and localhost/ annotations pass",
        "seccompProfile_baseline",
        {"containers": [c("container1")]},
        None,
        Level.BASELINE,
        (1, 18),
        metadata={
            "annotations": {
                SECCOMP_POD: "docker/default",
                SECCOMP_CONTAINER + "container1": "localhost/profile.json",
            }
        },
    ),
    Case(
        "seccompProfile_baseline (1.0): an annotation for no container is not read",
        "seccompProfile_baseline",
        {"containers": [c("container1")]},
        None,
        Level.BASELINE,
        (1, 18),
        metadata={"annotations": {SECCOMP_CONTAINER + "other": "unconfined"}},
    ),
    Case(
        "privileged: an init container",
        "privileged",
        {"initContainers": [c("initcontainer1", privileged=True)], "containers": [c("a")]},
        ("privileged", 'container "initcontainer1" must not set securityContext.privileged=true'),
        Level.BASELINE,
    ),
    Case(
        "restrictedVolumes: one hostPath volume",
        "restrictedVolumes",
        {"volumes": [{"name": "data", "hostPath": {"path": "/mnt/datasets"}}]},
        ("restricted volume types", 'volume "data" uses restricted volume type "hostPath"'),
    ),
    Case(
        "restrictedVolumes: two volumes of one type",
        "restrictedVolumes",
        {
            "volumes": [
                {"name": "a", "nfs": {"server": "nfs.example", "path": "/a"}},
                {"name": "b", "nfs": {"server": "nfs.example", "path": "/b"}},
            ]
        },
        ("restricted volume types", 'volumes "a", "b" use restricted volume type "nfs"'),
    ),
    Case(
        "hostPathVolumes: one volume",
        "hostPathVolumes",
        {"volumes": [{"name": "data", "hostPath": {"path": "/mnt/datasets"}}]},
        ("hostPath volumes", 'volume "data"'),
        Level.BASELINE,
    ),
)

#: Rules that changed inside a version, with the library: the cluster's release decides.
RELEASES: tuple[Case, ...] = (
    Case(
        "appArmorProfile: a 1.29 cluster does not read the field",
        "appArmorProfile",
        {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
        None,
        Level.BASELINE,
        release=(1, 29),
    ),
    Case(
        "appArmorProfile: a 1.29 cluster lists annotations bare",
        "appArmorProfile",
        {"containers": [c("a"), c("b")]},
        (
            "forbidden AppArmor profiles",
            f'{APPARMOR}a="unconfined", {APPARMOR}b="unknown"',
        ),
        Level.BASELINE,
        release=(1, 29),
        metadata={"annotations": {APPARMOR + "b": "unknown", APPARMOR + "a": "unconfined"}},
    ),
    Case(
        "appArmorProfile: a 1.30 cluster reads the field whatever the namespace's version",
        "appArmorProfile",
        {"containers": [c("a", appArmorProfile={"type": "Unconfined"})]},
        (
            "forbidden AppArmor profile",
            'container "a" must not set AppArmor profile type to "Unconfined"',
        ),
        Level.BASELINE,
        version=(1, 25),
        release=(1, 30),
    ),
    Case(
        "appArmorProfile: a 1.30 cluster words one bad annotation with its setter",
        "appArmorProfile",
        {"containers": [c("a")]},
        (
            "forbidden AppArmor profile",
            f'annotation must not set AppArmor profile type to "{APPARMOR}a="unconfined""',
        ),
        Level.BASELINE,
        release=(1, 30),
        metadata={"annotations": {APPARMOR + "a": "unconfined"}},
    ),
    Case(
        "restrictedVolumes: a 1.32 cluster does not know image volumes",
        "restrictedVolumes",
        {"volumes": [{"name": "model", "image": {"reference": "registry.example/llm:1"}}]},
        ("restricted volume types", 'volume "model" uses restricted volume type "unknown"'),
        release=(1, 32),
    ),
    Case(
        "restrictedVolumes: a 1.33 cluster allows them",
        "restrictedVolumes",
        {"volumes": [{"name": "model", "image": {"reference": "registry.example/llm:1"}}]},
        None,
        release=(1, 33),
    ),
    Case(
        "latest on a 1.33 cluster: no probe host check yet",
        "hostProbesAndHostLifecycle",
        {"containers": [{"name": "a", "startupProbe": probe("httpGet", "localhost")}]},
        None,
        Level.BASELINE,
        release=(1, 33),
    ),
    Case(
        "a version newer than the cluster is judged by the cluster's rules",
        "runAsNonRoot",
        {"hostUsers": False, "containers": [c("a")]},
        ("runAsNonRoot != true", f'pod or container "a" {NON_ROOT}'),
        version=(1, 36),
        release=(1, 34),
    ),
)

CASES: tuple[Case, ...] = DETAILS + BOUNDARIES + FIXTURES + RELEASES
