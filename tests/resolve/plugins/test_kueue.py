from __future__ import annotations

import pytest

from tests.compiler.support import Obj, compile_job, jobset_of
from tests.support.builders import make_runtime, make_trainjob, with_jobset_metadata
from trainc.load.defaulted import DefaultedObject
from trainc.model.labels import (
    KUEUE_MAX_EXEC_TIME,
    KUEUE_PRIORITY_CLASS,
    KUEUE_QUEUE_NAME,
    MULTIKUEUE_MANAGED_BY,
)
from trainc.resolve.plugins.kueue import KueuePlugin
from trainc.resolve.provenance import Written

KUEUE_LABELS = {
    KUEUE_QUEUE_NAME: "team-a-gpu",
    KUEUE_PRIORITY_CLASS: "high",
    KUEUE_MAX_EXEC_TIME: "7200",
}


def _jobset(trainjob: DefaultedObject, runtime: DefaultedObject | None = None) -> Obj:
    return jobset_of(compile_job(trainjob, runtime or make_runtime()).objects)


def test_name() -> None:
    assert KueuePlugin().name == "kueue"


def test_kueues_labels_go_from_the_trainjob_to_the_jobset() -> None:
    trainjob = make_trainjob(labels={**KUEUE_LABELS, "team": "vision"})
    labels = _jobset(trainjob)["metadata"]["labels"]
    assert {key: labels[key] for key in KUEUE_LABELS} == KUEUE_LABELS


@pytest.mark.parametrize("key", sorted(KUEUE_LABELS))
def test_each_kueue_label_is_carried_alone(key: str) -> None:
    labels = _jobset(make_trainjob(labels={key: KUEUE_LABELS[key]}))["metadata"]["labels"]
    assert labels[key] == KUEUE_LABELS[key]
    assert not {*KUEUE_LABELS} - {key} & labels.keys()


def test_the_trainjobs_queue_wins_over_the_runtime_templates() -> None:
    runtime = with_jobset_metadata(make_runtime(), {"labels": {KUEUE_QUEUE_NAME: "default-queue"}})
    queued = make_trainjob(labels={KUEUE_QUEUE_NAME: "team-a-gpu"})
    assert _jobset(queued, runtime)["metadata"]["labels"][KUEUE_QUEUE_NAME] == "team-a-gpu"
    # A runtime may name a default queue for the jobs that name none.
    default = _jobset(make_trainjob(), runtime)["metadata"]["labels"]
    assert default[KUEUE_QUEUE_NAME] == "default-queue"


def test_the_queue_annotation_kueue_no_longer_reads_is_not_made_a_label() -> None:
    trainjob = make_trainjob(annotations={KUEUE_QUEUE_NAME: "team-a-gpu"})
    metadata = _jobset(trainjob)["metadata"]
    # Carried as it is, like every annotation of the TrainJob; Kueue ignores it.
    assert metadata["annotations"][KUEUE_QUEUE_NAME] == "team-a-gpu"
    assert KUEUE_QUEUE_NAME not in metadata["labels"]


def test_a_job_without_kueue_labels_gets_none() -> None:
    metadata = _jobset(make_trainjob(labels={"team": "vision"}))["metadata"]
    assert not {*KUEUE_LABELS} & metadata["labels"].keys()
    assert KUEUE_QUEUE_NAME not in metadata.get("annotations", {})


def test_a_carried_label_is_traced_to_the_trainjobs_line() -> None:
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "team-a-gpu"})
    resolved = compile_job(trainjob, make_runtime()).resolved
    origin = resolved.trace.origin(resolved.jobset_metadata, ("labels", KUEUE_QUEUE_NAME))
    assert origin == Written(trainjob, ("metadata", "labels", KUEUE_QUEUE_NAME))


# --------------------------------------------------------------------------- managedBy


def test_multikueue_on_the_trainjob_hands_the_jobset_to_multikueue() -> None:
    trainjob = make_trainjob(labels={KUEUE_QUEUE_NAME: "q"}, managedBy=MULTIKUEUE_MANAGED_BY)
    compiled = compile_job(trainjob, make_runtime())
    resolved, jobset = compiled.resolved, jobset_of(compiled.objects)
    assert jobset["spec"]["managedBy"] == MULTIKUEUE_MANAGED_BY
    assert jobset["metadata"]["labels"][KUEUE_QUEUE_NAME] == "q"
    assert resolved.origin(("managedBy",)) == Written(trainjob, ("spec", "managedBy"))


def test_multikueue_overrides_the_runtime_templates_manager() -> None:
    runtime = make_runtime(jobset={"managedBy": "example.com/other"})
    trainjob = make_trainjob(managedBy=MULTIKUEUE_MANAGED_BY)
    assert _jobset(trainjob, runtime)["spec"]["managedBy"] == MULTIKUEUE_MANAGED_BY


@pytest.mark.parametrize("spec", [{}, {"managedBy": "trainer.kubeflow.org/trainjob-controller"}])
def test_the_trainer_controllers_trainjob_leaves_managed_by_out(spec: Obj) -> None:
    assert "managedBy" not in _jobset(make_trainjob(**spec))["spec"]


def test_the_jobset_controllers_own_value_is_never_written() -> None:
    # It means the same as no value, and Kueue's webhook may rewrite it on create.
    runtime = make_runtime(jobset={"managedBy": "jobset.sigs.k8s.io/jobset-controller"})
    assert "managedBy" not in _jobset(make_trainjob(), runtime)["spec"]


def test_another_controller_named_by_the_runtime_is_kept() -> None:
    runtime = make_runtime(jobset={"managedBy": "example.com/other"})
    assert _jobset(make_trainjob(), runtime)["spec"]["managedBy"] == "example.com/other"
