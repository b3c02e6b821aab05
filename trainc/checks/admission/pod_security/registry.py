"""Every check, and the checks each level applies at each version, in upstream's order.

Follows ``populate`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/registry.go:
the baseline level runs the baseline checks; the restricted level runs them too, except
those a restricted check overrides at that version, and then the restricted checks.
Checks run sorted by ID (byte order), baseline first, and that order is the order of the
reasons in the API server's message.
"""

from __future__ import annotations

from functools import cache

from trainc.checks.admission.pod_security.checks import (
    app_armor,
    capabilities,
    host_namespaces,
    host_path,
    host_ports,
    host_probes,
    privilege_escalation,
    privileged,
    proc_mount,
    restricted_volumes,
    run_as,
    se_linux,
    seccomp,
    sysctls,
    windows_host_process,
)
from trainc.checks.admission.pod_security.levels import (
    Level,
    PolicyVersion,
    effective_version,
)
from trainc.checks.admission.pod_security.pod import Pod
from trainc.checks.admission.pod_security.results import Check, VersionedRule, Violation
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject

#: Every check of the library, baseline first, each level sorted by ID as upstream sorts.
CHECKS: tuple[Check, ...] = tuple(
    sorted(
        (
            app_armor.CHECK,
            capabilities.BASELINE,
            host_namespaces.CHECK,
            host_path.CHECK,
            host_ports.CHECK,
            host_probes.CHECK,
            privileged.CHECK,
            proc_mount.BASELINE,
            se_linux.CHECK,
            seccomp.BASELINE,
            sysctls.CHECK,
            windows_host_process.CHECK,
            privilege_escalation.CHECK,
            capabilities.RESTRICTED,
            proc_mount.RESTRICTED,
            restricted_volumes.CHECK,
            run_as.RUN_AS_NON_ROOT,
            run_as.RUN_AS_USER,
            seccomp.RESTRICTED,
        ),
        key=lambda check: (check.level == Level.RESTRICTED, check.id),
    )
)


def compose(
    checks: tuple[Check, ...], level: Level, version: KubeVersion
) -> tuple[tuple[str, VersionedRule], ...]:
    """The rules ``level`` runs at ``version`` out of ``checks``, by ID, in upstream's order.

    A restricted rule overrides the baseline checks it names only while it is the rule in
    force, so a baseline check may come back at a later version (upstream's registry test
    has such a case).
    """
    if level == Level.PRIVILEGED:
        return ()
    ordered = sorted(checks, key=lambda check: (check.level == Level.RESTRICTED, check.id))
    active = [(check, check.at(version)) for check in ordered]
    chosen = [(check, rule) for check, rule in active if rule is not None]
    if level == Level.BASELINE:
        return tuple((check.id, rule) for check, rule in chosen if check.level == Level.BASELINE)
    overridden = {
        overridden_id
        for check, rule in chosen
        if check.level == Level.RESTRICTED
        for overridden_id in rule.overrides
    }
    return tuple((check.id, rule) for check, rule in chosen if check.id not in overridden)


@cache
def checks_for(level: Level, version: KubeVersion) -> tuple[tuple[str, VersionedRule], ...]:
    """The checks of the library ``level`` runs at ``version``, in upstream's order."""
    return compose(CHECKS, level, version)


def evaluate(
    level: Level,
    version: PolicyVersion,
    metadata: JsonObject,
    spec: JsonObject,
    *,
    release: KubeVersion,
) -> list[Violation]:
    """The checks a pod fails at ``level`` and ``version`` on a cluster of ``release``.

    ``metadata`` and ``spec`` are the pod's as the API server holds them when admission
    runs: defaulted, and with what the pod's controller added. ``latest`` is ``release``.
    """
    pod = Pod(metadata, spec, release)
    violations: list[Violation] = []
    for check_id, versioned in checks_for(level, effective_version(version, release)):
        finding = versioned.rule(pod)
        if finding is not None:
            violations.append(Violation(check_id, finding.reason, finding.detail))
    return violations
