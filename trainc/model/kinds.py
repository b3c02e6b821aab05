"""The kinds trainc reads, with what a CRD needs to know about each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trainc.model.labels import GROUP, VERSION
from trainc.model.runtime import ClusterTrainingRuntime, TrainingRuntime
from trainc.model.trainjob import TrainJob


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
    model: type
    status_subresource: bool = False
    printer_columns: tuple[PrinterColumn, ...] = ()

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
    model=TrainJob,
    status_subresource=True,
    printer_columns=(
        PrinterColumn(
            "State", "string", ".status.conditions[-1:].type", "Latest condition of the TrainJob"
        ),
        PrinterColumn("Age", "date", ".metadata.creationTimestamp", "Time since creation"),
    ),
)
TRAINING_RUNTIME = KindInfo(
    kind="TrainingRuntime", plural="trainingruntimes", scope="Namespaced", model=TrainingRuntime
)
CLUSTER_TRAINING_RUNTIME = KindInfo(
    kind="ClusterTrainingRuntime",
    plural="clustertrainingruntimes",
    scope="Cluster",
    model=ClusterTrainingRuntime,
)

#: Input kinds, in the order reports and generated files list them.
INPUT_KINDS: tuple[KindInfo, ...] = (TRAINJOB, TRAINING_RUNTIME, CLUSTER_TRAINING_RUNTIME)

KINDS_BY_NAME: dict[str, KindInfo] = {info.kind: info for info in INPUT_KINDS}

RUNTIME_KINDS: frozenset[str] = frozenset({TRAINING_RUNTIME.kind, CLUSTER_TRAINING_RUNTIME.kind})
