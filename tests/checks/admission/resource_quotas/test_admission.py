"""ResourceQuota end to end on the objects ML jobs make: GPUs, claims, counts, gangs."""

from __future__ import annotations

from trainc.checks.admission.limit_ranges import admit_pod, limit_range_from_json
from trainc.checks.admission.resource_lists import forbidden
from trainc.checks.admission.resource_quotas import (
    Member,
    Target,
    admit,
    count_name,
    demand,
    ordered,
    quota_from_json,
    shortfalls,
)
from trainc.checks.admission.resource_quotas.quota import Quota
from trainc.checks.workload.version import KubeVersion
from trainc.config.settings import LimitedResource, ScopeRequirement
from trainc.model.json import JsonObject, JsonValue

NEWEST: KubeVersion = (1, 36)


def quota(name: str, hard: JsonObject, **spec: JsonValue) -> Quota:
    return quota_from_json({"metadata": {"name": name}, "spec": {"hard": hard, **spec}})


def node(gpus: str = "4", extra: JsonObject | None = None) -> Target:
    """A torch node pod as the Job controller creates it (requests default to limits)."""
    container: JsonObject = {
        "name": "node",
        "resources": {
            "requests": {"cpu": "8", "memory": "16Gi", "nvidia.com/gpu": gpus},
            "limits": {"memory": "16Gi", "nvidia.com/gpu": gpus},
        },
    }
    return Target(
        "",
        "pods",
        {
            "metadata": {"name": "train-node-0-0"},
            "spec": {"containers": [container], **(extra or {})},
        },
    )


