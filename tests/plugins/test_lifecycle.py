"""LifecyclePlugin: trainc's labels and the sweeper's annotations on the JobSet, as settled."""

from __future__ import annotations

import copy
import re

import pytest

from tests.build.support import TRAINER_PLUGINS, compile_job, frozen, jobset_of, start
from tests.support.builders import annotated, make_runtime, make_trainjob
from trainc.build.job import build_job
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.plugins.jobset import JobSetPlugin
from trainc.plugins.lifecycle import DEADLINE_RULE_NAME, LifecyclePlugin
from trainc.plugins.volumes import VolumesPlugin
from trainc.resolve.context import Resolution
from trainc.resolve.provenance import Derived, Written

_PROGRESS = "trainc.dev/progress-deadline-seconds"
_DEADLINE_RULE: JsonObject = {
    "name": "TraincDeadlineExceeded",
    "action": "FailJobSet",
    "onJobFailureReasons": ["DeadlineExceeded"],
}
_RESTART_RULE: JsonObject = {"name": "restart-on-preemption", "action": "RestartJobSet"}
_OWNED = {"app.kubernetes.io/managed-by": "trainc", "trainer.kubeflow.org/trainjob-name": "llm"}


def _context(
    trainjob: DefaultedObject | None = None, runtime: DefaultedObject | None = None
) -> Resolution:
    return start(trainjob or make_trainjob("llm"), runtime or make_runtime())


def _settle(context: Resolution, spec: JsonObject | None = None) -> JsonObject:
    """The JobSet after the plugin settled ``spec`` (labelled ``team: a``), as the compiler
    writes it; ``spec`` stands in for the working spec the earlier phases left."""
    context.jobset_spec = spec if spec is not None else {"replicatedJobs": []}
    context.jobset_metadata = {"labels": {"team": "a"}}
    LifecyclePlugin().settle(context)
    (jobset,) = JobSetPlugin().build(frozen(context))
    return jobset


def _labels(obj: JsonObject) -> JsonObject:
    return as_object(as_object(obj["metadata"]).get("labels"))


def _annotations(obj: JsonObject) -> JsonObject:
    return as_object(as_object(obj["metadata"]).get("annotations"))


def _replicated(jobset: JsonObject) -> list[JsonValue]:
    return as_list(as_object(jobset["spec"]).get("replicatedJobs"))


def _rules(jobset: JsonObject) -> list[JsonValue]:
    return as_list(as_object(as_object(jobset["spec"])["failurePolicy"]).get("rules"))


# --------------------------------------------------------------------------- labels


def test_the_jobset_is_labelled_managed_by_trainc_and_with_its_trainjob() -> None:
    jobset = _settle(_context())

    assert _labels(jobset) == {"team": "a", **_OWNED}


