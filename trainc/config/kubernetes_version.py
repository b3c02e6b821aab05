"""trainc.yaml's ``kubernetesVersion`` checked: it must name a release trainc models.

The API server's rules for Jobs and Pods change from release to release, and trainc
knows them for :data:`~trainc.checks.workload.version.KNOWN_RELEASES` only. ``"1.20"``
or ``"1.40"`` would otherwise be taken at its word and judged by rules of other
releases in silence, so the setting is a ``config.invalid`` error that names the range.
Argo CD's ``KUBE_VERSION`` is not judged here: it is the cluster's, which no one can
correct in the repository (:mod:`trainc.argocd` takes the nearest release instead).
"""

from __future__ import annotations

from trainc.checks.workload.version import (
    KNOWN_RELEASES,
    NEWEST_RELEASE,
    nearest_release,
    read_version,
    release_text,
)
from trainc.config.file import CONFIG_INVALID
from trainc.config.settings import DEFAULT_KUBERNETES_VERSION
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document
from trainc.model.json import as_object

_FIELD = "kubernetesVersion"


def check_kubernetes_version(document: Document | None) -> list[Diagnostic]:
    """A ``config.invalid`` finding when trainc.yaml names a release outside the range."""
    if document is None:
        return []
    value = as_object(document.data).get(_FIELD)
    version = read_version(value) if isinstance(value, str) else None
    if version is None or nearest_release(version) == version:
        return []  # unset, or malformed: the config's schema reports that
    newest = release_text(NEWEST_RELEASE)
    return [
        document.finding(
            (_FIELD,),
            CONFIG_INVALID.code,
            f"kubernetesVersion {value!r} is not a release trainc knows the rules of "
            f"(Kubernetes {KNOWN_RELEASES})",
            hint=f"name your cluster's release (the newest trainc knows is {newest!r}), or "
            "delete the setting: then Argo CD's destination cluster's release applies, "
            f"else trainc's default {DEFAULT_KUBERNETES_VERSION!r}",
        )
    ]
