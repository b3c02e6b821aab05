from __future__ import annotations

import pytest

from tests.build.support import (
    Obj,
    container_of,
    env,
    env_names,
    frozen,
    job_spec,
    pod,
    rjob,
    start,
)
from tests.support.builders import container, make_runtime, make_trainjob, with_jobset_metadata
from tests.support.builders import rjob as make_rjob
from trainc.diagnostics import Severity
from trainc.model.json import as_object, get_path
from trainc.model.labels import ANCESTOR_LABEL
from trainc.plugins.jobset import JobSetPlugin
from trainc.resolve.context import Resolution
from trainc.resolve.provenance import Derived, Written

PLUGIN = JobSetPlugin()

NODE: Obj = make_rjob(
    "node",
    ancestor="trainer",
    containers=[
        container(
            "node",
            command=["runtime"],
            args=["runtime"],
            env=[{"name": "TRAIN_JOB", "value": "original"}, {"name": "RUNTIME", "value": "rt"}],
        ),
        "sidecar",
    ],
)


def initializer(name: str) -> Obj:
    return make_rjob(name, ancestor=name, containers=[name])


def built(context: Resolution) -> Obj:
    """The JobSet as settled by the plugin and written out by the compiler."""
    PLUGIN.settle(context)
    (jobset,) = JobSetPlugin().build(frozen(context))
    return jobset


def test_name() -> None:
    assert PLUGIN.name == "jobset"


def test_trainer_overrides_replace_image_command_args_and_upsert_env() -> None:
    context = start(
        make_trainjob(
            trainer={
                "image": "test:trainjob",
                "command": ["trainjob"],
                "args": ["a", "b"],
                "env": [
                    {"name": "TRAIN_JOB", "value": "override"},
                    {"name": "CUSTOM", "value": "x"},
                ],
            }
        ),
        make_runtime(replicated_jobs=[NODE]),
    )
    PLUGIN.apply_trainjob(context)
    node = container_of(context.jobset_spec)
    assert node["image"] == "test:trainjob"
    assert node["command"] == ["trainjob"]
    assert node["args"] == ["a", "b"]
    assert env_names(node) == ["TRAIN_JOB", "RUNTIME"]  # the environment comes after the plugins
    PLUGIN.pre_build_sync(context)
    # Runtime env replaced in place, new names appended.
    assert env_names(node) == ["TRAIN_JOB", "RUNTIME", "CUSTOM"]
    assert env(node) == {"TRAIN_JOB": "override", "RUNTIME": "rt", "CUSTOM": "x"}
    assert "env" not in container_of(context.jobset_spec, name="sidecar")


def test_unset_trainer_fields_keep_the_runtime_values() -> None:
    context = start(make_trainjob(trainer={"numNodes": 2}), make_runtime(replicated_jobs=[NODE]))
    PLUGIN.apply_trainjob(context)
    PLUGIN.pre_build_sync(context)
    node = container_of(context.jobset_spec)
    assert node["image"] == "example.com/node:1"
    assert node["command"] == ["runtime"]
    assert env(node) == {"TRAIN_JOB": "original", "RUNTIME": "rt"}


def test_overrides_do_not_leak_into_the_resolved_job() -> None:
    trainjob = make_trainjob(trainer={"env": [{"name": "A", "value": "1"}]})
    context = start(trainjob, make_runtime(replicated_jobs=[NODE]))
    PLUGIN.pre_build_sync(context)
    container_of(context.jobset_spec)["env"][-1]["value"] = "changed"
    assert get_path(trainjob.data, ("spec", "trainer", "env")) == [{"name": "A", "value": "1"}]
    assert "A" not in env(container_of(context.job.template))


def test_replicas_forced_to_one_on_ancestor_jobs_only() -> None:
    jobs = [
        {**initializer("dataset-initializer"), "replicas": 3},
        {**make_rjob("helper", containers=["helper"]), "replicas": 2},
        {**NODE, "replicas": 4},
    ]
    context = start(make_trainjob(), make_runtime(replicated_jobs=jobs))
    PLUGIN.apply_trainjob(context)
    replicas = {job["name"]: job["replicas"] for job in context.replicated_jobs()}
    assert replicas == {"dataset-initializer": 1, "helper": 2, "node": 1}


