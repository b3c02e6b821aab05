"""``windowsHostProcess`` (baseline): no Windows HostProcess pod or container.

Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_windowsHostProcess.go
"""

from __future__ import annotations

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, context, field, name, setters
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.model.json import JsonObject


def _host_process(security_context: JsonObject | None) -> bool:
    return (field(security_context, "windowsOptions") or {}).get("hostProcess") is True


def _since_1_0(pod: Pod) -> Finding | None:
    containers = [
        name(container) for container in pod.containers() if _host_process(context(container))
    ]
    bad = setters(containers, pod=_host_process(pod.security_context))
    if not bad:
        return None
    return Finding(
        "hostProcess", f"{bad} must not set securityContext.windowsOptions.hostProcess=true"
    )


CHECK = Check("windowsHostProcess", Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