def claim(storage: str, storage_class: str | None = None) -> Target:
    spec: JsonObject = {"resources": {"requests": {"storage": storage}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return Target("", "persistentvolumeclaims", {"metadata": {"name": "data"}, "spec": spec})


def test_one_pod_above_a_gpu_quota() -> None:
    gpu = quota("gpu", {"requests.nvidia.com/gpu": "2"})
    refusal = admit([gpu], node(), NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: gpu, requested: requests.nvidia.com/gpu=4, "
        "used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=2"
    )
    assert forbidden("pods", "train-node-0-0-x7k2p", refusal.message).startswith(
        'pods "train-node-0-0-x7k2p" is forbidden: exceeded quota: gpu, requested: '
    )
    assert admit([quota("gpu", {"requests.nvidia.com/gpu": "4"})], node(), NEWEST) is None


def test_extended_resources_count_only_as_requests() -> None:
    """``limits.nvidia.com/gpu`` and a bare ``nvidia.com/gpu`` are not tracked for pods."""
    assert admit([quota("gpu", {"limits.nvidia.com/gpu": "1"})], node(), NEWEST) is None
    assert admit([quota("gpu", {"nvidia.com/gpu": "1"})], node(), NEWEST) is None


def test_a_gpu_quota_obliges_no_container_to_set_cpu() -> None:
    bare = Target("", "pods", {"spec": {"containers": [{"name": "node"}]}})
    assert admit([quota("gpu", {"requests.nvidia.com/gpu": "8"})], bare, NEWEST) is None


def test_must_specify_lists_containers_and_init_containers_sorted() -> None:
    spec: JsonObject = {
        "initContainers": [{"name": "initializer"}],
        "containers": [{"name": "node", "resources": {"limits": {"memory": "1Gi"}}}],
    }
    compute = quota("compute", {"limits.cpu": "64", "limits.memory": "256Gi", "requests.cpu": "64"})
    refusal = admit([compute], Target("", "pods", {"spec": spec}), NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "failed quota: compute: must specify limits.cpu for: initializer,node; "
        "limits.memory for: initializer; requests.cpu for: initializer,node"
    )


def test_must_specify_of_any_quota_comes_before_exceeded_of_another() -> None:
    quotas = ordered(
        [quota("b-compute", {"limits.cpu": "64"}), quota("a-gpu", {"requests.nvidia.com/gpu": "1"})]
    )
    refusal = admit(quotas, node(), NEWEST)
    assert refusal is not None
    assert refusal.quota == "b-compute"
    assert refusal.message == "failed quota: b-compute: must specify limits.cpu for: node"


def test_a_limit_range_default_satisfies_the_must_specify_rule() -> None:
    defaults = limit_range_from_json(
        {
            "metadata": {"name": "defaults"},
            "spec": {"limits": [{"type": "Container", "default": {"cpu": "16"}}]},
        }
    )
    decision = admit_pod([defaults], node().spec, NEWEST)
    assert decision.refusal is None
    defaulted = Target("", "pods", {"spec": decision.spec})
    assert admit([quota("compute", {"limits.cpu": "64"})], defaulted, NEWEST) is None
    refusal = admit([quota("compute", {"limits.cpu": "8"})], defaulted, NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: compute, requested: limits.cpu=16, used: limits.cpu=0, "
        "limited: limits.cpu=8"
    )


def test_several_exceeded_resources_are_sorted_and_printed_canonically() -> None:
    compute = quota("compute", {"requests.memory": "8Gi", "cpu": "4", "pods": "10"})
    refusal = admit([compute], node(), NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: compute, requested: cpu=8,requests.memory=16Gi, "
        "used: cpu=0,requests.memory=0, limited: cpu=4,requests.memory=8Gi"
    )


def test_priority_class_scopes() -> None:
    high: JsonObject = {
        "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
    }
    low_or_none: JsonObject = {
        "matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "NotIn", "values": ["high"]}
        ]
    }
    unset: JsonObject = {
        "matchExpressions": [{"scopeName": "PriorityClass", "operator": "DoesNotExist"}]
    }
    hard: JsonObject = {"requests.nvidia.com/gpu": "0"}
    cases: list[tuple[JsonObject, str | None, bool]] = [
        (high, "high", True),
        (high, None, False),
        (low_or_none, "high", False),
        (low_or_none, None, True),
        (low_or_none, "low", True),
        (unset, None, True),
        (unset, "low", False),
    ]
    for selector, priority, refused in cases:
        more: JsonObject = {"priorityClassName": priority} if priority else {}
        refusal = admit([quota("scoped", hard, scopeSelector=selector)], node("4", more), NEWEST)
        assert (refusal is not None) is refused, (selector, priority)


def test_terminating_scope_reads_the_pod_s_own_deadline() -> None:
    terminating = quota("batch", {"pods": "0"}, scopes=["Terminating"])
    assert admit([terminating], node(), NEWEST) is None
    refusal = admit([terminating], node(extra={"activeDeadlineSeconds": 3600}), NEWEST)
    assert refusal is not None
    assert (
        refusal.message == "exceeded quota: batch, requested: pods=1, used: pods=0, limited: pods=0"
    )


def test_object_counts() -> None:
    job = Target("batch", "jobs", {"metadata": {"name": "train-node-0"}})
    assert count_name("batch", "jobs") == "count/jobs.batch"
    counts = quota("counts", {"count/jobs.batch": "0", "count/jobsets.jobset.x-k8s.io": "5"})
    refusal = admit([counts], job, NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: counts, requested: count/jobs.batch=1, used: count/jobs.batch=0, "
        "limited: count/jobs.batch=0"
    )
    jobset = Target("jobset.x-k8s.io", "jobsets", {})
    assert admit([counts], jobset, NEWEST) is None
    scoped = quota("scoped", {"count/jobs.batch": "0"}, scopes=["NotTerminating"])
    assert admit([scoped], job, NEWEST) is None  # scoped quotas never select other kinds
    config_map = Target("", "configmaps", {})
    refusal = admit([quota("legacy", {"configmaps": "0"})], config_map, NEWEST)
    assert refusal is not None
    assert refusal.message.startswith("exceeded quota: legacy, requested: configmaps=1,")
    refusal = admit([quota("pods", {"pods": "0", "count/pods": "5"})], node(), NEWEST)
    assert refusal is not None
    assert (
        refusal.message == "exceeded quota: pods, requested: pods=1, used: pods=0, limited: pods=0"
    )


def test_claims_by_size_count_and_storage_class() -> None:
    storage = quota("storage", {"requests.storage": "100Gi", "persistentvolumeclaims": "10"})
    refusal = admit([storage], claim("200Gi"), NEWEST)
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: storage, requested: requests.storage=200Gi, "
        "used: requests.storage=0, limited: requests.storage=100Gi"
    )
    fast = quota("fast", {"fast.storageclass.storage.k8s.io/requests.storage": "1Ti"})
    assert admit([fast], claim("2Ti"), NEWEST) is None
    refusal = admit([fast], claim("2Ti", "fast"), NEWEST)
    assert refusal is not None
    assert "requested: fast.storageclass.storage.k8s.io/requests.storage=2Ti" in refusal.message
    annotated = Target(
        "",
        "persistentvolumeclaims",
        {
            "metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "fast"}},
            "spec": {"storageClassName": "slow", "resources": {"requests": {"storage": "2Ti"}}},
        },
    )
    assert admit([fast], annotated, NEWEST) is not None


def test_claim_storage_counts_in_whole_bytes() -> None:
    refusal = admit([quota("storage", {"requests.storage": "1"})], claim("1500m"), NEWEST)
    assert refusal is not None
    assert "requested: requests.storage=2," in refusal.message


def test_volume_attributes_class_scope_from_its_default_release() -> None:
    gold: JsonObject = {
        "matchExpressions": [
            {"scopeName": "VolumeAttributesClass", "operator": "In", "values": ["gold"]}
        ]
    }
    scoped = quota("gold", {"requests.storage": "1Gi"}, scopeSelector=gold)
    target = claim("10Gi")
    target.spec["volumeAttributesClassName"] = "gold"
    assert admit([scoped], target, (1, 34)) is not None
    assert admit([scoped], target, (1, 33)) is None  # any scope selects no claim before


