"""Tolerant accessors for the JobSet template a runtime embeds and a runtime patch mirrors.

Cross-object checks run on objects whose schema may be broken, so every accessor reads
raw data defensively: a missing or mistyped node yields None or an empty list instead of an
exception. Each node keeps its path in the object, so a finding points at the exact field.
Runtime templates and ``runtimePatches[].trainingRuntimeSpec`` share one shape
(https://github.com/kubeflow/trainer/blob/master/pkg/apis/trainer/v1alpha1/trainjob_types.go),
which is why one set of accessors serves both.
"""

from __future__ import annotations

from typing import Literal

from trainc.model.json import FieldPath, JsonObject, JsonValue, get_path
from trainc.model.labels import (
    ANCESTOR_DATASET_INITIALIZER,
    ANCESTOR_LABEL,
    ANCESTOR_MODEL_INITIALIZER,
    ANCESTOR_TRAINER,
)
from trainc.records import dataclass

#: Where a runtime keeps its JobSet spec.
JOBSET_SPEC: FieldPath = ("spec", "template", "spec")
#: The pod spec inside a replicatedJob.
POD_SPEC: FieldPath = ("template", "spec", "template", "spec")

#: Where a TrainJob's runtime patch keeps its JobSet spec fragment.
PATCH_SPEC: FieldPath = ("trainingRuntimeSpec", "template", "spec")

#: Ancestor label values Trainer understands.
ANCESTORS = frozenset({ANCESTOR_TRAINER, ANCESTOR_DATASET_INITIALIZER, ANCESTOR_MODEL_INITIALIZER})

ContainerList = Literal["containers", "initContainers"]


@dataclass(frozen=True, slots=True)
class Node:
    """A mapping found in an object, with its path from the object's root."""

    path: FieldPath
    data: JsonObject

    @property
    def name(self) -> str | None:
        """The ``name`` field, when it is a string."""
        value = self.data.get("name")
        return value if isinstance(value, str) else None

    def get(self, *relative: str | int) -> JsonValue:
        """The value at ``relative`` below this node, or None."""
        return get_path(self.data, relative)

    def at(self, *relative: str | int) -> FieldPath:
        """Absolute path of a field below this node."""
        return (*self.path, *relative)


def int_value(value: JsonValue) -> int | None:
    """``value`` if it is an integer (YAML booleans are not), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def str_value(value: JsonValue) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def child(parent: Node, *relative: str | int) -> Node:
    """The mapping at ``relative`` below ``parent`` (empty when absent or mistyped)."""
    value = parent.get(*relative)
    return Node(parent.at(*relative), value if isinstance(value, dict) else {})


def children(parent: Node, *relative: str | int) -> list[Node]:
    """The mappings in the list at ``relative`` below ``parent``, each with its path."""
    value = parent.get(*relative)
    if not isinstance(value, list):
        return []
    return [
        Node(parent.at(*relative, i), item)
        for i, item in enumerate(value)
        if isinstance(item, dict)
    ]


def named(candidates: list[Node], name: str) -> Node | None:
    """The first node called ``name``: list-map semantics, where the first entry wins."""
    return next((node for node in candidates if node.name == name), None)


def jobset_spec(data: JsonObject) -> Node:
    """A runtime's JobSet spec (empty when absent or mistyped)."""
    return child(Node((), data), *JOBSET_SPEC)


def replicated_jobs(runtime: JsonObject) -> list[Node]:
    """The replicatedJobs of a runtime's JobSet template."""
    return children(jobset_spec(runtime), "replicatedJobs")


def runtime_patches(trainjob: JsonObject) -> list[Node]:
    """The entries of a TrainJob's ``spec.runtimePatches``."""
    return children(Node((), trainjob), "spec", "runtimePatches")


def patched_jobs(patch: Node) -> list[Node]:
    """The replicatedJobs one runtime patch changes."""
    return children(patch, *PATCH_SPEC, "replicatedJobs")


def ancestor(rjob: Node) -> str | None:
    """The step a replicatedJob plays: its Job-template ancestor label, if Trainer knows it."""
    value = rjob.get("template", "metadata", "labels", ANCESTOR_LABEL)
    return value if isinstance(value, str) and value in ANCESTORS else None


def replicas(rjob: Node) -> int:
    """Jobs the replicatedJob asks for; the CRD default is 1."""
    value = int_value(rjob.get("replicas"))
    return 1 if value is None else value


def containers(rjob: Node, kind: ContainerList = "containers") -> list[Node]:
    """Containers (or init containers) of the replicatedJob's pod template."""
    return children(rjob, *POD_SPEC, kind)


def all_containers(rjob: Node) -> list[Node]:
    """Containers, then init containers, of the replicatedJob's pod template."""
    return containers(rjob) + containers(rjob, "initContainers")


def container_names(rjob: Node, kind: ContainerList = "containers") -> list[str]:
    """Names of the containers (or init containers) of a replicatedJob, in order."""
    return [name for node in containers(rjob, kind) if (name := node.name) is not None]


def volumes(rjob: Node) -> list[Node]:
    """Pod volumes of the replicatedJob."""
    return children(rjob, *POD_SPEC, "volumes")


def mount_names(container: Node) -> set[str]:
    """Names of the volumes a container mounts."""
    return {name for node in children(container, "volumeMounts") if (name := node.name)}
