"""The Kubernetes version a rule follows, and the feature gates that change a rule.

The API server's rules move with its version: a feature gate turned on by default in
one release relaxes or adds a check. trainc judges against ``kubernetesVersion`` from
trainc.yaml (see :mod:`trainc.config`), assuming every gate at its default for that
release: a cluster that turns a gate on or off by hand is not what trainc models.
Each module declares the gates its rules read, next to the rules, with the release
whose default turned them on (upstream's ``pkg/features/kube_features.go``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainc.errors import UsageError

KubeVersion = tuple[int, int]

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


@dataclass(frozen=True, slots=True)
class Gate:
    """A feature gate, on by default from ``default_since`` (None: off in every release)."""

    name: str
    default_since: KubeVersion | None

    def enabled(self, version: KubeVersion) -> bool:
        """Whether the gate is on by default in ``version``."""
        return self.default_since is not None and version >= self.default_since
