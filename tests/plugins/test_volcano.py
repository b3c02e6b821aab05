""" """

from __future__ import annotations

from typing import Any

import pytest

from tests.build.support import Obj, frozen, start
from tests.support.builders import (
    container,
    located,
    make_runtime,
    make_trainjob,
    rjob,
    with_jobset_metadata,
)
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_object
from trainc.plugins.volcano import VolcanoPlugin, check_volcano_queue
from trainc.resolve.context import Resolution
from trainc.resolve.provenance import Derived

PLUGIN = VolcanoPlugin()


def job(name: str, *, ancestor: str | None = None, **pod: Any) -> JsonObject:
    main = container("node", resources={"requests": {"cpu": "2", "memory": "8Gi"}})
    replicated_job: Obj = rjob(name, ancestor=ancestor, containers=[main])
    replicated_job["template"]["spec"]["template"]["spec"].update(pod)
    return replicated_job


def volcano_runtime(
    *jobs: JsonObject, policy: JsonObject | None = None, annotations: JsonObject | None = None
) -> DefaultedObject:
    runtime = make_runtime(
        "gang",
        ml_policy={"numNodes": 1, "torch": {}},
        podGroupPolicy={"volcano": policy if policy is not None else {}},
        replicated_jobs=list(jobs) or [job("node", ancestor="trainer", schedulerName="volcano")],
    )
    return with_jobset_metadata(
        runtime, {"annotations": annotations} if annotations is not None else None
    )


def context_of(runtime: DefaultedObject) -> Resolution:
    trainjob = make_trainjob("gang-job", namespace="team-a", runtime="gang")
    return start(trainjob, runtime)


def spec_of(context: Resolution) -> JsonObject:
    PLUGIN.enforce_pod_group_policy(context)
    (pod_group,) = VolcanoPlugin().build(frozen(context))
    assert pod_group["apiVersion"] == "scheduling.volcano.sh/v1beta1"
    assert pod_group["kind"] == "PodGroup"
    assert pod_group["metadata"] == {"name": "gang-job", "namespace": "team-a"}
    return as_object(pod_group["spec"])


def test_does_nothing_without_the_policy() -> None:
    context = context_of(make_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    assert context.pod_annotations == {}
    assert VolcanoPlugin().build(frozen(context)) == []


def test_pods_are_annotated_with_the_group_name() -> None:
    context = context_of(volcano_runtime())
    PLUGIN.enforce_pod_group_policy(context)
    ((key, (value, origin)),) = context.pod_annotations.items()
    assert (key, value) == ("scheduling.k8s.io/group-name", "gang-job")
    assert isinstance(origin, Derived)
    assert origin.cause.path == ("spec", "podGroupPolicy", "volcano")
    assert context.pod_labels == {}
    assert context.findings == []


def test_a_minimal_pod_group() -> None:
    assert spec_of(context_of(volcano_runtime())) == {
        "minMember": 1,
        "minResources": {"cpu": "2", "memory": "8Gi"},
    }


def test_queue_comes_from_the_jobset_annotation() -> None:
    runtime = volcano_runtime(annotations={"scheduling.volcano.sh/queue-name": "research"})
    assert spec_of(context_of(runtime))["queue"] == "research"


def test_the_last_priority_class_wins() -> None:
    runtime = volcano_runtime(
        job("a", priorityClassName="low", schedulerName="volcano"),
        job("node", ancestor="trainer", priorityClassName="high"),
        job("c"),
    )
    assert spec_of(context_of(runtime))["priorityClassName"] == "high"


@pytest.mark.parametrize(
    ("topology", "expected"),
    [
        ({"mode": "soft", "highestTierAllowed": 2}, {"mode": "soft", "highestTierAllowed": 2}),
        ({}, {"mode": "hard", "highestTierAllowed": 1}),  # the CRD defaults
    ],
)
def test_network_topology_is_copied(topology: JsonObject, expected: JsonObject) -> None:
    runtime = volcano_runtime(policy={"networkTopology": topology})
    assert spec_of(context_of(runtime))["networkTopology"] == expected


def test_without_schedulername_volcano_a_warning() -> None:
    runtime = volcano_runtime(job("node", ancestor="trainer", schedulerName="default-scheduler"))
    context = context_of(runtime)
    PLUGIN.enforce_pod_group_policy(context)
    (finding,) = context.findings
    assert (finding.code, finding.severity, finding.field_path) == (
        "compile.volcano-scheduler",
        Severity.WARNING,
        "spec.podGroupPolicy.volcano",
    )


def test_an_empty_gang_is_valid_for_volcano() -> None:
    context = context_of(volcano_runtime())
    context.pod_sets[0].count = 0
    assert spec_of(context)["minMember"] == 0
    assert context.findings == []


QUEUE = "scheduling.volcano.sh/queue-name"


def _runtime(queue: str | None = None, *, volcano: bool = True) -> DefaultedObject:
    runtime = make_runtime(
        podGroupPolicy={"volcano": {}} if volcano else {"coscheduling": {}},
        replicated_jobs=[rjob("node", ancestor="trainer")],
    )
    return with_jobset_metadata(
        runtime, {"annotations": {QUEUE: queue}} if queue is not None else None
    )


def _patched(queue: str) -> DefaultedObject:
    return make_trainjob(
        runtimePatches=[
            {
                "manager": "kueue.x-k8s.io/manager",
                "trainingRuntimeSpec": {"template": {"metadata": {"annotations": {QUEUE: queue}}}},
            }
        ]
    )


def test_empty_runtime_queue_points_at_the_runtime():
    findings = check_volcano_queue(make_trainjob(), _runtime(""))

    assert located(findings) == [
        ("xobj.volcano-queue-empty", f"spec.template.metadata.annotations[{QUEUE}]")
    ]
    assert findings[0].file == "runtime.yaml"
    assert findings[0].message.startswith("Volcano queue name must not be empty")


def test_empty_patched_queue_points_at_the_patch():
    findings = check_volcano_queue(_patched(""), _runtime("research"))

    assert located(findings) == [
        (
            "xobj.volcano-queue-empty",
            f"spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.annotations[{QUEUE}]",
        )
    ]


def test_later_value_wins():
    assert check_volcano_queue(_patched("research"), _runtime("")) == []


def test_queue_is_only_volcano_business():
    assert check_volcano_queue(_patched(""), _runtime(volcano=False)) == []
    assert check_volcano_queue(make_trainjob(), _runtime()) == []
