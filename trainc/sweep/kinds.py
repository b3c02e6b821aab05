"""The resources the sweeper reads and writes: API version, kind, plural, client method stem.

Every list is filtered by trainc's managed-by label: the sweeper touches only what trainc
compiled (and what the JobSet controller made from it), never what others own. The
PodGroups of both gang schedulers are companions (``docs/upstream.md``, "PodGroups"); a
PodGroup CRD that is not installed simply has no objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    POD_GROUP_KIND,
    VOLCANO_API_VERSION,
)

#: The one label selector of every list: nothing else is ever considered.
MANAGED_SELECTOR = f"{MANAGED_BY_LABEL}={MANAGED_BY_TRAINC}"


@dataclass(frozen=True, slots=True)
class Kind:
    """A resource the sweeper reads; ``core`` is the CoreV1Api method stem of core/v1 kinds."""

    api_version: str
    kind: str
    plural: str
    core: str | None = None


JOBSET = Kind(JOBSET_API_VERSION, JOBSET_KIND, "jobsets")
JOB = Kind("batch/v1", "Job", "jobs")
POD_GROUPS = (
    Kind(COSCHEDULING_API_VERSION, POD_GROUP_KIND, "podgroups"),
    Kind(VOLCANO_API_VERSION, POD_GROUP_KIND, "podgroups"),
)
CLAIM = Kind("v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistent_volume_claim")
CONFIG_MAP = Kind("v1", "ConfigMap", "configmaps", "config_map")
COMPANION_KINDS = (*POD_GROUPS, CLAIM, CONFIG_MAP)

#: Kind by (apiVersion, kind), to find the endpoint of an ObjectRef.
KINDS = {(k.api_version, k.kind): k for k in (JOBSET, JOB, *COMPANION_KINDS)}
