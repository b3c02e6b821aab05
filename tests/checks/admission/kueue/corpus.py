"""Kueue cases, written from Kueue v0.19.2's own tests, and cases typical of ML jobs.

``TestAssignFlavors`` and ``TestHierarchical`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/scheduler/flavorassigner/flavorassigner_test.go
(the cases whose verdict does not depend on current usage, preemption or topology; where
upstream adds usage that cannot change the maximum capacity, the case keeps its message),
and ``TestPodSets`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobs/jobset/jobset_controller_test.go.
Upstream's PodSets are one container requesting the amounts given; so are these. A case's
``expect`` is the Workload's message, empty when it can be admitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainc.model.json import JsonObject, JsonValue

#: The ResourceFlavors of ``TestAssignFlavors``.
FLAVORS: list[JsonObject] = [
    {"metadata": {"name": "default"}, "spec": {}},
    {"metadata": {"name": "one"}, "spec": {"nodeLabels": {"type": "one"}}},
    {"metadata": {"name": "two"}, "spec": {"nodeLabels": {"type": "two"}}},
    {"metadata": {"name": "b_one"}, "spec": {"nodeLabels": {"b_type": "one"}}},
    {"metadata": {"name": "b_two"}, "spec": {"nodeLabels": {"b_type": "two"}}},
    {
        "metadata": {"name": "tainted"},
        "spec": {"nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}]},
    },
    {
        "metadata": {"name": "taint_and_toleration"},
        "spec": {
            "nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}],
            "tolerations": [
                {"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
            ],
        },
    },
    {"metadata": {"name": "label-x-a"}, "spec": {"nodeLabels": {"x": "a"}}},
    {"metadata": {"name": "label-xy-b"}, "spec": {"nodeLabels": {"x": "b", "y": "k"}}},
]


def flavor(name: str, **resources: JsonValue) -> JsonObject:
    """A ``flavors`` entry; a resource is a nominal quota or a dict of the quota's fields."""
    entries: list[JsonValue] = []
    for resource, quota in resources.items():
        quota_fields = quota if isinstance(quota, dict) else {"nominalQuota": quota}
        entries.append({"name": resource.replace("__", "/").replace("_", "."), **quota_fields})
    return {"name": name, "resources": entries}


def group(*flavors: JsonObject) -> JsonObject:
    """A resource group covering the resources its flavors name."""
    covered: list[JsonValue] = []
    for entry in flavors:
        for resource in entry["resources"] if isinstance(entry["resources"], list) else []:
            name = resource["name"] if isinstance(resource, dict) else None
            if name not in covered:
                covered.append(name)
    return {"coveredResources": covered, "flavors": list[JsonValue](flavors)}


def queue(*groups: JsonObject, name: str = "test-clusterqueue", **spec: JsonValue) -> JsonObject:
    """A v1beta2 ClusterQueue that selects every namespace."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {"namespaceSelector": {}, "resourceGroups": list[JsonValue](groups), **spec},
    }


def pods(
    name: str, count: int, requests: JsonObject, **spec: JsonValue
) -> tuple[str, int, JsonObject]:
    """A PodSet as upstream's ``MakePodSet(...).Request(...)``: one container."""
    container: JsonObject = {"name": "c", "resources": {"requests": requests}}
    return name, count, {"containers": [container], **spec}


@dataclass(frozen=True)
class AssignCase:
    """PodSets, the ClusterQueue (and others in its cohorts), the message and the flavors."""

    name: str
    pod_sets: list[tuple[str, int, JsonObject]]
    queue: JsonObject
    expect: str = ""
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    others: list[JsonObject] = field(default_factory=list)
    cohorts: list[JsonObject] = field(default_factory=list)


MAIN = "main"
SPOT: list[JsonValue] = [
    {"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
]


def _affinity(*expressions: JsonObject) -> JsonObject:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": list[JsonValue](expressions)}]
            }
        }
    }


def _cap(resource: str, flavor_name: str, request: str, capacity: str, previous: str = "0") -> str:
    return (
        f"insufficient quota for {resource} in flavor {flavor_name}, previously considered "
        f"podsets requests ({previous}) + current podset request ({request}) > maximum "
        f"capacity ({capacity})"
    )


