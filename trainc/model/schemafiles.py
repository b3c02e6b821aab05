"""Names of the generated files under ``schemas/``: crdgen writes them, validate reads them.

The JSON Schema layout follows kubeconform's ``{group}/{kind}_{version}.json`` convention so
the same files serve kubeconform, yaml-language-server and trainc's own validator.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.kinds import INPUT_KINDS, KindInfo
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

#: Every JSON Schema trainc generates, API kinds first.
SCHEMA_TARGETS: tuple[SchemaTarget, ...] = (
    *(SchemaTarget(info.kind, info.model, jsonschema_path(info), info) for info in INPUT_KINDS),
    CONFIG_SCHEMA,
    POLICY_SCHEMA,
)
