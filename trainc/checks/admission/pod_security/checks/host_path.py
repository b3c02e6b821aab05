"""``hostPathVolumes`` (baseline): no ``hostPath`` volume.

A dataset mounted from the node's disk is a ``hostPath`` volume, refused from baseline on.
At restricted the ``restrictedVolumes`` check overrides this one and names the volume type.
Upstream:
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/check_hostPathVolumes.go
"""

from __future__ import annotations

from typing import Final

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod, join_quote, name, pluralize
from trainc.checks.admission.pod_security.results import Check, Finding, VersionedRule
from trainc.checks.workload.jsonfields import objects

CHECK_ID: Final = "hostPathVolumes"


def _since_1_0(pod: Pod) -> Finding | None:
    volumes = [
        name(volume)
        for _, volume in objects(pod.spec.get("volumes"))
        if volume.get("hostPath") is not None
    ]
    if not volumes:
        return None
    return Finding(
        "hostPath volumes", f"{pluralize('volume', 'volumes', len(volumes))} {join_quote(volumes)}"
    )


CHECK = Check(CHECK_ID, Level.BASELINE, (VersionedRule((1, 0), _since_1_0),))
