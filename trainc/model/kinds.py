"""The kinds trainc reads, with what a CRD needs to know about each."""

from __future__ import annotations

import importlib
from typing import Literal

from trainc.model.labels import GROUP, VERSION
from trainc.records import dataclass


def model_class(path: str) -> type:
    """The typed API class at ``path`` (``module:Class``), imported on first use.

    Kinds and schema targets name their dataclasses rather than import them: only
    schema generation and compile need the typed model, and importing it (hundreds of
    dataclasses) would double the start-up of ``trainc validate``, which checks documents
    against the generated JSON Schemas instead.
    """
    module, _, name = path.partition(":")
    found = getattr(importlib.import_module(module), name)
    if not isinstance(found, type):
        raise TypeError(f"{path} is not a class")
    return found


@dataclass(frozen=True, slots=True)
class PrinterColumn:
    """An ``additionalPrinterColumns`` entry of a CRD version."""

    name: str
    type: str
    json_path: str
    description: str


@dataclass(frozen=True, slots=True)
class KindInfo:
    """A kind of the trainer.kubeflow.org API and its CRD naming."""

    kind: str
    plural: str
    scope: Literal["Namespaced", "Cluster"]
    model_path: str
    status_subresource: bool = False
    printer_columns: tuple[PrinterColumn, ...] = ()

    @property
    def model(self) -> type:
        """The typed API class of the kind (see :func:`model_class`)."""
        return model_class(self.model_path)

    @property
    def singular(self) -> str:
        """Lower-case kind, as CRDs name it."""
        return self.kind.lower()

    @property
    def namespaced(self) -> bool:
        """True for kinds that live in a namespace."""
        return self.scope == "Namespaced"

    @property
    def group(self) -> str:
        """API group of every trainc input kind."""
        return GROUP

    @property
    def version(self) -> str:
        """The one served version."""
        return VERSION


TRAINJOB = KindInfo(
    kind="TrainJob",
    plural="trainjobs",
    scope="Namespaced",
    model_path="trainc.model.trainjob:TrainJob",
    status_subresource=True,
    printer_columns=(
        PrinterColumn(
            "State", "string", ".status.conditions[-1:].type", "Latest condition of the TrainJob"
        ),
        PrinterColumn("Age", "date", ".metadata.creationTimestamp", "Time since creation"),
    ),
)
TRAINING_RUNTIME = KindInfo(
    kind="TrainingRuntime",
    plural="trainingruntimes",
    scope="Namespaced",
    model_path="trainc.model.runtime:TrainingRuntime",
)
CLUSTER_TRAINING_RUNTIME = KindInfo(
    kind="ClusterTrainingRuntime",
    plural="clustertrainingruntimes",
    scope="Cluster",
    model_path="trainc.model.runtime:ClusterTrainingRuntime",
)

#: Input kinds, in the order reports and generated files list them.
INPUT_KINDS: tuple[KindInfo, ...] = (TRAINJOB, TRAINING_RUNTIME, CLUSTER_TRAINING_RUNTIME)

KINDS_BY_NAME: dict[str, KindInfo] = {info.kind: info for info in INPUT_KINDS}

RUNTIME_KINDS: frozenset[str] = frozenset({TRAINING_RUNTIME.kind, CLUSTER_TRAINING_RUNTIME.kind})

#: The cluster-scoped kinds trainc reads or emits (the sweeper's RBAC, and the Namespaces
#: jobs live in); every other kind it meets lives in a namespace.
CLUSTER_SCOPED_KINDS: frozenset[str] = frozenset(
    {
        *(info.kind for info in INPUT_KINDS if not info.namespaced),
        "ClusterRole",
        "ClusterRoleBinding",
        "Namespace",
    }
)