def test_every_job_template_carries_the_labels_the_sweeper_finds_child_jobs_by() -> None:
    ancestor = {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
    spec: JsonObject = {
        "replicatedJobs": [
            {"name": "node", "template": {"metadata": {"labels": dict(ancestor)}, "spec": {}}},
            {"name": "launcher", "template": {"spec": {}}},
        ]
    }
    jobset = _settle(_context(), spec)

    templates = [as_object(as_object(job)["template"]) for job in _replicated(jobset)]
    assert [as_object(t["metadata"])["labels"] for t in templates] == [
        {**ancestor, **_OWNED},
        _OWNED,
    ]
    # The pod templates are left alone: the sweeper acts on Jobs, never on pods.
    assert [t["spec"] for t in templates] == [{}, {}]


def test_the_labels_are_traced_to_the_trainjob_name() -> None:
    context = _context()
    _settle(context, {"replicatedJobs": [{"name": "node", "template": {"spec": {}}}]})

    metadata_origin = context.trace.origin(
        context.jobset_metadata, ("labels", "trainer.kubeflow.org/trainjob-name")
    )
    template_origin = frozen(context).origin(
        ("replicatedJobs", 0, "template", "metadata", "labels", "app.kubernetes.io/managed-by")
    )
    name = Written(context.job.trainjob, ("metadata", "name"))
    assert metadata_origin == template_origin == name


def test_only_the_jobset_isannotated() -> None:
    runtime = make_runtime(
        jobset={"volumeClaimPolicies": [{"templates": [{"metadata": {"name": "c"}, "spec": {}}]}]}
    )
    result = compile_job(make_trainjob("llm"), runtime)
    (pvc,) = [obj for obj in result.objects if obj["kind"] == "PersistentVolumeClaim"]

    assert "annotations" not in as_object(pvc["metadata"])
    assert "trainc.dev/source" in _annotations(jobset_of(result.objects))


# --------------------------------------------------------------------------- annotations


def test_jobset_source_annotation_is_the_trainjob_file() -> None:
    trainjob = make_trainjob("llm", path="jobs/team-a/llm.yaml")
    jobset = _settle(_context(trainjob))

    assert _annotations(jobset) == {"trainc.dev/source": "jobs/team-a/llm.yaml"}


def test_jobset_lifecycle_annotations_when_set() -> None:
    trainjob = annotated(make_trainjob("llm", activeDeadlineSeconds=28800), {_PROGRESS: "600"})
    runtime = make_runtime(ttlSecondsAfterFinished=86400)
    jobset = _settle(_context(trainjob, runtime))

    assert _annotations(jobset) == {
        "trainc.dev/source": "trainjob.yaml",
        "trainc.dev/active-deadline-seconds": "28800",
        "trainc.dev/ttl-seconds-after-finished": "86400",
        "trainc.dev/progress-deadline-seconds": "600",
    }


def test_zero_ttl_is_kept() -> None:
    jobset = _settle(_context(runtime=make_runtime(ttlSecondsAfterFinished=0)))

    assert _annotations(jobset)["trainc.dev/ttl-seconds-after-finished"] == "0"


def test_progress_deadline_falls_back_to_the_runtime_annotation() -> None:
    runtime = annotated(make_runtime(), {_PROGRESS: "900"})
    jobset = _settle(_context(runtime=runtime))

    assert _annotations(jobset)[_PROGRESS] == "900"


def test_trainjob_progress_deadline_wins_over_the_runtime() -> None:
    trainjob = annotated(make_trainjob("llm"), {_PROGRESS: "300"})
    runtime = annotated(make_runtime(), {_PROGRESS: "900"})
    jobset = _settle(_context(trainjob, runtime))

    assert _annotations(jobset)[_PROGRESS] == "300"


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "10m", "", " 60", "0600", "9" * 20])
def test_invalid_progress_deadline_is_a_diagnostic_on_its_object(value: str) -> None:
    trainjob = annotated(make_trainjob("llm", path="jobs/llm.yaml"), {_PROGRESS: value})
    context = _context(trainjob)
    jobset = _settle(context)

    assert _PROGRESS not in _annotations(jobset)
    (diagnostic,) = context.findings
    assert (diagnostic.code, diagnostic.file, diagnostic.field_path) == (
        "compile.progress-deadline",
        "jobs/llm.yaml",
        f"metadata.annotations[{_PROGRESS}]",
    )
    assert diagnostic.is_error
    assert diagnostic.message == (
        f"{_PROGRESS} is {value!r}: it must be a whole number of seconds "
        "from 1 to 9223372036854775807"
    )


def test_invalid_runtime_progress_deadline_is_reported_on_the_runtime() -> None:
    runtime = annotated(make_runtime(path="runtimes/torch.yaml"), {_PROGRESS: "soon"})
    context = _context(runtime=runtime)
    _settle(context)

    assert [(d.code, d.file) for d in context.findings] == [
        ("compile.progress-deadline", "runtimes/torch.yaml")
    ]


# --------------------------------------------------------------------------- failure policy