def test_run_launcher_as_node_sends_trainer_env_to_the_node_job() -> None:
    launcher = make_rjob("launcher", ancestor="trainer", containers=[container("node")])
    node = make_rjob("node", containers=[container("node")])
    context = start(
        make_trainjob(trainer={"image": "img:2", "env": [{"name": "A", "value": "1"}]}),
        make_runtime(
            ml_policy={"numNodes": 2, "mpi": {"runLauncherAsNode": True}},
            replicated_jobs=[launcher, node],
        ),
    )
    PLUGIN.apply_trainjob(context)
    PLUGIN.pre_build_sync(context)
    assert container_of(context.jobset_spec, "launcher")["image"] == "img:2"
    assert env(container_of(context.jobset_spec, "launcher")) == {"A": "1"}
    # The node job gets the env (it runs training too) but keeps its own image.
    assert container_of(context.jobset_spec, "node")["image"] == "example.com/node:1"
    assert env(container_of(context.jobset_spec, "node")) == {"A": "1"}


def test_without_run_launcher_as_node_the_unlabelled_node_job_is_untouched() -> None:
    launcher = make_rjob("launcher", ancestor="trainer", containers=[container("node")])
    node = make_rjob("node", containers=[container("node")])
    context = start(
        make_trainjob(trainer={"env": [{"name": "A", "value": "1"}]}),
        make_runtime(ml_policy={"numNodes": 2, "mpi": {}}, replicated_jobs=[launcher, node]),
    )
    PLUGIN.pre_build_sync(context)
    assert "env" not in container_of(context.jobset_spec, "node")


def test_initializers_get_storage_uri_env_and_secret() -> None:
    dataset = make_rjob(
        "dataset-initializer",
        ancestor="dataset-initializer",
        containers=[
            container(
                "dataset-initializer",
                env=[{"name": "KEEP", "value": "k"}],
                envFrom=[{"configMapRef": {"name": "cm"}}],
            )
        ],
    )
    context = start(
        make_trainjob(
            initializer={
                "dataset": {
                    "storageUri": "hf://trainjob-dataset",
                    "env": [{"name": "TRAIN_JOB", "value": "test:trainjob:dataset"}],
                    "secretRef": {"name": "trainjob-secret-dataset"},
                },
                "model": {"storageUri": "hf://trainjob-model"},
            }
        ),
        make_runtime(replicated_jobs=[dataset, initializer("model-initializer"), NODE]),
    )
    PLUGIN.pre_build_sync(context)
    data = container_of(context.jobset_spec, "dataset-initializer", "dataset-initializer")
    assert env_names(data) == ["KEEP", "STORAGE_URI", "TRAIN_JOB"]
    assert env(data)["STORAGE_URI"] == "hf://trainjob-dataset"
    assert data["envFrom"] == [
        {"configMapRef": {"name": "cm"}},
        {"secretRef": {"name": "trainjob-secret-dataset"}},
    ]
    model = container_of(context.jobset_spec, "model-initializer", "model-initializer")
    assert env(model) == {"STORAGE_URI": "hf://trainjob-model"}
    assert "envFrom" not in model


def test_a_user_storage_uri_wins_over_the_storage_uri_field() -> None:
    context = start(
        make_trainjob(
            initializer={
                "model": {
                    "storageUri": "hf://field",
                    "env": [{"name": "STORAGE_URI", "value": "s3://env"}],
                }
            }
        ),
        make_runtime(replicated_jobs=[initializer("model-initializer"), NODE]),
    )
    PLUGIN.pre_build_sync(context)
    model = container_of(context.jobset_spec, "model-initializer", "model-initializer")
    assert model["env"] == [{"name": "STORAGE_URI", "value": "s3://env"}]


def test_initializer_without_trainjob_source_is_untouched() -> None:
    context = start(
        make_trainjob(initializer={"model": {"storageUri": "hf://m"}}),
        make_runtime(replicated_jobs=[initializer("dataset-initializer"), NODE]),
    )
    PLUGIN.pre_build_sync(context)
    assert "env" not in container_of(
        context.jobset_spec, "dataset-initializer", "dataset-initializer"
    )


def test_pre_build_sync_copies_counts_into_parallelism_and_completions() -> None:
    helper = make_rjob("helper", containers=["helper"], job_spec={"parallelism": 3})
    node = make_rjob("node", ancestor="trainer", job_spec={"parallelism": 5, "completions": 7})
    context = start(
        make_trainjob(), make_runtime(ml_policy={"numNodes": 4}, replicated_jobs=[helper, node])
    )
    context.pod_sets[1].count = 9
    PLUGIN.pre_build_sync(context)
    assert job_spec(context.jobset_spec, "helper")["parallelism"] == 3
    assert job_spec(context.jobset_spec, "helper")["completions"] == 3
    assert job_spec(context.jobset_spec, "node")["parallelism"] == 9
    assert job_spec(context.jobset_spec, "node")["completions"] == 9


