"""JobSet volumeClaimPolicies (KEP-572): the claim templates, and the pod volumes that reach them.

For each template the JobSet controller creates a PVC ``<template>-<jobset>``, and when it
constructs a Job it appends a ``persistentVolumeClaim`` volume named after the template to
the Job's pod spec if any container or init container mounts that name (``addVolumes`` and
``hasVolumeMount`` in
https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/volume_claim_policy.go,
called last in ``constructJob``,
https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go).
Both ways trainc builds for claims read these rules from here: emitted as manifests
(:mod:`trainc.plugins.volumes`) and left to the JobSet controller
(:mod:`trainc.resolve.childjobs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.resolve.resolved import Claim

POLICIES: Final = "volumeClaimPolicies"
_RETAIN: Final = "Retain"
_CONTAINER_KEYS: Final = ("containers", "initContainers")


def claim_templates(jobset_spec: JsonObject) -> Iterator[Claim]:
    """Claim templates of a JobSet spec, in policy and template order; retention defaults
    to Delete (the webhook's default).

    A template without a name is skipped: validation reports it
    (``xobj.volume-claim-name``), and neither the webhook nor trainc builds a Job from it.
    """
    for policy in as_list(jobset_spec.get(POLICIES)):
        retain = get_path(policy, ("retentionPolicy", "whenDeleted")) == _RETAIN
        for template in as_list(as_object(policy).get("templates")):
            name = get_path(template, ("metadata", "name"))
            if isinstance(name, str) and isinstance(template, dict):
                yield Claim(name, template, retain)


def mounted_claims(claims: list[Claim], pod: JsonObject) -> list[Claim]:
    """The claims whose template name a container or init container of ``pod`` mounts:
    the JobSet controller gives only those pods the claim's volume."""
    mounted = {
        name
        for key in _CONTAINER_KEYS
        for container in as_list(pod.get(key))
        for mount in as_list(as_object(container).get("volumeMounts"))
        if isinstance(name := get_path(mount, ("name",)), str)
    }
    return [claim for claim in claims if claim.name in mounted]


def claim_volume(claim: Claim, jobset: str) -> JsonObject:
    """The pod volume through which a Job reaches the claim: named after the template."""
    return {"name": claim.name, "persistentVolumeClaim": {"claimName": claim.claim_name(jobset)}}
