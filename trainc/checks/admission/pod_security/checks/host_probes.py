"""``hostProbesAndHostLifecycle`` (baseline, from 1.34): probes and hooks may not name a host.

An ``httpGet`` or ``tcpSocket`` probe or lifecycle handler with ``host`` set makes the
kubelet connect to that address from the node, which baseline forbids from 1.34 on. Unlike
most checks, the detail lists containers and hosts sorted and without repeats. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_hostProbesAndhostLifecycle.go
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import (
    Pod,
    containers_phrase,
    field,
    join_quote,
    name,
    pluralize,
)
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject

_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_HOOKS = ("postStart", "preStop")


def _hosts(handler: JsonObject | None) -> Iterator[str]:
    for action in ("httpGet", "tcpSocket"):
        host = text((field(handler, action) or {}).get("host"))
        if host:
            yield host


def _container_hosts(container: JsonObject) -> list[str]:
    handlers = [field(container, probe) for probe in _PROBES]
    lifecycle = field(container, "lifecycle")
    handlers += [field(lifecycle, hook) for hook in _HOOKS]
    return [host for handler in handlers for host in _hosts(handler)]


def _since_1_34(pod: Pod) -> Finding | None:
    containers: set[str] = set()
    hosts: set[str] = set()
    for container in pod.containers():
        found = _container_hosts(container)
        if found:
            containers.add(name(container))
            hosts.update(found)
    if not containers:
        return None
    return Finding(
        "probe or lifecycle host",
        f"{containers_phrase(sorted(containers))} {pluralize('uses', 'use', len(containers))} "
        f"{pluralize('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} "
        f"{join_quote(sorted(hosts))}",
    )


CHECK = Check("hostProbesAndHostLifecycle", Level.BASELINE, (VersionedRule((1, 34), _since_1_34),))
