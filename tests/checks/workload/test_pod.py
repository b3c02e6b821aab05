"""A pod template's own rules: annotations and pod-level spec fields."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.checks.workload.pod import check_pod_fields
from trainc.model.json import JsonObject
from trainc.schema.metadata import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    qualified_name_errors,
)

S = "spec.template.spec"
A = "spec.template.annotations"
SC = f"{S}.securityContext"
SUBDOMAIN = dns1123_subdomain_errors("A")[0]
LABEL = dns1123_label_errors("A")[0]
NODE: JsonObject = {"name": "node", "image": "pytorch/pytorch:2.7.0"}
Case = tuple[Any, tuple[int, int], list[tuple[str, str]]]


def template(annotations: Any = None, **spec: Any) -> JsonObject:
    """A pod template with one container, plus the given spec fields."""
    body: JsonObject = {"spec": {"containers": [dict(NODE)], **spec}}
    if annotations is not None:
        body["metadata"] = {"annotations": annotations}
    return body


def found(tmpl: JsonObject, version: tuple[int, int] = (1, 33)) -> list[tuple[str, str]]:
    return [(e.code, e.message()) for e in check_pod_fields(tmpl, ("spec", "template"), version)]


CASES: list[Case] = [
    # restartPolicy: the JobSet webhook fills an unset one; only an unknown value fails.
    (
        template(restartPolicy="Sometimes"),
        (1, 33),
        [
            (
                "pod.restart-policy",
                f'{S}.restartPolicy: Unsupported value: "Sometimes": supported values: '
                '"Always", "OnFailure", "Never"',
            )
        ],
    ),
    (template(), (1, 33), []),
    (template(restartPolicy="Never"), (1, 33), []),
    # DNS policy and config.
    (
        template(dnsPolicy="ClusterFirstWithHostnet"),
        (1, 33),
        [
            (
                "pod.dns",
                f'{S}.dnsPolicy: Unsupported value: "ClusterFirstWithHostnet": supported values: '
                '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
            )
        ],
    ),
    (
        template(dnsPolicy="None"),
        (1, 33),
        [
            (
                "pod.dns",
                f"{S}.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
            )
        ],
    ),
    (
        template(dnsPolicy="None", dnsConfig={"searches": ["svc.cluster.local"]}),
        (1, 33),
        [
            (
                "pod.dns",
                f"{S}.dnsConfig.nameservers: Required value: must provide at least one DNS "
                "nameserver when `dnsPolicy` is None",
            )
        ],
    ),
    (template(dnsPolicy="None", dnsConfig={"nameservers": ["10.0.0.10"]}), (1, 33), []),
    (
        template(dnsConfig={"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "010.0.0.1"]}),
        (1, 33),
        [
            (
                "pod.dns",
                f'{S}.dnsConfig.nameservers: Invalid value: []string{{"1.1.1.1", "8.8.8.8", '
                '"9.9.9.9", "010.0.0.1"}: must not have more than 3 nameservers',
            )
        ],
    ),
    (
        template(dnsConfig={"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "fd00::10"]}),
        (1, 34),
        [
            (
                "pod.dns",
                f'{S}.dnsConfig.nameservers: Invalid value: ["1.1.1.1","8.8.8.8","9.9.9.9",'
                '"fd00::10"]: must not have more than 3 nameservers',
            )
        ],
    ),
    (
        template(dnsConfig={"nameservers": ["10.0.0", "fe80::1%eth0"], "options": [{}]}),
        (1, 33),
        [
            (
                "pod.dns",
                f'{S}.dnsConfig.nameservers[0]: Invalid value: "10.0.0": must be a valid IP '
                "address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
            ),
            (
                "pod.dns",
                f'{S}.dnsConfig.nameservers[1]: Invalid value: "fe80::1%eth0": must be a valid IP '
                "address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
            ),
            ("pod.dns", f"{S}.dnsConfig.options[0]: Required value: must not be empty"),
        ],
    ),
    # Searches: from 1.33 a lone dot and underscores are accepted.
    (
        template(dnsConfig={"searches": ["_tcp.example.com", ".", "svc.cluster.local."]}),
        (1, 32),
        [
            (
                "pod.dns",
                f'{S}.dnsConfig.searches[0]: Invalid value: "_tcp.example.com": {SUBDOMAIN}',
            ),
            ("pod.dns", f'{S}.dnsConfig.searches[1]: Invalid value: "": {SUBDOMAIN}'),
        ],
    ),
    (
        template(dnsConfig={"searches": ["_tcp.example.com", ".", "svc.cluster.local."]}),
        (1, 33),
        [],
    ),
    (
        template(dnsConfig={"searches": ["Example.com"]}),
        (1, 33),
        [
            (
                "pod.dns",
                f'{S}.dnsConfig.searches[0]: Invalid value: "Example.com": a lowercase RFC 1123 '
                "subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'example.com')",
            )
        ],
    ),
    (
        template(dnsConfig={"searches": [f"s{i}.example.com" for i in range(33)]}),
        (1, 34),
        [
            (
                "pod.dns",
                f"{S}.dnsConfig.searches: Invalid value: "
                + "["
                + ",".join(f'"s{i}.example.com"' for i in range(33))
                + "]: must not have more than 32 search paths",
            )
        ],
    ),
    (
        template(dnsConfig={"searches": ["a" * 63 + ".example.com"] * 30}),
        (1, 33),
        [
            (
                "pod.dns",
                f"{S}.dnsConfig.searches: Invalid value: []string{{"
                + ", ".join([f'"{"a" * 63}.example.com"'] * 30)
                + "}: must not have more than 2048 characters (including spaces) in the search "
                "list",
            )
        ],
    ),
    (
        template(hostname="Node", subdomain="a.b", hostAliases=[{"ip": "", "hostnames": ["A"]}]),
        (1, 33),
        [
            ("pod.dns", f'{S}.hostname: Invalid value: "Node": {LABEL}'),
            ("pod.dns", f'{S}.subdomain: Invalid value: "a.b": must not contain dots'),
            (
                "pod.dns",
                f'{S}.hostAliases[0].ip: Invalid value: "": must be a valid IP address, (e.g. '
                "10.9.8.7 or 2001:db8::ffff)",
            ),
            ("pod.dns", f'{S}.hostAliases[0].hostnames[0]: Invalid value: "A": {SUBDOMAIN}'),
        ],
    ),
    (
        template(hostname="node-0", subdomain="torch", hostAliases=[{"ip": "10.0.0.1"}]),
        (1, 33),
        [],
    ),
    # Names of other objects.
    (
        template(serviceAccount="Trainer", nodeName="Node_1", runtimeClassName=""),
        (1, 33),
        [
            ("pod.object-name", f'{S}.serviceAccountName: Invalid value: "Trainer": {SUBDOMAIN}'),
            ("pod.object-name", f'{S}.nodeName: Invalid value: "Node_1": {SUBDOMAIN}'),
            ("pod.object-name", f'{S}.runtimeClassName: Invalid value: "": {SUBDOMAIN}'),
        ],
    ),
    (template(serviceAccountName="trainer", runtimeClassName="nvidia"), (1, 33), []),
    # Deadlines and priority.
    (
        template(activeDeadlineSeconds=0),
        (1, 33),
        [
            (
                "pod.deadline",
                f"{S}.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
                "inclusive",
            )
        ],
    ),
    (template(activeDeadlineSeconds=3600), (1, 33), []),
    (
        template(priorityClassName="High", preemptionPolicy=""),
        (1, 33),
        [
            ("pod.priority", f'{S}.priorityClassName: Invalid value: "High": {SUBDOMAIN}'),
            ("pod.priority", f"{S}.preemptionPolicy: Required value"),
        ],
    ),
    (
        template(preemptionPolicy="Always"),
        (1, 33),
        [
            (
                "pod.priority",
                f'{S}.preemptionPolicy: Unsupported value: "Always": supported values: '
                '"PreemptLowerPriority", "Never"',
            )
        ],
    ),
    (template(priorityClassName="high", preemptionPolicy="Never"), (1, 33), []),
    # Readiness and scheduling gates.
    (
        template(
            readinessGates=[{"conditionType": "a b"}],
            schedulingGates=[{"name": "example.com/quota"}, {"name": "example.com/quota"}],
            nodeName="node-1",
        ),
        (1, 33),
        [
            (
                "pod.gates",
                f'{S}.readinessGates[0].conditionType: Invalid value: "a b": '
                f"{qualified_name_errors('a b')[0]}",
            ),
            ("pod.gates", f'{S}.schedulingGates[1]: Duplicate value: "example.com/quota"'),
            (
                "pod.gates",
                f"{S}.nodeName: Forbidden: cannot be set until all schedulingGates have been "
                "cleared",
            ),
        ],
    ),
    (template(schedulingGates=[{"name": "example.com/quota"}]), (1, 33), []),
    # Resource claims, dropped before 1.34.
    (
        template(
            resourceClaims=[
                {"resourceClaimName": "gpu"},
                {"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"},
                {"name": "gpu"},
            ]
        ),
        (1, 34),
        [
            ("pod.resource-claims", f"{S}.resourceClaims[0].name: Required value"),
            (
                "pod.resource-claims",
                f'{S}.resourceClaims[1]: Invalid value: {{"name":"gpu","resourceClaimName":"a",'
                '"resourceClaimTemplateName":"b"}: at most one of `resourceClaimName` or '
                "`resourceClaimTemplateName` may be specified",
            ),
            ("pod.resource-claims", f'{S}.resourceClaims[2].name: Duplicate value: "gpu"'),
            (
                "pod.resource-claims",
                f'{S}.resourceClaims[2]: Invalid value: {{"name":"gpu"}}: must specify one of: '
                "`resourceClaimName`, `resourceClaimTemplateName`",
            ),
        ],
    ),
    (template(resourceClaims=[{"resourceClaimName": "gpu"}]), (1, 33), []),
    (template(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "gpu"}]), (1, 34), []),
]


@pytest.mark.parametrize(("tmpl", "version", "expected"), CASES)
def test_pod_fields(tmpl, version, expected):
    assert found(tmpl, version) == expected