def test_deadline_rule_goes_first_when_the_jobset_has_a_failure_policy() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    spec: JsonObject = {"failurePolicy": {"maxRestarts": 3, "rules": [_RESTART_RULE]}}
    jobset = _settle(_context(trainjob), spec)

    assert _rules(jobset) == [_DEADLINE_RULE, _RESTART_RULE]
    assert as_object(as_object(jobset["spec"])["failurePolicy"])["maxRestarts"] == 3


def test_deadline_rule_in_a_failure_policy_without_rules() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    jobset = _settle(_context(trainjob), {"failurePolicy": {"maxRestarts": 1}})

    assert _rules(jobset) == [_DEADLINE_RULE]


def test_progress_deadline_alone_also_needs_the_rule() -> None:
    trainjob = annotated(make_trainjob("llm"), {_PROGRESS: "600"})
    jobset = _settle(_context(trainjob), {"failurePolicy": {"rules": []}})

    assert _rules(jobset) == [_DEADLINE_RULE]


def test_the_rule_is_there_without_a_deadline_too() -> None:
    """failurePolicy is immutable on a live JobSet: the rule must not wait for a deadline."""
    spec: JsonObject = {"failurePolicy": {"rules": [_RESTART_RULE]}}
    jobset = _settle(_context(), copy.deepcopy(spec))

    assert _rules(jobset) == [_DEADLINE_RULE, _RESTART_RULE]


@pytest.mark.parametrize(
    ("trainjob", "runtime"),
    [
        pytest.param(make_trainjob("llm", activeDeadlineSeconds=3600), None, id="deadline"),
        pytest.param(annotated(make_trainjob("llm"), {_PROGRESS: "600"}), None, id="progress"),
        pytest.param(None, annotated(make_runtime(), {_PROGRESS: "900"}), id="runtime-progress"),
    ],
)
def test_the_failure_policy_is_the_same_whatever_the_lifecycle_settings(
    trainjob: DefaultedObject | None, runtime: DefaultedObject | None
) -> None:
    spec: JsonObject = {"failurePolicy": {"maxRestarts": 2, "rules": [_RESTART_RULE]}}
    plain = _settle(_context(), copy.deepcopy(spec))
    with_deadline = _settle(_context(trainjob, runtime), copy.deepcopy(spec))

    assert (
        as_object(with_deadline["spec"])["failurePolicy"]
        == as_object(plain["spec"])["failurePolicy"]
    )


def test_no_failure_policy_is_added_a_failed_job_already_fails_the_jobset() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    jobset = _settle(_context(trainjob), {"replicatedJobs": []})

    assert jobset["spec"] == {"replicatedJobs": []}


def test_deadline_rule_is_never_duplicated() -> None:
    context = _context(make_trainjob("llm", activeDeadlineSeconds=3600))
    spec: JsonObject = {"failurePolicy": {"rules": [_RESTART_RULE, copy.deepcopy(_DEADLINE_RULE)]}}
    _settle(context, spec)
    LifecyclePlugin().settle(context)
    (jobset,) = JobSetPlugin().build(frozen(context))

    assert _rules(jobset) == [_DEADLINE_RULE, _RESTART_RULE]


