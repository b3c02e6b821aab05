"""LifecyclePlugin: trainc's labels on every object, the sweeper's annotations on the JobSet."""

from __future__ import annotations

import copy
import re

import pytest

from tests.build.support import TRAINER_PLUGINS, jobset_of
from tests.support.builders import defaulted, make_runtime, make_trainjob
from tests.support.documents import make_object
from trainc.build.context import BuildContext
from trainc.build.framework import build_job
from trainc.build.plugins.lifecycle import DEADLINE_RULE_NAME, LifecyclePlugin
from trainc.build.plugins.volumes import VolumesPlugin
from trainc.config import CompileSettings
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.resolve.job import resolve_job
from trainc.resolve.objects import DefaultedObject

_PROGRESS = "trainc.dev/progress-deadline-seconds"
_DEADLINE_RULE: JsonObject = {
    "name": "TraincDeadlineExceeded",
    "action": "FailJobSet",
    "onJobFailureReasons": ["DeadlineExceeded"],
}
_RESTART_RULE: JsonObject = {"name": "restart-on-preemption", "action": "RestartJobSet"}


def _annotated(obj: DefaultedObject, annotations: dict[str, JsonValue]) -> DefaultedObject:
    """``obj`` re-made with metadata annotations (the builders do not take any)."""
    data = copy.deepcopy(obj.loaded.data)
    as_object(data["metadata"])["annotations"] = annotations
    return defaulted(make_object(data, obj.loaded.path))


def _context(
    trainjob: DefaultedObject | None = None, runtime: DefaultedObject | None = None
) -> BuildContext:
    job = resolve_job(trainjob or make_trainjob("llm"), runtime or make_runtime())
    return BuildContext.start(job, CompileSettings())


def _jobset(spec: JsonObject | None = None) -> JsonObject:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "llm", "namespace": "default", "labels": {"team": "a"}},
        "spec": spec if spec is not None else {"replicatedJobs": []},
    }


def _pvc() -> JsonObject:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "cache-llm", "namespace": "default"},
        "spec": {},
    }


def _finalize(context: BuildContext, *objects: JsonObject) -> list[JsonObject]:
    built = list(objects)
    LifecyclePlugin().finalize(context, built)
    return built


def _annotations(obj: JsonObject) -> JsonObject:
    return as_object(as_object(obj["metadata"]).get("annotations"))


def _replicated(jobset: JsonObject) -> list[JsonValue]:
    return as_list(as_object(jobset["spec"]).get("replicatedJobs"))


def _rules(jobset: JsonObject) -> list[JsonValue]:
    return as_list(as_object(as_object(jobset["spec"])["failurePolicy"]).get("rules"))


# --------------------------------------------------------------------------- labels


def test_every_object_is_labelled_managed_by_trainc_and_with_its_trainjob() -> None:
    built = _finalize(_context(), _jobset(), _pvc())

    for obj in built:
        labels = as_object(as_object(obj["metadata"])["labels"])
        assert labels["app.kubernetes.io/managed-by"] == "trainc"
        assert labels["trainer.kubeflow.org/trainjob-name"] == "llm"
    assert as_object(as_object(built[0]["metadata"])["labels"])["team"] == "a"


