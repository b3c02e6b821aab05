"""The PodSecurity plugin's decision on one pod: refuse, warn, note for the audit log.

Follows ``ValidatePod``, ``ValidatePodController`` and ``EvaluatePod`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/admission/admission.go.
Exempt namespaces and users (from the plugin's configuration) are never judged; a pod
whose ``runtimeClassName`` is exempt is not either. A fully privileged namespace is let
through without evaluation. ``enforce`` is applied to pods only: for a pod's controller
(a Job, a Deployment) the plugin only warns and audits, so that ``kubectl apply`` shows
what the pods will meet. When ``enforce`` refuses, no warning is added.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.checks.admission.pod_security.levels import LevelVersion
from trainc.checks.admission.pod_security.message import message, warning
from trainc.checks.admission.pod_security.namespace import NamespacePolicy
from trainc.checks.admission.pod_security.registry import evaluate
from trainc.checks.admission.pod_security.results import Violation
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject


@dataclass(frozen=True, slots=True)
class Exemptions:
    """Who and what the plugin's configuration exempts from every check."""

    usernames: frozenset[str] = frozenset()
    namespaces: frozenset[str] = frozenset()
    runtime_classes: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the plugin does with a pod: its refusal, its warning, its audit note."""

    refused: tuple[Violation, ...] = ()
    refusal: str | None = None
    warned: tuple[Violation, ...] = ()
    warning: str | None = None
    audited: tuple[Violation, ...] = ()
    audit: str | None = None
    exempt: str | None = None


def _exemption(
    exemptions: Exemptions, namespace: str, username: str, spec: JsonObject
) -> str | None:
    """``namespace``, ``user`` or ``runtimeClass``, as upstream's audit annotation says."""
    if namespace and namespace in exemptions.namespaces:
        return "namespace"
    if username and username in exemptions.usernames:
        return "user"
    runtime_class = text(spec.get("runtimeClassName"))
    if runtime_class and runtime_class in exemptions.runtime_classes:
        return "runtimeClass"
    return None


def judge(
    policy: NamespacePolicy,
    metadata: JsonObject,
    spec: JsonObject,
    *,
    release: KubeVersion,
    namespace: str = "",
    username: str = "",
    exemptions: Exemptions | None = None,
    enforce: bool = True,
) -> Verdict:
    """The plugin's verdict on a pod (``enforce``) or a pod template of a controller."""
    exempt = _exemption(exemptions or Exemptions(), namespace, username, spec)
    if exempt is not None:
        return Verdict(exempt=exempt)
    if not policy.errors and policy.fully_privileged:
        return Verdict()
    cache: dict[LevelVersion, tuple[Violation, ...]] = {}

    def run(mode: LevelVersion) -> tuple[Violation, ...]:
        if mode not in cache:
            found = evaluate(mode.level, mode.version, metadata, spec, release=release)
            cache[mode] = tuple(found)
        return cache[mode]

    refused = run(policy.enforce) if enforce else ()
    audited = run(policy.audit)
    warned = () if refused else run(policy.warn)
    return Verdict(
        refused=refused,
        refusal=message(policy.enforce.label, refused) if refused else None,
        warned=warned,
        warning=warning(policy.warn.label, warned) if warned else None,
        audited=audited,
        audit=warning(policy.audit.label, audited) if audited else None,
    )
