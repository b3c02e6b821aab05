"""Names of the generated files under ``schemas/``: crdgen writes them, validate reads them.

The JSON Schema layout follows kubeconform's ``{group}/{kind}_{version}.json`` convention so
the same files serve kubeconform, yaml-language-server and trainc's own validator. Besides
the kinds trainc reads, the kinds it emits (JobSet and the two PodGroups) have schemas too:
trainc validates its own output against them.
"""

from __future__ import annotations

from trainc.model.kinds import INPUT_KINDS, KindInfo, model_class
from trainc.model.labels import (
    COSCHEDULING_API_VERSION,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    POD_GROUP_KIND,
    POLICY_KIND,
    VOLCANO_API_VERSION,
)
from trainc.records import dataclass

TRAINC_GROUP = "trainc.dev"
TRAINC_VERSION = "v1alpha1"


@dataclass(frozen=True, slots=True)
class SchemaTarget:
    """One JSON Schema trainc publishes: the model it comes from and where it goes."""

    name: str
    model_path: str
    path: str
    kind: KindInfo | None = None

    @property
    def model(self) -> type:
        """The typed class the schema is generated from (imported on first use)."""
        return model_class(self.model_path)


def crd_path(info: KindInfo) -> str:
    """CRD manifest, named as controller-gen names it."""
    return f"crds/{info.group}_{info.plural}.yaml"


def jsonschema_path(info: KindInfo) -> str:
    """JSON Schema of one API kind (draft-04, with Kubernetes extensions kept)."""
    return f"jsonschema/{info.group}/{info.singular}_{info.version}.json"


CONFIG_SCHEMA = SchemaTarget(
    name="Config",
    model_path="trainc.config.file:RepoConfigFile",
    path=f"jsonschema/{TRAINC_GROUP}/config_{TRAINC_VERSION}.json",
)
POLICY_SCHEMA = SchemaTarget(
    name=POLICY_KIND,
    model_path="trainc.model.policy:ValidationPolicy",
    path=f"jsonschema/{TRAINC_GROUP}/{POLICY_KIND.lower()}_{TRAINC_VERSION}.json",
)


def _output_target(api_version: str, kind: str, model_path: str) -> SchemaTarget:
    """An emitted kind, named and filed by group, kind and version like the input kinds."""
    group, version = api_version.split("/")
    return SchemaTarget(
        name=f"{kind}.{group}",
        model_path=model_path,
        path=f"jsonschema/{group}/{kind.lower()}_{version}.json",
    )


#: Schemas of the objects trainc emits, by (apiVersion, kind), for checking its own output.
OUTPUT_SCHEMAS: dict[tuple[str, str], SchemaTarget] = {
    (api_version, kind): _output_target(api_version, kind, model_path)
    for api_version, kind, model_path in (
        (JOBSET_API_VERSION, JOBSET_KIND, "trainc.model.jobset:JobSet"),
        (COSCHEDULING_API_VERSION, POD_GROUP_KIND, "trainc.model.podgroup:CoschedulingPodGroup"),
        (VOLCANO_API_VERSION, POD_GROUP_KIND, "trainc.model.podgroup:VolcanoPodGroup"),
    )
}

#: Every JSON Schema trainc generates: the kinds it reads, the kinds it emits, its own files.
SCHEMA_TARGETS: tuple[SchemaTarget, ...] = (
    *(
        SchemaTarget(info.kind, info.model_path, jsonschema_path(info), info)
        for info in INPUT_KINDS
    ),
    *OUTPUT_SCHEMAS.values(),
    CONFIG_SCHEMA,
    POLICY_SCHEMA,
)
