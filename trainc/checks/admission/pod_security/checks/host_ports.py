"""``hostPorts`` (baseline): no container port bound on the node.

The ports are listed as upstream lists them: distinct, sorted as text (``10``, ``8080``,
``9``), without quotes. Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_hostPorts.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, containers_phrase, name, pluralize
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import integer, objects


def _since_1_0(pod: Pod) -> Finding | None:
    containers: list[str] = []
    ports: set[str] = set()
    for container in pod.containers():
        used = [integer(port.get("hostPort")) for _, port in objects(container.get("ports"))]
        bound = {str(port) for port in used if port}
        if bound:
            containers.append(name(container))
            ports |= bound
    if not containers:
        return None
    return Finding(
        "hostPort",
        f"{containers_phrase(containers)} {pluralize('uses', 'use', len(containers))} "
        f"{pluralize('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}",
    )


CHECK = Check("hostPorts", Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