def test_build_names_the_jobset_after_the_trainjob() -> None:
    context = start(make_trainjob("test-job", namespace="team"), make_runtime())
    jobset = built(context)
    assert jobset["apiVersion"] == "jobset.x-k8s.io/v1alpha2"
    assert jobset["kind"] == "JobSet"
    assert jobset["metadata"] == {"name": "test-job", "namespace": "team"}
    assert "ownerReferences" not in jobset["metadata"]


def test_build_writes_suspend_when_the_trainjob_suspends() -> None:
    jobset = built(start(make_trainjob(suspend=True), make_runtime()))
    assert jobset["spec"]["suspend"] is True


@pytest.mark.parametrize("spec", [{}, {"suspend": False}])
def test_build_leaves_suspend_out_unless_the_trainjob_suspends(spec: Obj) -> None:
    # Absent means false to the JobSet controller; an explicit false would be a value
    # GitOps forces back onto a field Kueue owns.
    jobset = built(start(make_trainjob(**spec), make_runtime()))
    assert "suspend" not in jobset["spec"]


def test_build_drops_the_runtime_templates_suspend() -> None:
    # Upstream's builder overwrites it with the TrainJob's (defaulted) value.
    runtime = make_runtime(jobset={"suspend": True})
    jobset = built(start(make_trainjob(), runtime))
    assert "suspend" not in jobset["spec"]


def test_build_takes_metadata_from_the_template_and_patches_only() -> None:
    context = start(
        make_trainjob(
            labels={"from-trainjob": "x"},
            runtimePatches=[
                {
                    "manager": "test.io/manager",
                    "trainingRuntimeSpec": {
                        "template": {
                            "metadata": {
                                "labels": {"conflictLabel": "override"},
                                "annotations": {"conflictAnnotation": "override"},
                            }
                        }
                    },
                }
            ],
        ),
        with_jobset_metadata(
            make_runtime(
                labels={"conflictLabel": "overridden", "trainer.kubeflow.org/framework": "torch"}
            ),
            {"labels": {"conflictLabel": "template", "team": "a"}},
        ),
    )
    jobset = built(context)
    assert jobset["metadata"]["labels"] == {"conflictLabel": "override", "team": "a"}
    assert jobset["metadata"]["annotations"] == {"conflictAnnotation": "override"}


def test_build_marks_every_pod_template_for_the_scheduler() -> None:
    helper: Obj = make_rjob("helper", containers=["helper"])
    helper["template"]["spec"]["template"]["metadata"] = {"labels": {"app": "helper"}}
    context = start(make_trainjob(), make_runtime(replicated_jobs=[helper, NODE]))
    origin = context.runtime_at("spec", "podGroupPolicy")
    context.pod_labels["scheduling.x-k8s.io/pod-group"] = ("job", origin)
    context.pod_annotations["scheduling.k8s.io/group-name"] = ("job", origin)
    jobset = built(context)
    for name, labels in (("helper", {"app": "helper"}), ("node", {})):
        metadata = rjob(jobset, name)["template"]["spec"]["template"]["metadata"]
        assert metadata["labels"] == {**labels, "scheduling.x-k8s.io/pod-group": "job"}
        assert metadata["annotations"] == {"scheduling.k8s.io/group-name": "job"}
    # The Job-level metadata keeps only the runtime's labels.
    assert rjob(jobset, "node")["template"]["metadata"] == {"labels": {ANCESTOR_LABEL: "trainer"}}


def test_build_without_scheduler_marks_adds_no_pod_metadata() -> None:
    jobset = built(start(make_trainjob(), make_runtime()))
    assert "metadata" not in rjob(jobset, "node")["template"]["spec"]["template"]


