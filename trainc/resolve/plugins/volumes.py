"""JobSet volumeClaimPolicies (KEP-572) compiled into plain PersistentVolumeClaims.

The JobSet controller creates, per claim template, a PVC ``<template>-<jobset>`` labelled
with the JobSet's name, and adds it as a volume to every replicatedJob whose containers or
initContainers mount the template's name
(https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/volume_claim_policy.go).
trainc does both at compile time (this plugin adds the volumes and records the claims; the compiler
emits them, :mod:`trainc.compiler.plugins.volumes`): once the claim exists, the JobSet
webhook rejects a policy with retention ``Delete`` whose PVC already exists, so a
repository that both emits the claim and keeps the policy would stop deploying on the
second sync. The claims therefore become manifests, and the policy leaves the JobSet.

Retention maps onto GitOps: ``Delete`` (the default) needs nothing, the claim is pruned
with the job's other manifests (and later deleted by the sweeper's TTL); ``Retain`` opts
the claim out of Argo CD and Flux pruning, as the JobSet controller leaves a retained PVC
without an owner. With ``compile.volumeClaimPolicies: Native`` (JobSet >= 0.11 in the
cluster) the policy stays for the JobSet controller and this plugin does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.resolve.context import Resolution, containers, pod_spec
from trainc.resolve.edits import upsert_volumes
from trainc.resolve.resolved import Claim

_POLICIES: Final = "volumeClaimPolicies"
_RETAIN: Final = "Retain"


@dataclass(frozen=True, slots=True)
class VolumesPlugin:
    """Claim templates become explicit pod volumes and claims to emit (KEP-572)."""

    @property
    def name(self) -> str:
        """The upstream concept this plugin reproduces."""
        return "volumes"

    def pre_build_sync(self, context: Resolution) -> None:
        """Add each claim's volume to the pods that mount it; drop the policies.

        Only pods with a matching volumeMount (in containers or initContainers, after every
        plugin has settled the template) get the volume, as the JobSet controller decides.
        """
        if context.settings.native_volume_claims:
            return
        claims = list(_claims(context.job.template))
        context.claims.extend(claims)
        cause = context.cause_at((_POLICIES,))
        context.jobset_spec.pop(_POLICIES, None)
        for job in context.replicated_jobs():
            pod = pod_spec(job)
            mounted = _mounted_names(pod)
            for claim in claims:
                if claim.name in mounted:
                    rule = f"the volume of claim template {claim.name!r}"
                    origin = context.derived("volumes", rule, cause)
                    upsert_volumes(context.trace, pod, [_volume(claim, context.job.name)], origin)


def _claims(jobset_spec: JsonObject) -> Iterator[Claim]:
    """Claim templates of the joined JobSet spec; retention defaults to Delete (the webhook).

    A template without a name is skipped: validation reports it
    (``xobj.volume-claim-name``), and a TrainJob on such a runtime is never built, but it
    is still resolved for the policies that read what it resolves to.
    """
    for policy in as_list(jobset_spec.get(_POLICIES)):
        retain = get_path(policy, ("retentionPolicy", "whenDeleted")) == _RETAIN
        for template in as_list(as_object(policy).get("templates")):
            name = get_path(template, ("metadata", "name"))
            if isinstance(name, str) and isinstance(template, dict):
                yield Claim(name, template, retain)


def _mounted_names(pod: JsonObject) -> set[str]:
    """Volume names mounted by any container or init container of ``pod``."""
    return {
        name
        for key in ("containers", "initContainers")
        for container in containers(pod, key)
        for mount in as_list(container.get("volumeMounts"))
        if isinstance(name := get_path(mount, ("name",)), str)
    }


def _volume(claim: Claim, jobset: str) -> JsonObject:
    """The pod volume through which a replicatedJob reaches the claim."""
    return {"name": claim.name, "persistentVolumeClaim": {"claimName": claim.claim_name(jobset)}}