def _fail(pod_set: str, *reasons: str) -> str:
    return f"couldn't assign flavors to pod set {pod_set}: " + ", ".join(reasons)


UPSTREAM: list[AssignCase] = [
    AssignCase(
        "single flavor, fits",
        [pods(MAIN, 1, {"cpu": "1", "memory": "1Mi"})],
        queue(group(flavor("default", cpu="1", memory="2Mi"))),
        flavors={MAIN: {"cpu": "default", "memory": "default"}},
    ),
    AssignCase(
        "single flavor, fits tainted flavor",
        [pods(MAIN, 1, {"cpu": "1"}, tolerations=SPOT)],
        queue(group(flavor("tainted", cpu="4"))),
        flavors={MAIN: {"cpu": "tainted"}},
    ),
    AssignCase(
        "single flavor, fits tainted flavor with toleration",
        [pods(MAIN, 1, {"cpu": "1"})],
        queue(group(flavor("taint_and_toleration", cpu="4"))),
        flavors={MAIN: {"cpu": "taint_and_toleration"}},
    ),
    AssignCase(
        "multiple resource groups, fits",
        [pods(MAIN, 1, {"cpu": "3", "memory": "10Mi"})],
        queue(
            group(flavor("one", cpu="2"), flavor("two", cpu="4")),
            group(flavor("b_one", memory="1Gi"), flavor("b_two", memory="5Gi")),
        ),
        flavors={MAIN: {"cpu": "two", "memory": "b_one"}},
    ),
    AssignCase(
        "multiple resource groups, one could fit with preemption, other doesn't fit",
        [pods(MAIN, 1, {"cpu": "3", "memory": "10Mi"})],
        queue(group(flavor("one", cpu="3")), group(flavor("b_one", memory="1Mi"))),
        _fail(MAIN, _cap("memory", "b_one", "10Mi", "1Mi")),
    ),
    AssignCase(
        "multiple resources in a group, doesn't fit",
        [pods(MAIN, 1, {"cpu": "3", "memory": "10Mi"})],
        queue(group(flavor("one", cpu="2", memory="1Gi"), flavor("two", cpu="4", memory="5Mi"))),
        _fail(MAIN, _cap("cpu", "one", "3", "2"), _cap("memory", "two", "10Mi", "5Mi")),
    ),
    AssignCase(
        "multiple flavors, fits while skipping tainted flavor",
        [pods(MAIN, 1, {"cpu": "3"})],
        queue(group(flavor("tainted", cpu="4"), flavor("two", cpu="4"))),
        flavors={MAIN: {"cpu": "two"}},
    ),
    AssignCase(
        "multiple flavors, fits a node selector",
        [
            pods(
                MAIN,
                1,
                {"cpu": "1"},
                nodeSelector={"type": "two", "ignored1": "foo"},
                affinity=_affinity({"key": "ignored2", "operator": "In", "values": ["bar"]}),
            )
        ],
        queue(group(flavor("one", cpu="4"), flavor("two", cpu="4"))),
        flavors={MAIN: {"cpu": "two"}},
    ),
    AssignCase(
        "multiple flavors with different label keys, selector only uses flavor's own keys",
        [pods(MAIN, 1, {"cpu": "1"}, nodeSelector={"x": "a", "y": "g"})],
        queue(group(flavor("label-x-a", cpu="4"), flavor("label-xy-b", cpu="4"))),
        flavors={MAIN: {"cpu": "label-x-a"}},
    ),
    AssignCase(
        "labelless flavor in group with labeled flavor, workload uses labeled selector",
        [pods(MAIN, 1, {"cpu": "1"}, nodeSelector={"type": "two"})],
        queue(group(flavor("default", cpu="4"), flavor("two", cpu="4"))),
        flavors={MAIN: {"cpu": "default"}},
    ),
    AssignCase(
        "multiple flavors, doesn't fit node affinity",
        [
            pods(
                MAIN,
                1,
                {"cpu": "1"},
                affinity=_affinity({"key": "type", "operator": "In", "values": ["three"]}),
            )
        ],
        queue(group(flavor("one", cpu="4"), flavor("two", cpu="4"))),
        _fail(
            MAIN, "flavor one doesn't match node affinity", "flavor two doesn't match node affinity"
        ),
    ),
    AssignCase(
        "multiple specs, fit different flavors",
        [pods("driver", 1, {"cpu": "5"}), pods("worker", 1, {"cpu": "3"})],
        queue(group(flavor("one", cpu="4"), flavor("two", cpu="10"))),
        flavors={"driver": {"cpu": "two"}, "worker": {"cpu": "one"}},
    ),
    AssignCase(
        "multiple specs, fits borrowing",
        [
            pods("driver", 1, {"cpu": "4", "memory": "1Gi"}),
            pods("worker", 1, {"cpu": "6", "memory": "4Gi"}),
        ],
        queue(
            group(
                flavor("default", cpu={"nominalQuota": "2", "borrowingLimit": "98"}, memory="2Gi")
            ),
            cohortName="test-cohort",
        ),
        flavors={
            "driver": {"cpu": "default", "memory": "default"},
            "worker": {"cpu": "default", "memory": "default"},
        },
        others=[
            queue(
                group(flavor("default", cpu="198", memory="198Gi")),
                name="test-secondary-clusterqueue",
                cohortName="test-cohort",
            )
        ],
    ),
    AssignCase(
        "not enough space to borrow",
        [pods(MAIN, 1, {"cpu": "2"})],
        queue(group(flavor("one", cpu="1")), cohortName="test-cohort"),
        _fail(MAIN, _cap("cpu", "one", "2", "1")),
        others=[
            queue(
                group(flavor("one", cpu={"nominalQuota": "10", "lendingLimit": "0"})),
                name="test-secondary-clusterqueue",
                cohortName="test-cohort",
            )
        ],
    ),
    AssignCase(
        "resource not listed in clusterQueue",
        [pods(MAIN, 1, {"example.com/gpu": "2"})],
        queue(group(flavor("one", cpu="4"))),
        _fail(MAIN, "resource example.com/gpu unavailable in ClusterQueue"),
    ),
    AssignCase(
        "zero resource request not in clusterQueue should succeed",
        [pods(MAIN, 1, {"cpu": "1", "example.com/gpu": "0"})],
        queue(group(flavor("default", cpu="4"))),
        flavors={MAIN: {"cpu": "default"}},
    ),
    AssignCase(
        "zero resource request defined in clusterQueue should get flavor assigned",
        [pods(MAIN, 1, {"cpu": "1", "example.com/gpu": "0"})],
        queue(group(flavor("default", cpu="4", example_com__gpu="4"))),
        flavors={MAIN: {"cpu": "default", "example.com/gpu": "default"}},
    ),
    AssignCase(
        "num pods fit",
        [pods(MAIN, 3, {"cpu": "1"})],
        queue(group(flavor("default", pods="3", cpu="3"))),
        flavors={MAIN: {"cpu": "default", "pods": "default"}},
    ),
    AssignCase(
        "num pods don't fit",
        [pods(MAIN, 3, {"cpu": "1"})],
        queue(group(flavor("default", pods="2", cpu="10"))),
        _fail(MAIN, _cap("pods", "default", "3", "2")),
    ),
]

