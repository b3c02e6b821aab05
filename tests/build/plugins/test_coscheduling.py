from __future__ import annotations

from typing import Any

import pytest

from tests.build.support import Obj
from tests.support.builders import container, make_runtime, make_trainjob, rjob
from trainc.build.context import BuildContext
from trainc.build.plugins.coscheduling import CoschedulingPlugin
from trainc.config import CompileSettings
from trainc.diagnostics import Severity
from trainc.model.json import JsonObject, as_object
from trainc.resolve.job import resolve_job
from trainc.resolve.objects import DefaultedObject

PLUGIN = CoschedulingPlugin()


def requests(**amounts: Any) -> JsonObject:
    return {"resources": {"requests": amounts}}


def gang_runtime(
    *jobs: JsonObject, policy: JsonObject | None = None, ml_policy: JsonObject | None = None
) -> DefaultedObject:
    return make_runtime(
        "gang",
        ml_policy=ml_policy or {"numNodes": 1, "torch": {}},
        podGroupPolicy={"coscheduling": policy if policy is not None else {}},
        replicated_jobs=list(jobs)
        or [rjob("node", ancestor="trainer", containers=[container("node", **requests(cpu=1))])],
    )


def pod_of(replicated_job: Obj) -> Obj:
    """The pod spec of a replicatedJob built by ``rjob``, to amend it."""
    return as_object(replicated_job["template"]["spec"]["template"]["spec"])


def context_of(runtime: DefaultedObject, **trainer: Any) -> BuildContext:
    trainjob = make_trainjob("gang-job", namespace="team-a", runtime="gang", trainer=trainer)
    return BuildContext.start(resolve_job(trainjob, runtime), CompileSettings())


def built(context: BuildContext) -> JsonObject:
    PLUGIN.enforce_pod_group_policy(context)
    (pod_group,) = PLUGIN.build(context)
    return pod_group


def test_does_nothing_without_the_policy() -> None:
    context = context_of(make_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    assert context.pod_labels == {}
    assert PLUGIN.build(context) == []
    assert context.diagnostics == []


def test_pods_are_labelled_with_the_group_name() -> None:
    context = context_of(gang_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    assert context.pod_labels == {"scheduling.x-k8s.io/pod-group": "gang-job"}
    assert context.pod_annotations == {}


def test_t16_quantities() -> None:
    # plugins/coscheduling/coscheduling_test.go: node 2 x {500m, 1Gi}, dataset 1 x {250m, 512Mi}.
    runtime = gang_runtime(
        rjob(
            "dataset-initializer",
            ancestor="dataset-initializer",
            containers=[container("dataset-initializer", **requests(cpu="250m", memory="512Mi"))],
        ),
        rjob(
            "node",
            ancestor="trainer",
            containers=[container("node", **requests(cpu="500m", memory="1Gi"))],
        ),
        policy={"scheduleTimeoutSeconds": 30},
        ml_policy={"numNodes": 2, "torch": {}},
    )
    assert built(context_of(runtime)) == {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "gang-job", "namespace": "team-a"},
        "spec": {
            "minMember": 3,
            "minResources": {"cpu": "1250m", "memory": "2560Mi"},
            "scheduleTimeoutSeconds": 30,
        },
    }


def test_counts_are_read_after_the_framework_plugins_changed_them() -> None:
    context = context_of(gang_runtime())
    (pod_set,) = context.pod_sets
    pod_set.count = 30  # as Torch or PlainML set it from trainer.numNodes
    assert as_object(built(context)["spec"])["minMember"] == 30
    assert as_object(as_object(built(context)["spec"])["minResources"]) == {"cpu": "30"}


def test_the_default_timeout_is_60_seconds() -> None:
    # Even where no CRD default filled it in.
    runtime = gang_runtime()
    as_object(as_object(runtime.data["spec"])["podGroupPolicy"])["coscheduling"] = {}
    spec = as_object(built(context_of(runtime))["spec"])
    assert spec["scheduleTimeoutSeconds"] == 60


def test_pods_without_requests_leave_min_resources_out() -> None:
    runtime = gang_runtime(rjob("node", ancestor="trainer"))
    assert as_object(built(context_of(runtime))["spec"]) == {
        "minMember": 1,
        "scheduleTimeoutSeconds": 60,
    }


def test_init_containers_pod_overhead_and_every_resource_count() -> None:
    node = rjob(
        "node",
        ancestor="trainer",
        containers=[container("node", **requests(cpu="1", memory="1Gi", **{"nvidia.com/gpu": 2}))],
        init_containers=[container("setup", **requests(cpu="3", memory="100Mi"))],
    )
    pod_of(node)["overhead"] = {"cpu": "100m"}
    spec = as_object(
        built(context_of(gang_runtime(node, ml_policy={"numNodes": 4, "torch": {}})))["spec"]
    )
    assert spec["minResources"] == {"cpu": "12400m", "memory": "4Gi", "nvidia.com/gpu": "8"}


def test_no_scheduler_name_is_a_warning_on_the_runtime() -> None:
    context = context_of(gang_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    (finding,) = context.diagnostics
    assert (finding.code, finding.severity) == ("compile.coscheduling-scheduler", Severity.WARNING)
    assert (finding.kind, finding.name, finding.field_path) == (
        "ClusterTrainingRuntime",
        "gang",
        "spec.podGroupPolicy.coscheduling",
    )
    assert "Coscheduling plugin" in finding.message


@pytest.mark.parametrize("scheduler", ["scheduler-plugins-scheduler", "default-scheduler"])
def test_any_named_scheduler_silences_the_warning(scheduler: str) -> None:
    node = rjob("node", ancestor="trainer")
    pod_of(node)["schedulerName"] = scheduler
    context = context_of(gang_runtime(node))
    PLUGIN.enforce_pod_group_policy(context)
    assert context.diagnostics == []


def test_a_gang_of_no_pods_is_an_error_not_an_invalid_pod_group() -> None:
    context = context_of(gang_runtime())
    context.pod_sets[0].count = 0  # trainer.numNodes: 0
    PLUGIN.enforce_pod_group_policy(context)
    context.diagnostics.clear()
    assert PLUGIN.build(context) == []
    (finding,) = context.diagnostics
    assert (finding.code, finding.kind, finding.field_path) == (
        "compile.podgroup-empty",
        "TrainJob",
        "spec.trainer.numNodes",
    )
