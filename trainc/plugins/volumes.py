"""JobSet volumeClaimPolicies (KEP-572) compiled into plain PersistentVolumeClaims.

The JobSet controller creates, per claim template, a PVC ``<template>-<jobset>`` labelled
with the JobSet's name, and adds it as a volume to every replicatedJob whose containers or
initContainers mount the template's name (:mod:`trainc.resolve.claims`).
trainc does both at compile time (this plugin adds the volumes and records the claims,
and builds the claims as manifests): once the claim exists, the JobSet
webhook rejects a policy with retention ``Delete`` whose PVC already exists, so a
repository that both emits the claim and keeps the policy would stop deploying on the
second sync. The claims therefore become manifests, and the policy leaves the JobSet.

Retention maps onto GitOps: ``Delete`` (the default) needs nothing, the claim is pruned
with the job's other manifests (and later deleted by the sweeper's TTL); ``Retain`` opts
the claim out of Argo CD and Flux pruning, as the JobSet controller leaves a retained PVC
without an owner. With ``compile.volumeClaimPolicies: Native`` (JobSet >= 0.11 in the
cluster) the policy stays for the JobSet controller and this plugin does nothing: the
controller adds the volumes to the Jobs it constructs (:mod:`trainc.resolve.childjobs`).

Validate: claim templates that the JobSet webhook accepts. For each template the JobSet
controller creates a PVC ``<template name>-<jobset>`` and adds it as a volume to every Job
that mounts the template name (``docs/upstream.md``, "Volume claims"). The webhook
therefore wants template names that are unique DNS-1123 subdomains, mounted by some
container, not shadowed by a pod volume, and short enough for the PVC name; the last
depends on the TrainJob's name, as does a pod volume a runtime patch adds. The checks that
need the live cluster (an existing PVC's spec and retention) cannot run offline.

Build: the claims as the JobSet controller would create them
(https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/volume_claim_policy.go),
labelled with the JobSet's name.
"""

from __future__ import annotations

from trainc.checks.shared.template import (
    Node,
    all_containers,
    children,
    jobset_spec,
    mount_names,
    patched_jobs,
    replicated_jobs,
    runtime_patches,
    str_value,
    volumes,
)
from trainc.diagnostics import Diagnostic, Rule, Severity, counted
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_object, copy_json
from trainc.model.labels import (
    ARGOCD_NO_PRUNE,
    ARGOCD_SYNC_OPTIONS_ANNOTATION,
    FLUX_PRUNE_ANNOTATION,
    FLUX_PRUNE_DISABLED,
    JOBSET_NAME_LABEL,
)
from trainc.plugins.shared.objects import manifest
from trainc.resolve.claims import POLICIES, claim_templates, claim_volume, mounted_claims
from trainc.resolve.context import Resolution, pod_spec
from trainc.resolve.edits import upsert_volumes
from trainc.resolve.resolved import Claim, ResolvedJob
from trainc.schema.metadata import LABEL_MAX, dns1123_subdomain_errors

XOBJ_VOLUME_CLAIM_NAME = Rule(
    "xobj.volume-claim-name",
    Severity.ERROR,
    "a volumeClaimPolicies template name is invalid or duplicated",
)

XOBJ_VOLUME_CLAIM_NAME_TOO_LONG = Rule(
    "xobj.volume-claim-name-too-long",
    Severity.ERROR,
    "the generated <claim>-<jobset> PVC name exceeds 63",
)

XOBJ_VOLUME_CLAIM_NO_MOUNT = Rule(
    "xobj.volume-claim-no-mount",
    Severity.ERROR,
    "no container mounts a volumeClaimPolicies template",
)

XOBJ_VOLUME_CLAIM_VOLUME_CONFLICT = Rule(
    "xobj.volume-claim-volume-conflict",
    Severity.ERROR,
    "a pod volume has a volumeClaimPolicies name",
)


class VolumesPlugin:
    """Claim templates become explicit pod volumes and claims to emit (KEP-572)."""

    @property
    def name(self) -> str:
        """The upstream concept this plugin reproduces."""
        return "volumes"

    def validate_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """The runtime's claim templates, as the JobSet webhook checks them (KEP-572)."""
        return check_volume_claims(runtime)

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """The claims the TrainJob adds do not clash with the runtime's volumes."""
        return check_volume_claim_names(trainjob, runtime)

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

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """One PersistentVolumeClaim per claim template, in policy and template order."""
        return [_persistent_volume_claim(claim, job.name, job.namespace) for claim in job.claims]


