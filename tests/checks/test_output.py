"""Output validation: objects trainc emits, judged by their schemas, CEL rules and name budgets."""

from __future__ import annotations

import copy

import pytest

from tests.build.support import TRAINER_PLUGINS, compile_job
from tests.support.builders import container, make_runtime, make_trainjob, rjob
from trainc.checks.output.objects import OutputCheck
from trainc.errors import UsageError
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.plugins.lifecycle import LifecyclePlugin
from trainc.plugins.volumes import VolumesPlugin

_VERSION = "1.33"


def _check(*objects: JsonObject, version: str = _VERSION) -> list[str]:
    return OutputCheck(version).problems(list(objects))


def _rjob(name: str, *, completions: int = 1, **fields: JsonValue) -> JsonObject:
    return {
        "name": name,
        "replicas": 1,
        "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {
                "parallelism": completions,
                "completions": completions,
                "template": {"spec": {"containers": [{"name": "node", "image": "pytorch:2"}]}},
            },
        },
        **fields,
    }


def _jobset(name: str = "llm", **spec: JsonValue) -> JsonObject:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {
            "name": name,
            "namespace": "team-a",
            "labels": {"app.kubernetes.io/managed-by": "trainc"},
            "annotations": {"trainc.dev/source": "jobs/llm.yaml"},
        },
        "spec": {
            "replicatedJobs": [
                _rjob("dataset-initializer"),
                _rjob(
                    "node",
                    completions=4,
                    dependsOn=[{"name": "dataset-initializer", "status": "Complete"}],
                ),
            ],
            "suspend": False,
            **spec,
        },
    }


def _coscheduling_pod_group() -> JsonObject:
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "llm", "namespace": "team-a"},
        "spec": {"minMember": 5, "minResources": {"cpu": "5"}, "scheduleTimeoutSeconds": 60},
    }


def _volcano_pod_group() -> JsonObject:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "llm", "namespace": "team-a"},
        "spec": {"minMember": 5, "minResources": {"cpu": "5"}, "queue": "q1"},
    }


def _pvc(**spec: JsonValue) -> JsonObject:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "cache-llm",
            "namespace": "team-a",
            "labels": {"jobset.sigs.k8s.io/jobset-name": "llm"},
            "annotations": {"argocd.argoproj.io/sync-options": "Prune=false"},
        },
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "resources": {"requests": {"storage": "50Gi"}},
            **spec,
        },
    }


def _config_map() -> JsonObject:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "llm-mpi-hostfile", "namespace": "team-a"},
        "data": {"hostfile": "llm-node-0-0.llm slots=8\n"},
    }


def _one(problems: list[str], *fragments: str) -> str:
    """The single problem, after checking that it mentions every fragment."""
    (problem,) = problems
    for fragment in fragments:
        assert fragment in problem, problem
    return problem


# --------------------------------------------------------------------------- valid output


def test_valid_objects_pass() -> None:
    objects = (
        _jobset(),
        _coscheduling_pod_group(),
        _volcano_pod_group(),
        _pvc(),
        _config_map(),
    )
    assert _check(*objects) == []


def test_a_compiled_job_with_claims_and_a_deadline_passes() -> None:
    runtime = make_runtime(
        replicated_jobs=[
            rjob(
                "node",
                ancestor="trainer",
                containers=[container("node", volumeMounts=[{"name": "ckpt", "mountPath": "/c"}])],
            )
        ],
        jobset={
            "failurePolicy": {"maxRestarts": 3},
            "volumeClaimPolicies": [
                {
                    "templates": [{"metadata": {"name": "ckpt"}, "spec": _pvc()["spec"]}],
                    "retentionPolicy": {"whenDeleted": "Retain"},
                }
            ],
        },
    )
    trainjob = make_trainjob("llm", namespace="team-a", activeDeadlineSeconds=3600)
    plugins = (*TRAINER_PLUGINS, VolumesPlugin(), LifecyclePlugin())
    built = compile_job(trainjob, runtime, plugins=plugins)

    assert [o["kind"] for o in built.objects] == ["JobSet", "PersistentVolumeClaim"]
    assert _check(*built.objects) == []


def test_nothing_to_check() -> None:
    assert _check() == []


def test_checking_does_not_change_the_objects() -> None:
    jobset = _jobset()
    before = copy.deepcopy(jobset)
    _check(jobset)
    assert jobset == before


# --------------------------------------------------------------------------- custom resources


def test_unknown_jobset_field() -> None:
    _one(
        _check(_jobset(restartPolicy="Never")),
        "jobset.x-k8s.io/v1alpha2 JobSet team-a/llm: ",
        "unknown field 'restartPolicy' in spec",
        "schema.unknown-field",
    )


