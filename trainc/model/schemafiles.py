"""Names of the generated files under ``schemas/``: crdgen writes them, validate reads them.

The JSON Schema layout follows kubeconform's ``{group}/{kind}_{version}.json`` convention so
the same files serve kubeconform, yaml-language-server and trainc's own validator. Besides
the kinds trainc reads, the kinds it emits (JobSet and the two PodGroups) have schemas too:
trainc validates its own output against them.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.jobset import JobSet
from trainc.model.kinds import INPUT_KINDS, KindInfo
from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    POD_GROUP_KIND,
    VOLCANO_API_VERSION,
)
from trainc.model.podgroup import CoschedulingPodGroup, VolcanoPodGroup
from trainc.model.policy import POLICY_KIND, ValidationPolicy
from trainc.model.repoconfig import RepoConfigFile

TRAINC_GROUP = "trainc.dev"
TRAINC_VERSION = "v1alpha1"


@dataclass(frozen=True, slots=True)
class SchemaTarget:
    """One JSON Schema trainc publishes: the model it comes from and where it goes."""

    name: str
    model: type
    path: str
    kind: KindInfo | None = None


def crd_path(info: KindInfo) -> str:
    """CRD manifest, named as controller-gen names it."""
    return f"crds/{info.group}_{info.plural}.yaml"


def jsonschema_path(info: KindInfo) -> str:
    """JSON Schema of one API kind (draft-04, with Kubernetes extensions kept)."""
    return f"jsonschema/{info.group}/{info.singular}_{info.version}.json"


CONFIG_SCHEMA = SchemaTarget(
    name="Config",
    model=RepoConfigFile,
    path=f"jsonschema/{TRAINC_GROUP}/config_{TRAINC_VERSION}.json",
)
POLICY_SCHEMA = SchemaTarget(
    name=POLICY_KIND,
    model=ValidationPolicy,
    path=f"jsonschema/{TRAINC_GROUP}/{POLICY_KIND.lower()}_{TRAINC_VERSION}.json",
)


def _output_target(api_version: str, kind: str, model: type) -> SchemaTarget:
    """An emitted kind, named and filed by group, kind and version like the input kinds."""
    group, version = api_version.split("/")
    return SchemaTarget(
        name=f"{kind}.{group}",
        model=model,
        path=f"jsonschema/{group}/{kind.lower()}_{version}.json",
    )


#: Schemas of the objects trainc emits, by (apiVersion, kind), for checking its own output.
OUTPUT_SCHEMAS: dict[tuple[str, str], SchemaTarget] = {
    (api_version, kind): _output_target(api_version, kind, model)
    for api_version, kind, model in (
        (JOBSET_API_VERSION, JOBSET_KIND, JobSet),
        (COSCHEDULING_API_VERSION, POD_GROUP_KIND, CoschedulingPodGroup),
        (VOLCANO_API_VERSION, POD_GROUP_KIND, VolcanoPodGroup),
    )
}

#: Every JSON Schema trainc generates: the kinds it reads, the kinds it emits, its own files.
SCHEMA_TARGETS: tuple[SchemaTarget, ...] = (
    *(SchemaTarget(info.kind, info.model, jsonschema_path(info), info) for info in INPUT_KINDS),
    *OUTPUT_SCHEMAS.values(),
    CONFIG_SCHEMA,
    POLICY_SCHEMA,
)
