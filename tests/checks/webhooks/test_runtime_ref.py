from tests.support.builders import cross_object, located, make_runtime, make_trainjob


def test_missing_runtime_is_reported_at_the_name():
    findings = cross_object([make_trainjob(runtime="torch-distribute"), make_runtime()])

    assert located(findings) == [("xobj.runtime-not-found", "spec.runtimeRef.name")]
    assert findings[0].message.startswith("not found ClusterTrainingRuntime specified in TrainJob")
    assert findings[0].hint == "did you mean 'torch-distributed'?"


def test_training_runtime_is_looked_up_in_the_trainjob_namespace():
    runtime = make_runtime("team-runtime", kind="TrainingRuntime", namespace="team-a")
    elsewhere = make_trainjob(runtime="team-runtime", runtime_kind="TrainingRuntime")
    at_home = make_trainjob(
        "home", namespace="team-a", runtime="team-runtime", runtime_kind="TrainingRuntime"
    )

    findings = cross_object([runtime, elsewhere, at_home])

    assert located(findings) == [("xobj.runtime-not-found", "spec.runtimeRef.name")]
    assert findings[0].message.startswith("TrainingRuntime specified in TrainJob is not found")
    assert "exists in namespace 'team-a'" in (findings[0].hint or "")
    assert "only TrainJobs in its own namespace" in (findings[0].hint or "")


def test_a_runtime_of_the_other_kind_is_suggested():
    runtime = make_runtime("team-runtime", kind="TrainingRuntime")
    findings = cross_object([runtime, make_trainjob(runtime="team-runtime")])

    assert located(findings) == [("xobj.runtime-not-found", "spec.runtimeRef.name")]
    assert findings[0].hint == (
        "a TrainingRuntime named 'team-runtime' exists in namespace 'default'; "
        "set runtimeRef.kind: TrainingRuntime"
    )


def test_unsupported_kind_is_reported_at_the_kind():
    findings = cross_object([make_trainjob(runtime_kind="JobSet"), make_runtime()])

    assert located(findings) == [("xobj.runtime-unsupported", "spec.runtimeRef.kind")]
    assert findings[0].message == "unsupported runtime: JobSet.trainer.kubeflow.org"


def test_unsupported_group_is_reported_at_the_api_group():
    trainjob = make_trainjob(runtime_group="kubeflow.org")

    findings = cross_object([trainjob, make_runtime()])

    assert located(findings) == [("xobj.runtime-unsupported", "spec.runtimeRef.apiGroup")]


def test_unresolved_runtime_hides_the_checks_that_need_it():
    trainjob = make_trainjob(
        runtime="absent", trainer={"env": [{"name": "PET_NNODES", "value": "2"}]}
    )

    findings = cross_object([trainjob, make_runtime()])

    assert located(findings) == [("xobj.runtime-not-found", "spec.runtimeRef.name")]


def test_resolved_runtime_gives_no_finding():
    assert cross_object([make_trainjob(), make_runtime()]) == []
