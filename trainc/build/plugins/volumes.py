"""JobSet volumeClaimPolicies (KEP-572) compiled into plain PersistentVolumeClaims.

The JobSet controller creates, per claim template, a PVC ``<template>-<jobset>`` labelled
with the JobSet's name, and adds it as a volume to every replicatedJob whose containers or
initContainers mount the template's name (``upstream-semantics.md`` §4.6). trainc does
both at compile time: once the claim exists, the JobSet webhook rejects a policy with
retention ``Delete`` whose PVC already exists, so a repository that both emits the claim
and keeps the policy would stop deploying on the second sync. The claims therefore become
manifests, and the policy leaves the JobSet.

Retention maps onto GitOps: ``Delete`` (the default) needs nothing, the claim is pruned
with the job's other manifests (and later deleted by the sweeper's TTL); ``Retain`` opts
the claim out of Argo CD and Flux pruning, as the JobSet controller leaves a retained PVC
without an owner. With ``compile.volumeClaimPolicies: Native`` (JobSet >= 0.11 in the
cluster) the policy stays for the JobSet controller and this plugin does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trainc.build.context import BuildContext, containers, pod_spec
from trainc.build.k8s import manifest, upsert_volumes
from trainc.errors import CompilerBug
from trainc.model.json import JsonObject, as_list, as_object, copy_json, get_path
from trainc.model.labels import (
    ARGOCD_NO_PRUNE,
    ARGOCD_SYNC_OPTIONS_ANNOTATION,
    FLUX_PRUNE_ANNOTATION,
    FLUX_PRUNE_DISABLED,
    JOBSET_NAME_LABEL,
)

_POLICIES = "volumeClaimPolicies"
_RETAIN = "Retain"


@dataclass(frozen=True, slots=True)
class _Claim:
    """One claim template with the retention of the policy that declares it."""

    name: str
    template: JsonObject
    retain: bool

    def claim_name(self, jobset: str) -> str:
        """Name of the PVC, as the JobSet controller derives it."""
        return f"{self.name}-{jobset}"


@dataclass(frozen=True, slots=True)
class VolumesPlugin:
    """Claim templates become PVC manifests and explicit pod volumes (KEP-572)."""

    @property
    def name(self) -> str:
        """The upstream concept this plugin reproduces."""
        return "volumes"

    def pre_build_sync(self, context: BuildContext) -> None:
        """Add each claim's volume to the pods that mount it; drop the policies.

        Only pods with a matching volumeMount (in containers or initContainers, after every
        plugin has settled the template) get the volume, as the JobSet controller decides.
        """
        if context.settings.native_volume_claims:
            return
        claims = list(_claims(context.job.jobset_spec))
        context.jobset_spec.pop(_POLICIES, None)
        for job in context.replicated_jobs():
            pod = pod_spec(job)
            mounted = _mounted_names(pod)
            volumes = [
                _volume(claim, context.job.name) for claim in claims if claim.name in mounted
            ]
            if volumes:
                upsert_volumes(pod, volumes)

    def build(self, context: BuildContext) -> list[JsonObject]:
        """One PersistentVolumeClaim per claim template, in policy and template order."""
        if context.settings.native_volume_claims:
            return []
        return [
            _persistent_volume_claim(claim, context.job.name, context.job.namespace)
            for claim in _claims(context.job.jobset_spec)
        ]


def _claims(jobset_spec: JsonObject) -> Iterator[_Claim]:
    """Claim templates of the resolved JobSet spec; retention defaults to Delete (§4.3)."""
    for policy in as_list(jobset_spec.get(_POLICIES)):
        retain = get_path(policy, ("retentionPolicy", "whenDeleted")) == _RETAIN
        for template in as_list(as_object(policy).get("templates")):
            name = get_path(template, ("metadata", "name"))
            if not isinstance(name, str) or not isinstance(template, dict):
                # Validation rejects unnamed templates (xobj.volume-claim-name) before a build.
                raise CompilerBug(f"volumeClaimPolicies template without a name: {template!r}")
            yield _Claim(name, template, retain)


def _mounted_names(pod: JsonObject) -> set[str]:
    """Volume names mounted by any container or init container of ``pod``."""
    return {
        name
        for key in ("containers", "initContainers")
        for container in containers(pod, key)
        for mount in as_list(container.get("volumeMounts"))
        if isinstance(name := get_path(mount, ("name",)), str)
    }


def _volume(claim: _Claim, jobset: str) -> JsonObject:
    """The pod volume through which a replicatedJob reaches the claim."""
    return {"name": claim.name, "persistentVolumeClaim": {"claimName": claim.claim_name(jobset)}}


def _persistent_volume_claim(claim: _Claim, jobset: str, namespace: str) -> JsonObject:
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
