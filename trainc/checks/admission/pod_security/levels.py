"""Levels and versions of a Pod Security policy, parsed as the API server parses them.

A namespace names a level (``privileged``, ``baseline``, ``restricted``) and a version
(``latest`` or ``v1.N``). Upstream's parsers (``ParseLevel``, ``ParseVersion`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/api/helpers.go)
never fail outright: a bad level reads as ``restricted`` and a bad version as ``latest``,
with an error beside the value, so a typo in a label tightens the policy instead of
opening it. The version must be exactly ``v1.`` and a minor without leading zeros:
``1.30``, ``v1.30.0`` and ``v1.030`` are all refused.

``latest`` is resolved against the cluster's own release, which is also the release of the
library that judges: a label naming a newer version than the cluster's is judged by the
cluster's newest rules (upstream clamps to the newest version its checks know, and, from
1.35, to the version the API server emulates).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from trainc.checks.workload.version import KubeVersion


class Level(StrEnum):
    """A Pod Security Standard, from the most permissive to the strictest."""

    PRIVILEGED = "privileged"
    BASELINE = "baseline"
    RESTRICTED = "restricted"

    @property
    def strictness(self) -> int:
        """0, 1 or 2: upstream's ``CompareLevels`` order."""
        return _STRICTNESS[self]


_STRICTNESS: Final = {Level.PRIVILEGED: 0, Level.BASELINE: 1, Level.RESTRICTED: 2}

#: The version that follows the cluster's release.
LATEST: Final = "latest"

#: A version as a namespace label names it: a (major, minor) release or ``latest``.
PolicyVersion = KubeVersion | Literal["latest"]

_VERSION = re.compile(r"v1\.([0-9]|[1-9][0-9]*)")

#: Upstream's error texts for a bad level and a bad version, word for word.
LEVEL_ERROR: Final = "must be one of privileged, baseline, restricted"
VERSION_ERROR: Final = 'must be "latest" or "v1.x"'


def parse_level(text: str) -> tuple[Level, str | None]:
    """The level ``text`` names, or ``restricted`` and upstream's error for anything else."""
    try:
        return Level(text), None
    except ValueError:
        return Level.RESTRICTED, LEVEL_ERROR


def parse_version(text: str) -> tuple[PolicyVersion, str | None]:
    """The version ``text`` names, or ``latest`` and upstream's error for anything else."""
    if text == LATEST:
        return LATEST, None
    match = _VERSION.fullmatch(text)
    if match is None:
        return LATEST, VERSION_ERROR
    return (1, int(match.group(1))), None


def version_text(version: PolicyVersion) -> str:
    """``latest`` or ``v1.30``, as upstream prints a version."""
    if isinstance(version, str):
        return LATEST
    return f"v{version[0]}.{version[1]}"


def effective_version(version: PolicyVersion, release: KubeVersion) -> KubeVersion:
    """The version whose checks judge a pod on a cluster of ``release``.

    ``latest`` is the release itself, and a version newer than the release is judged by the
    release's checks: a cluster cannot apply rules written after it.
    """
    if isinstance(version, str):
        return release
    return min(version, release)


@dataclass(frozen=True, slots=True)
class LevelVersion:
    """A level at a version: what one mode (enforce, warn, audit) of a namespace applies."""

    level: Level
    version: PolicyVersion = LATEST

    @property
    def label(self) -> str:
        """``restricted:latest`` or ``baseline:v1.28``: how the API server names it."""
        return f"{self.level}:{version_text(self.version)}"

    def equivalent(self, other: LevelVersion) -> bool:
        """Whether both judge alike: both privileged, or the same level at the same version."""
        both_privileged = self.level == Level.PRIVILEGED and other.level == Level.PRIVILEGED
        return both_privileged or self == other