def test_a_gang_that_fits_pod_by_pod_but_never_all_at_once() -> None:
    gpu = quota("gpu", {"requests.nvidia.com/gpu": "8", "requests.memory": "1Ti"})
    members = [Member(node(), 4)]
    assert admit([gpu], node(), NEWEST) is None
    counted = demand(gpu, members, NEWEST)
    assert (counted.objects, counted.resources) == (4, frozenset({"pods"}))
    assert counted.total == demand(gpu, [Member(node())] * 4, NEWEST).total
    found = shortfalls([gpu], members, NEWEST)
    assert [s.quota for s in found] == ["gpu"]
    assert found[0].message == (
        "quota 'gpu' can never admit all 4 pods of this gang at once: together they "
        "request requests.nvidia.com/gpu=16, but the quota allows requests.nvidia.com/gpu=8 "
        "in the whole namespace"
    )
    assert shortfalls([quota("gpu", {"requests.nvidia.com/gpu": "16"})], members, NEWEST) == []


def test_a_gang_counted_in_pods_and_jobs_is_counted_in_objects() -> None:
    counts = quota("counts", {"count/jobs.batch": "1", "pods": "8"})
    job = Target("batch", "jobs", {"metadata": {"name": "node"}, "spec": {}})
    [found] = shortfalls([counts], [Member(node(), 3), Member(job, 2)], NEWEST)
    assert found.message == (
        "quota 'counts' can never admit all 5 objects of this gang at once: together they "
        "request count/jobs.batch=2, but the quota allows count/jobs.batch=1 in the whole "
        "namespace"
    )


def test_a_gang_is_charged_only_where_a_quota_selects_its_pods() -> None:
    launcher = node("0", {"priorityClassName": "low"})
    workers = node("4", {"priorityClassName": "high"})
    high: JsonObject = {
        "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
    }
    scoped = quota("high-gpu", {"requests.nvidia.com/gpu": "8", "pods": "2"}, scopeSelector=high)
    found = shortfalls([scoped], [Member(launcher), Member(workers, 3)], NEWEST)
    assert len(found) == 1
    assert found[0].objects == 3
    assert found[0].message == (
        "quota 'high-gpu' can never admit all 3 pods of this gang at once: together they "
        "request pods=3,requests.nvidia.com/gpu=12, but the quota allows "
        "pods=2,requests.nvidia.com/gpu=8 in the whole namespace"
    )


#: GKE's configuration: the system classes only where a quota selects them.
CRITICAL = ScopeRequirement(
    "PriorityClass", "In", ("system-node-critical", "system-cluster-critical")
)
GPU_LIMITED = LimitedResource("", "pods", match_contains=("nvidia.com/gpu",))


def test_a_limited_resource_needs_a_quota_that_tracks_it() -> None:
    refusal = admit([], node(), NEWEST, limited=[GPU_LIMITED])
    assert refusal is not None
    assert (refusal.quota, refusal.message) == (
        "",
        "insufficient quota to consume: requests.nvidia.com/gpu",
    )
    memory = quota("memory", {"requests.memory": "1Ti"})
    assert admit([memory], node(), NEWEST, limited=[GPU_LIMITED]) is not None
    gpu = quota("gpu", {"requests.nvidia.com/gpu": "8"})
    assert admit([gpu], node(), NEWEST, limited=[GPU_LIMITED]) is None


def test_a_limited_resource_of_another_kind_limits_nothing_here() -> None:
    claims = LimitedResource("", "persistentvolumeclaims", match_contains=("nvidia.com/gpu",))
    assert admit([], node(), NEWEST, limited=[claims]) is None
    assert admit([], node("0"), NEWEST, limited=[GPU_LIMITED]) is None  # nothing consumed


def test_a_limited_scope_needs_a_quota_selecting_the_same_scope() -> None:
    limited = [LimitedResource("", "pods", match_scopes=(CRITICAL,))]
    critical = node(extra={"priorityClassName": "system-node-critical"})
    refusal = admit([], critical, NEWEST, limited=limited)
    assert refusal is not None
    assert refusal.message == (
        "insufficient quota to match these scopes: "
        "[{PriorityClass In [system-node-critical system-cluster-critical]}]"
    )
    assert admit([], node(), NEWEST, limited=limited) is None
    covering = quota(
        "critical",
        {"pods": "10"},
        scopeSelector={
            "matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["system-node-critical"]}
            ]
        },
    )
    assert admit([covering], critical, NEWEST, limited=limited) is None


def test_constraints_come_before_limited_resources() -> None:
    cpu = quota("cpu", {"limits.cpu": "64"})
    refusal = admit([cpu], node(), NEWEST, limited=[GPU_LIMITED])
    assert refusal is not None
    assert refusal.message.startswith("failed quota: cpu: must specify limits.cpu")