def test_deadline_rule_name_is_a_valid_jobset_rule_name() -> None:
    assert re.fullmatch(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?", DEADLINE_RULE_NAME)


# --------------------------------------------------------------------------- end to end


def test_compiled_objects_carry_labels_and_jobset_annotations() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=7200)
    runtime = make_runtime(
        ttlSecondsAfterFinished=3600,
        jobset={
            "failurePolicy": {"maxRestarts": 2},
            "volumeClaimPolicies": [
                {
                    "templates": [
                        {"metadata": {"name": "cache"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
                    ]
                }
            ],
        },
    )
    plugins = (*TRAINER_PLUGINS, VolumesPlugin(), LifecyclePlugin())
    result = compile_job(trainjob, runtime, plugins=plugins)

    assert len(result.objects) == 2
    for obj in result.objects:
        assert as_object(as_object(obj["metadata"])["labels"])["app.kubernetes.io/managed-by"] == (
            "trainc"
        )
    jobset = jobset_of(result.objects)
    for job in _replicated(jobset):
        labels = as_object(get_path(job, ("template", "metadata", "labels")))
        assert labels["trainer.kubeflow.org/trainjob-name"] == "llm"
        assert labels["app.kubernetes.io/managed-by"] == "trainc"
    assert _annotations(jobset)["trainc.dev/active-deadline-seconds"] == "7200"
    assert _annotations(jobset)["trainc.dev/ttl-seconds-after-finished"] == "3600"
    assert _rules(jobset) == [_DEADLINE_RULE]


def test_the_deadline_rule_is_traced_to_the_runtime_failure_policy() -> None:
    """The rule is there because the runtime has a failurePolicy, not because of a deadline."""
    context = _context(make_trainjob("llm", activeDeadlineSeconds=3600))
    _settle(context, {"failurePolicy": {"rules": [_RESTART_RULE]}})

    origin = frozen(context).origin(("failurePolicy", "rules", 0, "action"))
    assert isinstance(origin, Derived)
    assert origin.actor == "trainc's lifecycle plugin"
    assert origin.cause == Written(
        context.job.runtime, ("spec", "template", "spec", "failurePolicy")
    )


def test_build_job_labels_every_object_it_builds() -> None:
    """The lifecycle plugin labels the JobSet; the compiler labels everything else alike."""
    trainjob = make_trainjob("llm", namespace="team-a")
    runtime = make_runtime(
        ml_policy={"numNodes": 2, "mpi": {}},
        podGroupPolicy={"coscheduling": {}},
        replicated_jobs=[
            {
                "name": "launcher",
                "template": {"spec": {"template": {"spec": {"containers": [{"name": "node"}]}}}},
            },
            {
                "name": "node",
                "template": {
                    "metadata": {
                        "labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
                    },
                    "spec": {
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "node",
                                        "volumeMounts": [{"name": "c", "mountPath": "/c"}],
                                    }
                                ]
                            }
                        }
                    },
                },
            },
        ],
        jobset={"volumeClaimPolicies": [{"templates": [{"metadata": {"name": "c"}, "spec": {}}]}]},
    )
    resolved = compile_job(trainjob, runtime).resolved
    built = build_job(resolved)

    assert (built.namespace, built.name, built.source) == ("team-a", "llm", "trainjob.yaml")
    assert sorted(str(obj["kind"]) for obj in built.objects) == [
        "ConfigMap",
        "JobSet",
        "PersistentVolumeClaim",
        "PodGroup",
    ]
    for obj in built.objects:
        labels = _labels(obj)
        assert {key: labels[key] for key in _OWNED} == _OWNED, obj["kind"]
    # The claim keeps the JobSet controller's own label beside trainc's.
    (pvc,) = [obj for obj in built.objects if obj["kind"] == "PersistentVolumeClaim"]
    assert _labels(pvc)["jobset.sigs.k8s.io/jobset-name"] == "llm"


def test_build_job_leaves_the_resolved_job_unlabelled() -> None:
    resolved = compile_job(make_trainjob("llm"), make_runtime()).resolved
    before = copy.deepcopy(resolved.jobset_metadata)
    spec = copy.deepcopy(resolved.jobset_spec)
    build_job(resolved)

    assert resolved.jobset_metadata == before
    assert resolved.jobset_spec == spec


def test_build_job_runs_only_the_builders_given() -> None:
    resolved = compile_job(make_trainjob("llm"), make_runtime()).resolved
    built = build_job(resolved, plugins=())

    assert built.objects == ()
    assert get_path(resolved.jobset_metadata, ("labels", "app.kubernetes.io/managed-by")) == (
        "trainc"
    )
