"""Which kubeconfig files a cluster command reads, in kubectl's order.

``trainc sweep`` and ``trainc prune`` find their cluster as ``kubectl`` does, so the
kubeconfig a platform team already uses works unchanged. client-go's loading rules
(``NewDefaultClientConfigLoadingRules`` and ``ClientConfigLoadingRules.Load`` in
https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/client-go/tools/clientcmd/loader.go):

* ``--kubeconfig PATH`` is the only file read, and it must exist;
* otherwise ``$KUBECONFIG``, a list split like ``$PATH``, empty entries and repeats
  dropped, files that do not exist skipped, the others merged: the first file to define a
  cluster, user or context, or to set ``current-context``, wins;
* otherwise ``~/.kube/config`` when it exists.

Only when no file is read, or the files select no cluster, does the pod's service account
(the in-cluster configuration) take over: files first, in-cluster second, as
``DeferredLoadingClientConfig.ClientConfig`` in
https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/client-go/tools/clientcmd/merged_client_builder.go
decides. The loading itself is :mod:`trainc.sweep.client`'s; this module never imports
``kubernetes``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

#: The variable kubectl reads its kubeconfig list from.
KUBECONFIG_VARIABLE = "KUBECONFIG"
#: kubectl's default kubeconfig, relative to the home directory.
HOME_KUBECONFIG = Path(".kube", "config")


@dataclass(frozen=True, slots=True)
class KubeconfigSearch:
    """The kubeconfig files to read, most important first, and where that list came from.

    ``origin`` names the source in messages (``--kubeconfig``, ``$KUBECONFIG`` or
    ``~/.kube/config``); ``explicit`` means the one file was asked for and must exist.
    """

    candidates: tuple[Path, ...]
    origin: str
    explicit: bool

    def existing(self) -> tuple[Path, ...]:
        """The candidates that exist: client-go skips a missing file of the list silently."""
        return tuple(path for path in self.candidates if path.exists())

    def describe(self) -> str:
        """The files looked for, for a message that says where trainc looked."""
        names = ", ".join(str(path) for path in self.candidates) or "no file"
        return f"{self.origin} ({names})"


def kubeconfig_search(
    flag: Path | None, environ: Mapping[str, str], home: Path
) -> KubeconfigSearch:
    """The files kubectl would read given ``--kubeconfig``, the environment and the home."""
    if flag is not None:
        return KubeconfigSearch((flag,), "--kubeconfig", explicit=True)
    listed = environ.get(KUBECONFIG_VARIABLE, "")
    if listed:
        entries = (Path(entry).expanduser() for entry in listed.split(os.pathsep) if entry)
        return KubeconfigSearch(tuple(dict.fromkeys(entries)), "$KUBECONFIG", explicit=False)
    return KubeconfigSearch((home / HOME_KUBECONFIG,), "~/.kube/config", explicit=False)


def first_current_context(documents: Iterable[object]) -> str | None:
    """The ``current-context`` of the first kubeconfig that sets one, as client-go merges.

    The official Python client's merger lets the *last* file win; kubectl lets the first
    (https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/,
    "Merging kubeconfig files"), so trainc chooses the context itself.
    """
    for document in documents:
        current = document.get("current-context") if isinstance(document, dict) else None
        if isinstance(current, str) and current:
            return current
    return None
