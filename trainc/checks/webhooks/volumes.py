"""JobSet volumeClaimPolicies (KEP-572): claim templates that the JobSet webhook accepts.

For each template the JobSet controller creates a PVC ``<template name>-<jobset>`` and adds
it as a volume to every Job that mounts the template name (``docs/upstream.md``, "Volume
claims").
The webhook therefore wants template names that are unique DNS-1123 subdomains, mounted by
some container, not shadowed by a pod volume, and short enough for the PVC name; the last
depends on the TrainJob's name, as does a pod volume a runtime patch adds. The checks that
need the live cluster (an existing PVC's spec and retention) cannot run offline.
"""

from __future__ import annotations

from trainc.checks.webhooks.template import (
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
from trainc.model.json import JsonObject
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
