"""TrainJobMetadataPlugin: the TrainJob's labels and annotations on the JobSet standing for it."""

from __future__ import annotations

import pytest

from tests.build.support import Obj, compile_job, jobset_of
from tests.support.builders import make_runtime, make_trainjob, with_jobset_metadata
from trainc.diagnostics import Severity
from trainc.model.json import JsonObject, as_object, get_path
from trainc.model.labels import KUEUE_QUEUE_NAME, MANAGED_BY_LABEL, TRAINJOB_NAME_LABEL
from trainc.plugins.metadata import TrainJobMetadataPlugin, carried_to_jobset
from trainc.resolve.childjobs import child_jobs
from trainc.resolve.provenance import Written


def _metadata(objects: tuple[JsonObject, ...]) -> Obj:
    metadata: Obj = jobset_of(objects)["metadata"]
    return metadata


def test_name() -> None:
    assert TrainJobMetadataPlugin().name == "trainjob-metadata"


def test_a_team_label_and_an_annotation_reach_the_jobset() -> None:
    trainjob = make_trainjob(
        "resnet", labels={"team": "vision"}, annotations={"example.com/ticket": "ML-42"}
    )
    compiled = compile_job(trainjob, make_runtime())
    metadata = _metadata(compiled.objects)
    assert metadata["labels"]["team"] == "vision"
    assert metadata["annotations"]["example.com/ticket"] == "ML-42"
    # trainc's own keys are still there, beside them.
    assert metadata["labels"][TRAINJOB_NAME_LABEL] == "resnet"
    assert metadata["labels"][MANAGED_BY_LABEL] == "trainc"
    assert compiled.diagnostics == ()


def test_a_carried_value_is_traced_to_the_trainjobs_line() -> None:
    trainjob = make_trainjob(labels={"team": "vision"})
    resolved = compile_job(trainjob, make_runtime()).resolved
    origin = resolved.trace.origin(resolved.jobset_metadata, ("labels", "team"))
    assert origin == Written(trainjob, ("metadata", "labels", "team"))


@pytest.mark.parametrize(
    "key",
    [
        "team",
        "example.com/cost-center",
        "app.kubernetes.io/part-of",
        KUEUE_QUEUE_NAME,
        "provreq.kueue.x-k8s.io/maxRunDurationSeconds",
        "argocd.argoproj.io/sync-wave",
        "kustomize.toolkit.fluxcd.io/prune",
        "notk8s.io/x",
    ],
)
def test_keys_of_the_user_and_of_other_tools_are_carried(key: str) -> None:
    assert carried_to_jobset(key)


@pytest.mark.parametrize(
    "key",
    [
        "trainc.dev/source",
        "trainer.kubeflow.org/trainjob-name",
        "kubernetes.io/description",
        "kubectl.kubernetes.io/last-applied-configuration",
        "k8s.io/x",
        "jobset.sigs.k8s.io/jobset-name",
        "alpha.jobset.sigs.k8s.io/exclusive-topology",
    ],
)
def test_keys_of_reserved_prefixes_stay_on_the_trainjob(key: str) -> None:
    assert not carried_to_jobset(key)
    trainjob = make_trainjob(labels={key: "x"}, annotations={key: "y"})
    compiled = compile_job(trainjob, make_runtime())
    metadata = _metadata(compiled.objects)
    assert metadata["labels"].get(key) != "x"
    assert metadata["annotations"].get(key) != "y"
    assert compiled.diagnostics == ()


def test_a_key_the_runtime_template_sets_otherwise_is_kept_and_the_clash_reported() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"labels": {"team": "platform"}})
    trainjob = make_trainjob("resnet", labels={"team": "vision"}, path="jobs/resnet.yaml")
    compiled = compile_job(trainjob, runtime)
    assert _metadata(compiled.objects)["labels"]["team"] == "platform"
    (clash,) = compiled.diagnostics
    assert (clash.code, clash.severity) == ("compile.metadata-clash", Severity.WARNING)
    assert clash.file == "jobs/resnet.yaml"
    assert clash.field_path == "metadata.labels.team"
    assert "team: 'vision' does not reach the JobSet, which keeps 'platform'" in clash.message
    assert "written in ClusterTrainingRuntime torch-distributed" in clash.message


def test_trainc_keeps_its_managed_by_label_and_says_so() -> None:
    trainjob = make_trainjob(labels={MANAGED_BY_LABEL: "Helm"})
    compiled = compile_job(trainjob, make_runtime())
    assert _metadata(compiled.objects)["labels"][MANAGED_BY_LABEL] == "trainc"
    (clash,) = compiled.diagnostics
    assert clash.code == "compile.metadata-clash"
    assert clash.message == (
        "the label app.kubernetes.io/managed-by: 'Helm' does not reach the JobSet, which "
        "keeps 'trainc' (trainc's own, on everything it builds, for the sweeper)"
    )


def test_the_same_value_on_both_is_no_clash() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"annotations": {"example.com/owner": "ml"}})
    trainjob = make_trainjob(annotations={"example.com/owner": "ml"})
    compiled = compile_job(trainjob, runtime)
    assert _metadata(compiled.objects)["annotations"]["example.com/owner"] == "ml"
    assert compiled.diagnostics == ()


def test_kueues_queue_over_the_runtimes_default_is_no_clash() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"labels": {KUEUE_QUEUE_NAME: "default-queue"}})
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "team-a-gpu"})
    compiled = compile_job(trainjob, runtime)
    assert _metadata(compiled.objects)["labels"][KUEUE_QUEUE_NAME] == "team-a-gpu"
    assert compiled.diagnostics == ()


def test_the_child_jobs_take_their_templates_labels_not_the_jobsets() -> None:
    """As the JobSet controller's constructJob: the carried label is on the JobSet only."""
    resolved = compile_job(make_trainjob(labels={"team": "vision"}), make_runtime()).resolved
    jobs = child_jobs(
        resolved.name, resolved.namespace, resolved.jobset_metadata, resolved.jobset_spec
    )
    assert jobs
    for child in jobs:
        labels = as_object(get_path(child.job, ("metadata", "labels")))
        assert "team" not in labels
        assert labels[TRAINJOB_NAME_LABEL] == resolved.name