#: ``TestHierarchical``'s tree: cohorts one < two < three, each with 4 cpu of its flavor.
HIERARCHY: list[JsonObject] = [
    {
        "metadata": {"name": "three"},
        "spec": {"resourceGroups": [group(flavor("three", cpu="4"))]},
    },
    {
        "metadata": {"name": "two"},
        "spec": {"parentName": "three", "resourceGroups": [group(flavor("two", cpu="4"))]},
    },
    {
        "metadata": {"name": "one"},
        "spec": {"parentName": "two", "resourceGroups": [group(flavor("one", cpu="4"))]},
    },
]
HIERARCHY_QUEUE = queue(
    group(flavor("one", cpu="0"), flavor("two", cpu="0"), flavor("three", cpu="0")),
    cohortName="one",
)
HIERARCHY_OTHER = queue(
    group(flavor("one", cpu="0"), flavor("two", cpu="0"), flavor("three", cpu="0")),
    name="other-clusterqueue",
    cohortName="two",
)
HIERARCHY_FLAVORS: list[JsonObject] = [
    {"metadata": {"name": name}, "spec": {}} for name in ("one", "two", "three")
]

GPU = "nvidia.com/gpu"
GPU_FLAVORS: list[JsonObject] = [
    {
        "metadata": {"name": "a100"},
        "spec": {
            "nodeLabels": {"gpu": "a100"},
            "nodeTaints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
        },
    },
    {"metadata": {"name": "h100"}, "spec": {"nodeLabels": {"gpu": "h100"}}},
]
GPU_TOLERATION: list[JsonValue] = [{"key": "nvidia.com/gpu", "operator": "Exists"}]