def test_jobset_cel_rule_violation_startup_policy_with_depends_on() -> None:
    _one(
        _check(_jobset(startupPolicy={"startupPolicyOrder": "InOrder"})),
        "StartupPolicy and DependsOn APIs are mutually exclusive",
    )


def test_pod_group_schema_violations() -> None:
    group = _coscheduling_pod_group()
    as_object(group["spec"])["minMember"] = 0
    _one(_check(group), "scheduling.x-k8s.io/v1alpha1 PodGroup team-a/llm", "minMember")

    volcano = _volcano_pod_group()
    as_object(volcano["spec"])["queue"] = "Not A Queue"
    _one(_check(volcano), "scheduling.volcano.sh/v1beta1 PodGroup", "queue")


# --------------------------------------------------------------------------- name budgets


def test_job_names_over_budget() -> None:
    name = "a" * 44  # "<44>-dataset-initializer-0" is 66 characters, and its pods longer
    job, pod, child = _check(_jobset(name))
    assert "spec.replicatedJobs[0].name" in job
    assert "job names generated for this JobSet will exceed 63 characters" in job
    assert f"'{name}-dataset-initializer-0' has 66 characters" in job
    assert "pod names generated for this JobSet will exceed 63 characters" in pod
    # The same check as validation's on the Jobs the JobSet controller would create.
    assert child.startswith(
        f"jobset.x-k8s.io/v1alpha2 JobSet team-a/{name}: Job of replicatedJob "
        f"'dataset-initializer': metadata.name: Invalid value: \"{name}-dataset-initializer-0\""
    )
    assert child.endswith("[job.completion-mode]")


def test_pod_names_over_budget() -> None:
    name = "a" * 34  # Job name fits (56); pod "<job>-0-abcde" is 64
    _one(
        _check(_jobset(name)),
        "spec.replicatedJobs[0].name",
        "pod names generated for this JobSet will exceed 63 characters",
    )


def test_pod_budget_only_for_indexed_jobs() -> None:
    jobset = _jobset("a" * 34)
    first = as_object(as_list(as_object(jobset["spec"])["replicatedJobs"])[0])
    as_object(as_object(first["template"])["spec"])["completionMode"] = "NonIndexed"
    assert _check(jobset) == []


def test_names_within_budget_at_the_limit() -> None:
    assert _check(_jobset("a" * 33)) == []


# --------------------------------------------------------------------------- core kinds


def test_invalid_pvc() -> None:
    _one(
        _check(_pvc(accessModes="ReadWriteOnce")),
        "v1 PersistentVolumeClaim team-a/cache-llm: spec.accessModes",
    )


def test_unknown_pvc_field_is_rejected_in_strict_mode() -> None:
    _one(_check(_pvc(storageClass="fast")), "storageClass")


def test_kind_without_schema_is_a_problem() -> None:
    widget: JsonObject = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "team-a"},
    }
    _one(_check(widget), "example.com/v1 Widget team-a/w", "cannot be validated")


def test_metadata_is_checked_on_every_kind() -> None:
    pvc = _pvc()
    as_object(as_object(pvc["metadata"])["labels"])["not a key"] = "x"
    _one(_check(pvc), "metadata.labels[not a key]", "meta.label-key")


# --------------------------------------------------------------------------- versions


@pytest.mark.parametrize("version", ["1.99", "1.2"])
def test_unbundled_version_uses_the_nearest_and_says_so(version: str) -> None:
    assert _check(_pvc(), version=version) == []
    problem = _one(_check(_pvc(accessModes="x"), version=version), "spec.accessModes")
    assert f"{version} is not bundled" in problem


def test_bundled_version_is_not_annotated() -> None:
    problem = _one(_check(_pvc(accessModes="x"), version="v1.30"), "spec.accessModes")
    assert "bundled" not in problem


@pytest.mark.parametrize("version", ["latest", "1", "1.x", ""])
def test_malformed_version_is_a_usage_error(version: str) -> None:
    with pytest.raises(UsageError, match=r"MAJOR\.MINOR"):
        _check(_pvc(), version=version)


# --------------------------------------------------------------------------- child Jobs


def test_the_jobs_a_jobset_creates_are_judged_by_validations_rules() -> None:
    jobset = _jobset()
    pod = as_object(
        get_path(jobset, ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec"))
    )
    as_object(as_list(pod["containers"])[0]).pop("image")

    _one(
        _check(jobset),
        "Job of replicatedJob 'dataset-initializer'",
        "spec.template.spec.containers[0].image: Required value [pod.image]",
    )
    # Compile leaves them out: validation judged the resolved spec the JobSet copies.
    assert OutputCheck(_VERSION).problems([jobset], jobs=False) == []
