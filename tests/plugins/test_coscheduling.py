from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.build.support import Obj, compile_job, frozen, start
from tests.load.files import write
from tests.support.builders import container, make_runtime, make_trainjob, rjob
from tests.support.compiled import compile_collected
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_object
from trainc.plugins.coscheduling import CoschedulingPlugin
from trainc.resolve.context import Resolution
from trainc.resolve.provenance import Derived, Origin

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


def gang_trainjob(**trainer: Any) -> DefaultedObject:
    return make_trainjob("gang-job", namespace="team-a", runtime="gang", trainer=trainer)


def context_of(runtime: DefaultedObject, **trainer: Any) -> Resolution:
    return start(gang_trainjob(**trainer), runtime)


def values(marks: dict[str, tuple[str, Origin]]) -> dict[str, str]:
    """Pod labels or annotations without their origins."""
    return {key: value for key, (value, _) in marks.items()}


def built(context: Resolution) -> JsonObject:
    PLUGIN.enforce_pod_group_policy(context)
    (pod_group,) = CoschedulingPlugin().build(frozen(context))
    return pod_group


def test_does_nothing_without_the_policy() -> None:
    context = context_of(make_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    assert context.pod_labels == {}
    assert CoschedulingPlugin().build(frozen(context)) == []
    assert context.findings == []


def test_pods_are_labelled_with_the_group_name() -> None:
    context = context_of(gang_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    assert values(context.pod_labels) == {"scheduling.x-k8s.io/pod-group": "gang-job"}
    assert context.pod_annotations == {}


def test_the_pod_label_comes_from_the_runtime_policy() -> None:
    context = context_of(gang_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    ((_, origin),) = context.pod_labels.values()
    assert isinstance(origin, Derived)
    assert origin.actor == "trainc's coscheduling plugin"
    assert origin.cause.source is context.job.runtime
    assert origin.cause.path == ("spec", "podGroupPolicy", "coscheduling")


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
    (finding,) = context.findings
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
    assert context.findings == []


def test_a_gang_of_no_pods_is_an_error() -> None:
    context = context_of(gang_runtime())
    context.pod_sets[0].count = 0  # trainer.numNodes: 0
    PLUGIN.enforce_pod_group_policy(context)
    empty = [finding for finding in context.findings if finding.code == "compile.podgroup-empty"]
    (finding,) = empty
    assert (finding.code, finding.kind, finding.field_path) == (
        "compile.podgroup-empty",
        "TrainJob",
        "spec.trainer.numNodes",
    )
    assert finding.is_error


def test_a_gang_of_no_pods_is_found_while_resolving_the_whole_job() -> None:
    node = rjob("node", ancestor="trainer")
    pod_of(node)["schedulerName"] = "scheduler-plugins-scheduler"
    result = compile_job(gang_trainjob(numNodes=0), gang_runtime(node))
    assert [d.code for d in result.diagnostics] == ["compile.podgroup-empty"]


def test_a_gang_of_no_pods_compiles_to_no_invalid_pod_group(tmp_path: Path) -> None:
    """Resolution's error stops the compile before any PodGroup (minMember 0) is written."""
    runtime = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: gang
spec:
  mlPolicy: {numNodes: 1}
  podGroupPolicy:
    coscheduling: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  schedulerName: scheduler-plugins-scheduler
                  containers:
                    - {name: node, image: example.com/node:1}
"""
    trainjob = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: gang-job
  namespace: team-a
spec:
  runtimeRef: {name: gang}
  trainer: {numNodes: 0}
"""
    write(tmp_path, "runtime.yaml", runtime)
    write(tmp_path, "job.yaml", trainjob)
    (tmp_path / ".git").mkdir()
    compiled = compile_collected([], cwd=tmp_path)
    assert [(d.code, d.file) for d in compiled.diagnostics if d.is_error] == [
        ("compile.podgroup-empty", "job.yaml")
    ]
    assert compiled.jobs == ()
