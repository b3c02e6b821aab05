"""The Kubernetes version a rule follows, and the feature gates that change a rule.

The API server's rules move with its version: a feature gate turned on by default in
one release relaxes or adds a check. trainc judges against ``kubernetesVersion`` from
trainc.yaml (see :mod:`trainc.config.settings`), assuming every gate at its default for that
release: a cluster that turns a gate on or off by hand is not what trainc models.
Each module declares the gates its rules read, next to the rules, with the release
whose default turned them on (upstream's ``pkg/features/kube_features.go``).
"""

from __future__ import annotations

import re

from trainc.errors import UsageError
from trainc.records import dataclass

KubeVersion = tuple[int, int]

#: The releases whose rules trainc models, oldest and newest: the default of every gate
#: its rules read was taken for them from upstream's feature-gate table
#: (https://github.com/kubernetes/kubernetes/blob/master/pkg/features/kube_features.go).
#: Outside them trainc would guess at the API server's rules, so trainc.yaml may not name
#: another release, and a cluster's own version is judged by the nearest of these.
OLDEST_RELEASE: KubeVersion = (1, 29)
NEWEST_RELEASE: KubeVersion = (1, 36)


def release_text(version: KubeVersion) -> str:
    """``1.33``: a release as trainc.yaml spells it."""
    return f"{version[0]}.{version[1]}"


#: The range in words, for messages and the docs.
KNOWN_RELEASES = f"{release_text(OLDEST_RELEASE)} to {release_text(NEWEST_RELEASE)}"

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?")


def parse_version(text: str) -> KubeVersion:
    """(major, minor) of ``1.33``, ``v1.33`` or ``1.33.0``; UsageError for anything else."""
    version = read_version(text)
    if version is None:
        raise UsageError(f"Kubernetes version {text!r} is not MAJOR.MINOR (e.g. 1.33)")
    return version


def read_version(text: str) -> KubeVersion | None:
    """(major, minor) of ``1.33``, ``v1.33`` or ``1.33.0``; None for anything else."""
    match = _VERSION.fullmatch(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def nearest_release(version: KubeVersion) -> KubeVersion:
    """``version`` if trainc models it, else the oldest or newest release it does."""
    return min(max(version, OLDEST_RELEASE), NEWEST_RELEASE)


@dataclass(frozen=True, slots=True)
class Gate:
    """A feature gate, on by default from ``default_since`` (None: off in every release)."""

    name: str
    default_since: KubeVersion | None

    def enabled(self, version: KubeVersion) -> bool:
        """Whether the gate is on by default in ``version``."""
        return self.default_since is not None and version >= self.default_since
