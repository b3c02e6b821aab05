"""Kubernetes object skeletons, and trainc's ownership labels on what a TrainJob builds."""

from __future__ import annotations

from collections.abc import Iterable

from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import MANAGED_BY_LABEL, MANAGED_BY_TRAINC, TRAINJOB_NAME_LABEL


def manifest(
    api_version: str, kind: str, name: str, namespace: str, **fields: JsonValue
) -> JsonObject:
    """A namespaced object: apiVersion, kind, metadata with name and namespace, then fields."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        **fields,
    }


def label_owned(objects: Iterable[JsonObject], trainjob: str) -> None:
    """Label each object as trainc's, built for TrainJob ``trainjob``.

    ``app.kubernetes.io/managed-by: trainc`` keeps the sweeper away from everything trainc
    did not create; ``trainer.kubeflow.org/trainjob-name`` finds what one TrainJob made.
    """
    for obj in objects:
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict):
            metadata = obj["metadata"] = {}
        labels = metadata.get("labels")
        if not isinstance(labels, dict):
            labels = metadata["labels"] = {}
        labels[MANAGED_BY_LABEL] = MANAGED_BY_TRAINC
        labels[TRAINJOB_NAME_LABEL] = trainjob