def test_build_fills_the_jobset_webhook_defaults() -> None:
    jobset = built(start(make_trainjob(), make_runtime()))
    spec = jobset["spec"]
    assert spec["successPolicy"] == {"operator": "All"}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "AnyOrder"}
    assert spec["network"] == {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
    assert job_spec(spec, "node")["completionMode"] == "Indexed"
    assert pod(spec, "node")["restartPolicy"] == "OnFailure"


def test_build_keeps_what_the_runtime_chose_over_webhook_defaults() -> None:
    node: Obj = make_rjob("node", ancestor="trainer", job_spec={"completionMode": "NonIndexed"})
    node["template"]["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    runtime = make_runtime(
        replicated_jobs=[node],
        jobset={
            "network": {"subdomain": "kubeflow.org", "enableDNSHostnames": False},
            "successPolicy": {"operator": "Any", "targetReplicatedJobs": ["node"]},
            "volumeClaimPolicies": [
                {"templates": [{"metadata": {"name": "a"}, "spec": {}}]},
                {
                    "templates": [{"metadata": {"name": "b"}, "spec": {}}],
                    "retentionPolicy": {"whenDeleted": "Retain"},
                },
            ],
        },
    )
    jobset = built(start(make_trainjob(), runtime))
    spec = jobset["spec"]
    assert spec["successPolicy"] == {"operator": "Any", "targetReplicatedJobs": ["node"]}
    assert spec["network"] == {
        "subdomain": "kubeflow.org",
        "enableDNSHostnames": False,
        "publishNotReadyAddresses": True,
    }
    assert job_spec(spec, "node")["completionMode"] == "NonIndexed"
    assert pod(spec, "node")["restartPolicy"] == "Never"
    retention = [policy["retentionPolicy"] for policy in spec["volumeClaimPolicies"]]
    assert retention == [{"whenDeleted": "Delete"}, {"whenDeleted": "Retain"}]


def test_build_returns_an_object_independent_of_the_resolution() -> None:
    context = start(
        make_trainjob(), with_jobset_metadata(make_runtime(), {"labels": {"team": "a"}})
    )
    jobset = built(context)
    container_of(context.jobset_spec)["image"] = "changed"
    context.jobset_spec["suspend"] = True
    as_object(context.jobset_metadata["labels"])["team"] = "b"
    context.pod_labels["late"] = ("x", context.runtime_at("spec"))
    assert container_of(jobset)["image"] == "example.com/node:1"
    assert "suspend" not in jobset["spec"]
    assert jobset["metadata"]["labels"] == {"team": "a"}
    assert "metadata" not in rjob(jobset, "node")["template"]["spec"]["template"]


# --------------------------------------------------------------------------- settle


def test_settle_leaves_the_joined_template_alone() -> None:
    context = start(make_trainjob(suspend=True), make_runtime())
    PLUGIN.settle(context)
    assert context.jobset_spec["suspend"] is True
    assert "suspend" not in context.job.template
    assert "successPolicy" not in context.job.template


def test_settle_traces_suspend_to_the_trainjob() -> None:
    context = start(make_trainjob(suspend=True), make_runtime())
    PLUGIN.settle(context)
    origin = frozen(context).origin(("suspend",))
    assert isinstance(origin, Derived)
    assert origin.actor == "trainc's jobset plugin"
    assert origin.cause == Written(context.job.trainjob, ("spec", "suspend"))


def test_settle_traces_webhook_defaults_to_the_runtime() -> None:
    context = start(make_trainjob(), make_runtime())
    PLUGIN.settle(context)
    resolved = frozen(context)
    for path in (
        ("successPolicy",),
        ("replicatedJobs", 0, "template", "spec", "completionMode"),
        ("replicatedJobs", 0, "template", "spec", "template", "spec", "restartPolicy"),
    ):
        origin = resolved.origin(path)
        assert isinstance(origin, Derived), path
        assert origin.actor == "the JobSet webhook"
        assert origin.cause.source is context.job.runtime


def test_settle_traces_the_pod_marks_to_their_origin() -> None:
    context = start(make_trainjob(), make_runtime())
    origin = context.derived("coscheduling", "pods join the PodGroup", context.runtime_at("spec"))
    context.pod_labels["scheduling.x-k8s.io/pod-group"] = ("job", origin)
    PLUGIN.settle(context)
    path = ("replicatedJobs", 0, "template", "spec", "template", "metadata", "labels")
    assert frozen(context).origin((*path, "scheduling.x-k8s.io/pod-group")) == origin


def test_settle_reports_a_job_without_containers_at_the_runtime() -> None:
    empty: Obj = {"name": "empty", "template": {"spec": {"template": {"spec": {}}}}}
    runtime = make_runtime(replicated_jobs=[NODE, empty])
    context = start(make_trainjob(), runtime)
    PLUGIN.settle(context)
    (finding,) = context.findings
    assert (finding.code, finding.severity, finding.kind, finding.field_path) == (
        "compile.no-containers",
        Severity.ERROR,
        "ClusterTrainingRuntime",
        "spec.template.spec.replicatedJobs[1].template",
    )
    assert "'empty'" in finding.message


def test_settle_without_findings_for_jobs_with_containers() -> None:
    context = start(make_trainjob(), make_runtime(replicated_jobs=[NODE]))
    PLUGIN.settle(context)
    assert context.findings == []
