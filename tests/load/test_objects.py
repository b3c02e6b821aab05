from __future__ import annotations

from trainc.config.limits import InputLimits
from trainc.diagnostics import Severity
from trainc.load.objects import Classified, classify_documents
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

from .files import TRAINJOB


def classify(text: str) -> Classified:
    parsed = parse_documents(SourceFile("f.yaml", text), InputLimits())
    assert parsed.diagnostics == ()
    return classify_documents(parsed.documents)


def found(classified: Classified) -> list[tuple[str, int | None, str | None]]:
    return [(d.code, d.line, d.field_path) for d in classified.diagnostics]


RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
"""


def test_trainer_objects_of_any_version() -> None:
    text = TRAINJOB.format(name="a") + "---\n" + RUNTIME.replace("v1alpha1", "v2")
    classified = classify(text)
    assert [(o.api_version, o.kind, o.name, o.namespace) for o in classified.objects] == [
        ("trainer.kubeflow.org/v1alpha1", "TrainJob", "a", "team"),
        ("trainer.kubeflow.org/v2", "ClusterTrainingRuntime", "torch", None),
    ]
    assert classified.diagnostics == ()
    assert classified.objects[1].document.index == 1


def test_other_documents_are_skipped_with_an_info() -> None:
    classified = classify(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: foo}\n---\n"
        "replicas: 3\n---\n- a\n---\napiVersion: apps/v1\nkind: Deployment\n"
    )
    assert classified.objects == ()
    assert [(d.code, d.severity, d.line, d.message) for d in classified.diagnostics] == [
        (
            "load.ignored-document",
            Severity.INFO,
            1,
            "not a trainer.kubeflow.org object, skipped: v1 ConfigMap/foo",
        ),
        ("load.ignored-document", Severity.INFO, 5, "the document has no apiVersion/kind; skipped"),
        (
            "load.ignored-document",
            Severity.INFO,
            7,
            "the document is a YAML list, not a Kubernetes object; skipped",
        ),
        (
            "load.ignored-document",
            Severity.INFO,
            9,
            "not a trainer.kubeflow.org object, skipped: apps/v1 Deployment",
        ),
    ]


def test_unknown_trainer_kind() -> None:
    classified = classify(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: OptimizationJob\nmetadata: {name: x}\n"
    )
    assert classified.objects == ()
    assert found(classified) == [("load.unknown-kind", 2, "kind")]
    hint = classified.diagnostics[0].hint
    assert hint == "supported kinds: TrainJob, TrainingRuntime, ClusterTrainingRuntime"


def test_trainer_document_without_kind() -> None:
    classified = classify("apiVersion: trainer.kubeflow.org/v1alpha1\nmetadata: {name: x}\n")
    assert found(classified) == [("load.unknown-kind", 1, "kind")]


def test_missing_or_empty_name() -> None:
    classified = classify(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  generateName: x-\n---\n" + TRAINJOB.format(name="''")
    )
    assert classified.objects == ()
    assert found(classified) == [
        ("load.missing-name", 3, "metadata.name"),
        ("load.missing-name", 9, "metadata.name"),
    ]


def test_a_list_of_trainer_objects_is_not_an_object() -> None:
    text = "- " + TRAINJOB.format(name="a").replace("\n", "\n  ")
    classified = classify(text)
    assert found(classified) == [("load.not-an-object", 1, None)]
    hint = classified.diagnostics[0].hint
    assert hint == "write each object as its own document, separated by ---"


def test_list_items_are_expanded_with_positions_inside_the_list() -> None:
    body = "".join(
        "- " + TRAINJOB.format(name=name).rstrip("\n").replace("\n", "\n  ") + "\n"
        for name in ("a", "b")
    )
    text = "apiVersion: v1\nkind: List\nitems:\n" + body + "- apiVersion: v1\n  kind: Secret\n"
    classified = classify(text)
    assert [o.name for o in classified.objects] == ["a", "b"]
    second = classified.objects[1]
    assert second.document.locate(()).line == 12
    assert second.document.locate(("spec", "runtimeRef", "name")).line == 19
    assert second.data["kind"] == "TrainJob"
    finding = second.finding(("spec", "runtimeRef"), "load.missing-name", "m")
    assert (finding.line, finding.field_path, finding.name) == (18, "spec.runtimeRef", "b")
    assert found(classified) == [("load.ignored-document", 20, None)]


def test_list_items_keep_their_refused_values_re_rooted() -> None:
    body = "".join(
        "- " + TRAINJOB.format(name=name).rstrip("\n").replace("\n", "\n  ") + "\n"
        for name in ("a", "b")
    )
    text = "apiVersion: v1\nkind: List\nitems:\n" + body.replace("name: b", "name: b\n    x: .inf")
    parsed = parse_documents(SourceFile("f.yaml", text), InputLimits())
    assert [d.code for d in parsed.diagnostics] == ["load.syntax"]
    classified = classify_documents(parsed.documents)
    assert [o.document.refused for o in classified.objects] == [
        frozenset(),
        {("metadata", "x")},
    ]


def test_typed_lists_are_expanded_too() -> None:
    body = "- " + RUNTIME.rstrip("\n").replace("\n", "\n  ") + "\n"
    classified = classify(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntimeList\nitems:\n" + body
    )
    assert [o.name for o in classified.objects] == ["torch"]
    assert classified.diagnostics == ()
