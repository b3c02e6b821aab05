"""The PersistentVolumeClaims of a JobSet's volumeClaimPolicies (KEP-572), as manifests.

The JobSet controller would create, per claim template, a PVC ``<template>-<jobset>``
labelled with the JobSet's name (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/volume_claim_policy.go);
trainc emits those
claims itself, and resolution dropped the policy from the JobSet and gave the pods their
volumes (:mod:`trainc.resolve.plugins.volumes` says why). Retention maps onto GitOps:
``Delete`` (the default) needs nothing, the claim is pruned with the job's other
manifests (and later deleted by the sweeper's TTL); ``Retain`` opts the claim out of
Argo CD and Flux pruning, as the JobSet controller leaves a retained PVC without an owner.
"""

from __future__ import annotations

from trainc.compiler.objects import manifest
from trainc.model.json import JsonObject, as_object, copy_json
from trainc.model.labels import (
    ARGOCD_NO_PRUNE,
    ARGOCD_SYNC_OPTIONS_ANNOTATION,
    FLUX_PRUNE_ANNOTATION,
    FLUX_PRUNE_DISABLED,
    JOBSET_NAME_LABEL,
)
from trainc.resolve.resolved import Claim, ResolvedJob


def build(job: ResolvedJob) -> list[JsonObject]:
    """One PersistentVolumeClaim per claim template, in policy and template order."""
    return [_persistent_volume_claim(claim, job.name, job.namespace) for claim in job.claims]


def _persistent_volume_claim(claim: Claim, jobset: str, namespace: str) -> JsonObject:
    """The PVC the JobSet controller would create: template labels, annotations and spec."""
    template_metadata = as_object(claim.template.get("metadata"))
    labels: JsonObject = {**as_object(template_metadata.get("labels")), JOBSET_NAME_LABEL: jobset}
    annotations: JsonObject = dict(as_object(template_metadata.get("annotations")))
    if claim.retain:
        _keep_when_pruning(annotations)
    pvc = manifest(
        "v1",
        "PersistentVolumeClaim",
        claim.claim_name(jobset),
        namespace,
        spec=copy_json(as_object(claim.template.get("spec"))),
    )
    metadata = as_object(pvc["metadata"])
    metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return pvc


def _keep_when_pruning(annotations: JsonObject) -> None:
    """Opt out of Argo CD and Flux pruning, keeping any other Argo CD sync options."""
    current = annotations.get(ARGOCD_SYNC_OPTIONS_ANNOTATION)
    options = [o for o in str(current).split(",") if o] if current is not None else []
    if ARGOCD_NO_PRUNE not in options:
        options.append(ARGOCD_NO_PRUNE)
    annotations[ARGOCD_SYNC_OPTIONS_ANNOTATION] = ",".join(options)
    annotations[FLUX_PRUNE_ANNOTATION] = FLUX_PRUNE_DISABLED