def gpu_queue(name: str, a100: str, h100: str = "0", **spec: JsonValue) -> JsonObject:
    """A ClusterQueue with cpu and GPUs in two flavors."""
    return queue(
        group(
            flavor("a100", cpu="512", nvidia_com__gpu=a100),
            flavor("h100", cpu="512", nvidia_com__gpu=h100),
        ),
        name=name,
        **spec,
    )


ML: list[AssignCase] = [
    AssignCase(
        "a GPU job larger than any flavor's quota",
        [pods("node", 4, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION)],
        gpu_queue("team", a100="8", h100="8"),
        _fail("node", _cap(GPU, "a100", "16", "8"), _cap(GPU, "h100", "16", "8")),
    ),
    AssignCase(
        "a GPU job that fits only by borrowing from the cohort",
        [pods("node", 4, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION)],
        gpu_queue("team", a100="8", cohortName="research"),
        flavors={"node": {"cpu": "a100", GPU: "a100"}},
        others=[gpu_queue("idle-team", a100="8", cohortName="research")],
    ),
    AssignCase(
        "a GPU job the cohort cannot cover because the other queue lends little",
        [pods("node", 4, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION)],
        gpu_queue("team", a100="8", cohortName="research"),
        _fail("node", _cap(GPU, "a100", "16", "12"), _cap(GPU, "h100", "16", "0")),
        others=[
            queue(
                group(flavor("a100", nvidia_com__gpu={"nominalQuota": "8", "lendingLimit": "4"})),
                name="idle-team",
                cohortName="research",
            )
        ],
    ),
    AssignCase(
        "a borrowingLimit caps what the cohort may lend",
        [pods("node", 4, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION)],
        queue(
            group(
                flavor(
                    "a100",
                    cpu="512",
                    nvidia_com__gpu={"nominalQuota": "8", "borrowingLimit": "2"},
                )
            ),
            name="team",
            cohortName="research",
        ),
        _fail("node", _cap(GPU, "a100", "16", "10")),
        others=[gpu_queue("idle-team", a100="64", cohortName="research")],
    ),
    AssignCase(
        "a nodeSelector no flavor satisfies",
        [
            pods(
                "node",
                2,
                {"cpu": "8", GPU: "4"},
                nodeSelector={"gpu": "b200"},
                tolerations=GPU_TOLERATION,
            )
        ],
        gpu_queue("team", a100="64", h100="64"),
        _fail(
            "node",
            "flavor a100 doesn't match node affinity",
            "flavor h100 doesn't match node affinity",
        ),
    ),
    AssignCase(
        "an untolerated GPU taint moves the job to the next flavor",
        [pods("node", 2, {"cpu": "8", GPU: "4"})],
        gpu_queue("team", a100="64", h100="64"),
        flavors={"node": {"cpu": "h100", GPU: "h100"}},
    ),
    AssignCase(
        "an untolerated GPU taint, in Kueue's words",
        [pods("node", 2, {"cpu": "8", GPU: "4"})],
        gpu_queue("team", a100="64"),
        _fail(
            "node",
            _cap(GPU, "h100", "8", "0"),
            "untolerated taint {nvidia.com/gpu  NoSchedule <nil>} in flavor a100",
        ),
    ),
    AssignCase(
        "a second PodSet finds the quota the first one took",
        [
            pods("launcher", 1, {"cpu": "4", GPU: "4"}, tolerations=GPU_TOLERATION),
            pods("node", 2, {"cpu": "8", GPU: "4"}, tolerations=GPU_TOLERATION),
        ],
        gpu_queue("team", a100="8"),
        _fail("node", _cap(GPU, "a100", "8", "8", previous="4"), _cap(GPU, "h100", "8", "0")),
    ),
]
