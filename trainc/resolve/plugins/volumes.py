"""JobSet volumeClaimPolicies (KEP-572) compiled into plain PersistentVolumeClaims.

The JobSet controller creates, per claim template, a PVC ``<template>-<jobset>`` labelled
with the JobSet's name, and adds it as a volume to every replicatedJob whose containers or
initContainers mount the template's name (:mod:`trainc.resolve.claims`).
trainc does both at compile time (this plugin adds the volumes and records the claims; the compiler
emits them, :mod:`trainc.compiler.plugins.volumes`): once the claim exists, the JobSet
webhook rejects a policy with retention ``Delete`` whose PVC already exists, so a
repository that both emits the claim and keeps the policy would stop deploying on the
second sync. The claims therefore become manifests, and the policy leaves the JobSet.

Retention maps onto GitOps: ``Delete`` (the default) needs nothing, the claim is pruned
with the job's other manifests (and later deleted by the sweeper's TTL); ``Retain`` opts
the claim out of Argo CD and Flux pruning, as the JobSet controller leaves a retained PVC
without an owner. With ``compile.volumeClaimPolicies: Native`` (JobSet >= 0.11 in the
cluster) the policy stays for the JobSet controller and this plugin does nothing: the
controller adds the volumes to the Jobs it constructs (:mod:`trainc.resolve.childjobs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.resolve.claims import POLICIES, claim_templates, claim_volume, mounted_claims
from trainc.resolve.context import Resolution, pod_spec
from trainc.resolve.edits import upsert_volumes


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
        claims = list(claim_templates(context.job.template))
        context.claims.extend(claims)
        cause = context.cause_at((POLICIES,))
        context.jobset_spec.pop(POLICIES, None)
        for job in context.replicated_jobs():
            pod = pod_spec(job)
            for claim in mounted_claims(claims, pod):
                rule = f"the volume of claim template {claim.name!r}"
                origin = context.derived("volumes", rule, cause)
                upsert_volumes(context.trace, pod, [claim_volume(claim, context.job.name)], origin)
