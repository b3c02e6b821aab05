"""Picking the trainer.kubeflow.org objects out of parsed documents.

A repository holds more than trainc's kinds (ConfigMaps, kustomizations, Helm values),
so any other document is skipped with an INFO finding that ``-v`` can show. A document of
a Trainer kind is kept whatever its apiVersion says, for validation to name the one to
write. ``List`` documents are expanded the way kubectl expands them. Of the skipped
documents, only the names of ``v1`` Namespaces are kept: they tell which namespaces the
repository creates.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.load.documents import Document, LoadedObject
from trainc.model.json import FieldPath, JsonObject, JsonValue
from trainc.model.kinds import KINDS_BY_NAME
from trainc.model.labels import GROUP
from trainc.records import dataclass

LOAD_NOT_AN_OBJECT = Rule(
    "load.not-an-object",
    Severity.ERROR,
    "a trainer.kubeflow.org document is not a mapping",
)

LOAD_MISSING_NAME = Rule(
    "load.missing-name",
    Severity.ERROR,
    "the object has no metadata.name",
)

LOAD_UNKNOWN_KIND = Rule(
    "load.unknown-kind",
    Severity.ERROR,
    "the kind is not one trainc reads in the trainer.kubeflow.org group",
)

LOAD_IGNORED_DOCUMENT = Rule(
    "load.ignored-document",
    Severity.INFO,
    "the document is not a trainer.kubeflow.org object and is skipped",
)

LOAD_TRAINING_OPERATOR_V1 = Rule(
    "load.training-operator-v1",
    Severity.WARNING,
    "a Training Operator v1 job (PyTorchJob, MPIJob, ...) that trainc does not read",
    doc=RuleDoc(
        what=(
            "a `PyTorchJob`, `MPIJob`, `TFJob`, `XGBoostJob`, `PaddleJob` or `JAXJob` of "
            "`kubeflow.org/v1`, which Trainer replaces"
        ),
        fix=(
            "rewrite it as a TrainJob on a runtime: Kubeflow's [migration "
            "guide](https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/)"
        ),
    ),
)


_SUPPORTED = ", ".join(KINDS_BY_NAME)

#: The kinds of Kubeflow's Training Operator v1, which Trainer's TrainJob and runtimes
#: replace: a repository moving to trainc may still hold them.
TRAINING_OPERATOR_V1 = "kubeflow.org/v1"
TRAINING_OPERATOR_V1_KINDS = frozenset(
    {"PyTorchJob", "MPIJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob"}
)
MIGRATION_GUIDE = "https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/"


@dataclass(frozen=True, slots=True)
class Classified:
    """The trainer objects of some documents, in document order, the findings, and the
    names of the Namespace objects among the skipped documents."""

    objects: tuple[LoadedObject, ...]
    diagnostics: tuple[Diagnostic, ...]
    namespaces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Found:
    """What classifying collects, document by document."""

    objects: list[LoadedObject]
    diagnostics: list[Diagnostic]
    namespaces: list[str]


def classify_documents(documents: Iterable[Document]) -> Classified:
    """Trainer objects of ``documents``; other documents become ``load.ignored-document``."""
    found = _Found([], [], [])
    for document in documents:
        _classify(document, found)
    return Classified(tuple(found.objects), tuple(found.diagnostics), tuple(found.namespaces))


def _is_trainer(data: JsonObject) -> bool:
    """True for ``trainer.kubeflow.org/<any version>``, and for a Trainer kind under any
    apiVersion or none.

    A TrainJob written as ``kubeflow.org/v2alpha1`` (KEP-2170's spelling) or with a
    misspelt group was meant for Trainer: skipping it as another API's object would let
    the run pass having checked nothing, so the migrations layer judges its apiVersion.
    """
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if isinstance(api_version, str) and api_version.split("/", 1)[0] == GROUP:
        return True
    return isinstance(kind, str) and kind in KINDS_BY_NAME


def _classify(document: Document, found: _Found) -> None:
    """Add the object a document holds (or its List items' objects), or a finding."""
    data = document.data
    if not isinstance(data, dict):
        found.diagnostics.append(_not_a_mapping(document, data))
        return
    api_version, kind, items = data.get("apiVersion"), data.get("kind"), data.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for item in _list_items(document, items):  # v1 List, or <Kind>List of any group
            _classify(item, found)
        return
    if _is_trainer(data):
        made = _trainer_object(document, data)
        if isinstance(made, LoadedObject):
            found.objects.append(made)
        else:
            found.diagnostics.append(made)
        return
    name = _metadata(data).get("name")
    if api_version == "v1" and kind == "Namespace" and isinstance(name, str):
        found.namespaces.append(name)
    code = LOAD_IGNORED_DOCUMENT.code
    hint = None
    if isinstance(api_version, str) and isinstance(kind, str):
        name = _metadata(data).get("name")
        what = f"{api_version} {kind}" + (f"/{name}" if isinstance(name, str) else "")
        message = f"not a {GROUP} object, skipped: {what}"
        if api_version == TRAINING_OPERATOR_V1 and kind in TRAINING_OPERATOR_V1_KINDS:
            code = LOAD_TRAINING_OPERATOR_V1.code
            message = f"{what} is a Training Operator v1 job, which trainc does not read"
            hint = (
                f"write it as a TrainJob on a runtime: see the migration guide, {MIGRATION_GUIDE}"
            )
    else:
        message = "the document has no apiVersion/kind; skipped"
    found.diagnostics.append(document.finding((), code, message, hint=hint))


def _not_a_mapping(document: Document, data: JsonValue) -> Diagnostic:
    """A list of trainer objects is a mistake worth an error; any other value is skipped."""
    if isinstance(data, list) and any(
        isinstance(item, dict) and _is_trainer(item) for item in data
    ):
        return document.finding(
            (),
            LOAD_NOT_AN_OBJECT.code,
            f"the document is a YAML list, but a {GROUP} object must be a mapping",
            hint="write each object as its own document, separated by ---",
        )
    shape = "list" if isinstance(data, list) else type(data).__name__
    message = f"the document is a YAML {shape}, not a Kubernetes object; skipped"
    return document.finding((), LOAD_IGNORED_DOCUMENT.code, message)


def _metadata(data: JsonObject) -> JsonObject:
    metadata = data.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _trainer_object(document: Document, data: JsonObject) -> LoadedObject | Diagnostic:
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in KINDS_BY_NAME:
        what = f"kind {kind!r} is" if isinstance(kind, str) else "a document without a kind is"
        return document.finding(
            ("kind",),
            LOAD_UNKNOWN_KIND.code,
            f"{what} not a {GROUP} kind trainc reads",
            hint=f"supported kinds: {_SUPPORTED}",
        )
    metadata = _metadata(data)
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not name:
        return document.finding(
            ("metadata", "name"),
            LOAD_MISSING_NAME.code,
            f"the {kind} has no metadata.name",
            hint="GitOps tools apply objects by name; generateName cannot be used",
        )
    api_version = data.get("apiVersion")
    return LoadedObject(
        document=document,
        api_version=api_version if isinstance(api_version, str) else "",
        kind=kind,
        name=name,
        namespace=namespace if isinstance(namespace, str) and namespace else None,
    )


def _list_items(document: Document, items: list[JsonValue]) -> list[Document]:
    """One document per List item, with positions and refused paths re-rooted at the item.

    The positions are split in one pass, so a List of n items costs O(positions), not n
    times that. An item's root position is its place in the List, which keeps items in
    file order when objects are sorted.
    """
    buckets: dict[int, dict[FieldPath, tuple[int, int]]] = {}
    for path, position in document.positions.items():
        if (index := _item_index(path)) is not None:
            buckets.setdefault(index, {})[path[2:]] = position
    refused: dict[int, set[FieldPath]] = {}
    for path in document.refused:
        if (index := _item_index(path)) is not None:
            refused.setdefault(index, set()).add(path[2:])
    return [
        Document(
            document.source,
            document.index,
            item,
            buckets.get(index, {}),
            frozenset(refused.get(index, ())),
        )
        for index, item in enumerate(items)
    ]


def _item_index(path: FieldPath) -> int | None:
    """The List item ``path`` leads into (``items[i]...``), or None."""
    if len(path) >= 2 and path[0] == "items" and isinstance(path[1], int):  # noqa: PLR2004
        return path[1]
    return None