def _templates(runtime: JsonObject) -> list[Node]:
    return [
        template
        for policy in children(jobset_spec(runtime), "volumeClaimPolicies")
        for template in children(policy, "templates")
    ]


def claim_template_names(runtime: JsonObject) -> set[str]:
    """The names of a runtime's claim templates (``runtime`` is its data, defaulted or not:
    nothing defaults a template's name)."""
    return {name for t in _templates(runtime) if (name := str_value(t.get("metadata", "name")))}


def check_volume_claims(runtime: DefaultedObject) -> list[Diagnostic]:
    """Template names: valid, unique, mounted, and not also a pod volume of the template."""
    rjobs = replicated_jobs(runtime.data)
    mounted = {
        name
        for rjob in rjobs
        for container in all_containers(rjob)
        for name in mount_names(container)
    }
    found: list[Diagnostic] = []
    seen: set[str] = set()
    for template in _templates(runtime.data):
        name = str_value(template.get("metadata", "name")) or ""
        found += _check_template_name(runtime, template, name, seen)
        seen.add(name)
        if name and name not in mounted:
            found.append(
                runtime.finding(
                    template.at("metadata", "name"),
                    XOBJ_VOLUME_CLAIM_NO_MOUNT.code,
                    "replicatedJob containers don't have a matching volumeMount: "
                    f"{name} from VolumeClaimPolicies",
                    hint=f"mount {name!r} in the containers that use the claim, or delete the "
                    "template",
                )
            )
    return found + _pod_volume_conflicts(runtime, rjobs, seen)


def _check_template_name(
    runtime: DefaultedObject, template: Node, name: str, seen: set[str]
) -> list[Diagnostic]:
    errors = dns1123_subdomain_errors(name)
    if name and name in seen:
        errors.append(f"template name {name!r} is used by an earlier volumeClaimPolicies template")
    return (
        [
            runtime.finding(
                template.at("metadata", "name"),
                XOBJ_VOLUME_CLAIM_NAME.code,
                f"{'; '.join(errors)} (volumeClaimPolicies template name {name!r})",
                hint="give every claim template a unique lower-case DNS name, e.g. 'shared-data'",
            )
        ]
        if errors
        else []
    )


def _pod_volume_conflicts(
    runtime: DefaultedObject, rjobs: list[Node], claims: set[str]
) -> list[Diagnostic]:
    return [
        _conflict(runtime, volume, volume.name or "")
        for rjob in rjobs
        for volume in volumes(rjob)
        if volume.name in claims
    ]


def _conflict(obj: DefaultedObject, volume: Node, name: str) -> Diagnostic:
    return obj.finding(
        volume.at("name"),
        XOBJ_VOLUME_CLAIM_VOLUME_CONFLICT.code,
        f"volume name conflicts with VolumeClaimPolicy template name: {name}",
        hint="drop this pod volume: the JobSet adds a volume for the claim template to every "
        "Job that mounts it",
    )


def check_volume_claim_names(
    trainjob: DefaultedObject, runtime: DefaultedObject
) -> list[Diagnostic]:
    """PVC names ``<template>-<trainjob>`` within 63 characters; no patch volume shadows a claim."""
    claims = claim_template_names(runtime.data)
    found = [
        trainjob.finding(
            ("metadata", "name"),
            XOBJ_VOLUME_CLAIM_NAME_TOO_LONG.code,
            f"VolumeClaimPolicies template name is too long: the PVC for template {claim!r} "
            f"would be {claim}-{trainjob.name} ({len(claim) + 1 + len(trainjob.name)} "
            f"characters, at most {LABEL_MAX})",
            hint="shorten metadata.name to at most "
            + counted(LABEL_MAX - len(claim) - 1, "character"),
        )
        for claim in sorted(claims)
        if len(claim) + 1 + len(trainjob.name) > LABEL_MAX
    ]
    for patch in runtime_patches(trainjob.data):
        found += [
            _conflict(trainjob, volume, volume.name or "")
            for rjob in patched_jobs(patch)
            for volume in volumes(rjob)
            if volume.name in claims
        ]
    return found


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