def test_every_job_template_carries_the_labels_the_sweeper_finds_child_jobs_by() -> None:
    ancestor = {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
    spec: JsonObject = {
        "replicatedJobs": [
            {"name": "node", "template": {"metadata": {"labels": dict(ancestor)}, "spec": {}}},
            {"name": "launcher", "template": {"spec": {}}},
        ]
    }
    (jobset,) = _finalize(_context(), _jobset(spec))

    owned = {"app.kubernetes.io/managed-by": "trainc", "trainer.kubeflow.org/trainjob-name": "llm"}
    templates = [as_object(as_object(job)["template"]) for job in _replicated(jobset)]
    assert [as_object(t["metadata"])["labels"] for t in templates] == [{**ancestor, **owned}, owned]
    # The pod templates are left alone: the sweeper acts on Jobs, never on pods.
    assert [t["spec"] for t in templates] == [{}, {}]


def test_only_the_jobset_is_annotated() -> None:
    _, pvc = _finalize(_context(), _jobset(), _pvc())

    assert "annotations" not in as_object(pvc["metadata"])


# --------------------------------------------------------------------------- annotations


def test_jobset_source_annotation_is_the_trainjob_file() -> None:
    trainjob = make_trainjob("llm", path="jobs/team-a/llm.yaml")
    (jobset,) = _finalize(_context(trainjob), _jobset())

    assert _annotations(jobset) == {"trainc.dev/source": "jobs/team-a/llm.yaml"}


def test_jobset_lifecycle_annotations_when_set() -> None:
    trainjob = _annotated(make_trainjob("llm", activeDeadlineSeconds=28800), {_PROGRESS: "600"})
    runtime = make_runtime(ttlSecondsAfterFinished=86400)
    (jobset,) = _finalize(_context(trainjob, runtime), _jobset())

    assert _annotations(jobset) == {
        "trainc.dev/source": "trainjob.yaml",
        "trainc.dev/active-deadline-seconds": "28800",
        "trainc.dev/ttl-seconds-after-finished": "86400",
        "trainc.dev/progress-deadline-seconds": "600",
    }


def test_zero_ttl_is_kept() -> None:
    (jobset,) = _finalize(_context(runtime=make_runtime(ttlSecondsAfterFinished=0)), _jobset())

    assert _annotations(jobset)["trainc.dev/ttl-seconds-after-finished"] == "0"


def test_progress_deadline_falls_back_to_the_runtime_annotation() -> None:
    runtime = _annotated(make_runtime(), {_PROGRESS: "900"})
    (jobset,) = _finalize(_context(runtime=runtime), _jobset())

    assert _annotations(jobset)[_PROGRESS] == "900"


def test_trainjob_progress_deadline_wins_over_the_runtime() -> None:
    trainjob = _annotated(make_trainjob("llm"), {_PROGRESS: "300"})
    runtime = _annotated(make_runtime(), {_PROGRESS: "900"})
    (jobset,) = _finalize(_context(trainjob, runtime), _jobset())

    assert _annotations(jobset)[_PROGRESS] == "300"


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "10m", "", " 60", "0600", "9" * 20])
def test_invalid_progress_deadline_is_a_diagnostic_on_its_object(value: str) -> None:
    trainjob = _annotated(make_trainjob("llm", path="jobs/llm.yaml"), {_PROGRESS: value})
    context = _context(trainjob)
    (jobset,) = _finalize(context, _jobset())

    assert _PROGRESS not in _annotations(jobset)
    (diagnostic,) = context.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.field_path) == (
        "compile.progress-deadline",
        "jobs/llm.yaml",
        f"metadata.annotations[{_PROGRESS}]",
    )
    assert diagnostic.is_error


def test_invalid_runtime_progress_deadline_is_reported_on_the_runtime() -> None:
    runtime = _annotated(make_runtime(path="runtimes/torch.yaml"), {_PROGRESS: "soon"})
    context = _context(runtime=runtime)
    _finalize(context, _jobset())

    assert [(d.code, d.file) for d in context.diagnostics] == [
        ("compile.progress-deadline", "runtimes/torch.yaml")
    ]


# --------------------------------------------------------------------------- failure policy


def test_deadline_rule_goes_first_when_the_jobset_has_a_failure_policy() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    spec: JsonObject = {"failurePolicy": {"maxRestarts": 3, "rules": [_RESTART_RULE]}}
    (jobset,) = _finalize(_context(trainjob), _jobset(spec))

    assert _rules(jobset) == [_DEADLINE_RULE, _RESTART_RULE]
    assert as_object(as_object(jobset["spec"])["failurePolicy"])["maxRestarts"] == 3


def test_deadline_rule_in_a_failure_policy_without_rules() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    (jobset,) = _finalize(_context(trainjob), _jobset({"failurePolicy": {"maxRestarts": 1}}))

    assert _rules(jobset) == [_DEADLINE_RULE]


def test_progress_deadline_alone_also_needs_the_rule() -> None:
    trainjob = _annotated(make_trainjob("llm"), {_PROGRESS: "600"})
    (jobset,) = _finalize(_context(trainjob), _jobset({"failurePolicy": {"rules": []}}))

    assert _rules(jobset) == [_DEADLINE_RULE]


def test_no_rule_without_a_deadline() -> None:
    spec: JsonObject = {"failurePolicy": {"rules": [_RESTART_RULE]}}
    (jobset,) = _finalize(_context(), _jobset(copy.deepcopy(spec)))

    assert jobset["spec"] == spec


def test_no_failure_policy_is_added_a_failed_job_already_fails_the_jobset() -> None:
    trainjob = make_trainjob("llm", activeDeadlineSeconds=3600)
    (jobset,) = _finalize(_context(trainjob), _jobset({"replicatedJobs": []}))

    assert jobset["spec"] == {"replicatedJobs": []}


def test_deadline_rule_is_never_duplicated() -> None:
    context = _context(make_trainjob("llm", activeDeadlineSeconds=3600))
    spec: JsonObject = {"failurePolicy": {"rules": [_RESTART_RULE, copy.deepcopy(_DEADLINE_RULE)]}}
    built = _finalize(context, _jobset(spec))
    LifecyclePlugin().finalize(context, built)

    assert _rules(built[0]) == [_DEADLINE_RULE, _RESTART_RULE]


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
    result = build_job(resolve_job(trainjob, runtime), CompileSettings(), plugins)

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
