"""The Namespace objects the output relies on, when trainc.yaml asks for them.

Compiled objects land in the namespaces of their TrainJobs and, for the sweeper, in its
own; the API server refuses an object whose namespace does not exist. By default trainc
leaves namespaces to whoever owns them (the platform team, Argo CD's
``CreateNamespace=true``). With ``compile.namespaces: Emit`` the output carries a
Namespace for each, so that ``kubectl apply -k`` of it works on an empty cluster.

A namespace holds more than trainc's objects (quotas, secrets, other teams' workloads).
Removing the last TrainJob of a namespace drops its Namespace from the output, and a
GitOps prune would then delete the namespace with everything in it; so each Namespace
carries the prune opt-outs of Argo CD (``Prune=false``) and Flux (``prune: disabled``).
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.config.settings import RepoConfig
from trainc.model.json import JsonObject, as_object
from trainc.model.labels import (
    ARGOCD_NO_PRUNE,
    ARGOCD_SYNC_OPTIONS_ANNOTATION,
    FLUX_PRUNE_ANNOTATION,
    FLUX_PRUNE_DISABLED,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    SOURCE_ANNOTATION,
)


def build_namespaces(
    config: RepoConfig, namespaces: Iterable[str], shared: Iterable[JsonObject]
) -> tuple[JsonObject, ...]:
    """A Namespace for each of ``namespaces`` (those of the compiled jobs) and of ``shared``,
    sorted by name.

    Nothing unless trainc.yaml sets ``compile.namespaces: Emit``.
    """
    if not config.compile.emit_namespaces:
        return ()
    names = set(namespaces)
    for obj in shared:
        namespace = as_object(obj.get("metadata")).get("namespace")
        if isinstance(namespace, str):
            names.add(namespace)
    return tuple(_namespace(name, config.config_file) for name in sorted(names))


def _namespace(name: str, source: str | None) -> JsonObject:
    annotations: JsonObject = {
        ARGOCD_SYNC_OPTIONS_ANNOTATION: ARGOCD_NO_PRUNE,
        FLUX_PRUNE_ANNOTATION: FLUX_PRUNE_DISABLED,
    }
    if source is not None:
        annotations[SOURCE_ANNOTATION] = source
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "labels": {MANAGED_BY_LABEL: MANAGED_BY_TRAINC},
            "annotations": annotations,
        },
    }
