"""What a check finds, and how a check is declared with the versions of its rule.

Upstream's ``Check`` (https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/checks.go)
has an ID, a level and a list of versioned rules: the rule of the newest version not newer
than the one judged applies, and before the first version the check does not exist. A
restricted rule may override baseline checks that it supersedes (``restrictedVolumes``
replaces ``hostPathVolumes``), so the restricted level does not report a problem twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from trainc.checks.admission.pod_security.levels import Level
from trainc.checks.admission.pod_security.pod import Pod
from trainc.checks.workload.version import KubeVersion


@dataclass(frozen=True, slots=True)
class Violation:
    """One check a pod fails: the check, its forbidden reason and detail in upstream's words."""

    check: str
    reason: str
    detail: str

    @property
    def text(self) -> str:
        """``reason (detail)``, or the reason alone when there is no detail."""
        return f"{self.reason} ({self.detail})" if self.detail else self.reason


@dataclass(frozen=True, slots=True)
class Finding:
    """A failed rule, before the registry names the check it belongs to."""

    reason: str
    detail: str


#: A rule: what it finds wrong with a pod, or None when the pod passes.
Rule = Callable[[Pod], Finding | None]


def unless(exempt: Callable[[Pod], bool], rule: Rule) -> Rule:
    """``rule`` for every pod but those ``exempt`` lets through: how a later version relaxes
    an earlier rule (a Windows pod from 1.25, a user-namespaced pod from 1.35)."""

    def relaxed(pod: Pod) -> Finding | None:
        return None if exempt(pod) else rule(pod)

    return relaxed


@dataclass(frozen=True, slots=True)
class VersionedRule:
    """A check's rule from ``since`` on, and the baseline checks it overrides."""

    since: KubeVersion
    rule: Rule
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """A Pod Security check: its ID, its level and its rules by version, oldest first."""

    id: str
    level: Level
    versions: tuple[VersionedRule, ...]

    def at(self, version: KubeVersion) -> VersionedRule | None:
        """The rule that judges at ``version``, or None before the check exists."""
        applicable = [rule for rule in self.versions if rule.since <= version]
        return applicable[-1] if applicable else None
