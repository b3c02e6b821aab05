"""ResourceQuota cases, written from Kubernetes' own tests of the evaluators and the plugin.

``TestPodConstraintsFunc``, ``TestPodEvaluatorUsage`` and ``TestPodEvaluatorMatchingScopes``
in https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/quota/v1/evaluator/core/pods_test.go,
``TestPersistentVolumeClaimEvaluatorUsage`` in ``persistent_volume_claims_test.go`` next to
it, and the ``TestAdmit*`` cases of
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/resourcequota/admission_test.go
(those whose verdict does not depend on the plugin's ``limitedResources`` configuration,
which trainc does not model). Upstream's pods there have unnamed containers; so do these.
Upstream sets a gate per case; here a case names the release whose defaults it needs
(pod-level resources are on from 1.34).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.checks.admission.limit_ranges.corpus import lists
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue

NEWEST: KubeVersion = (1, 36)
BEFORE_POD_LEVEL: KubeVersion = (1, 33)


def res(requests: JsonObject | None = None, limits: JsonObject | None = None) -> JsonObject:
    """A container's ``resources``."""
    found: JsonObject = {}
    if requests is not None:
        found["requests"] = requests
    if limits is not None:
        found["limits"] = limits
    return found


def ctr(resources: JsonObject, name: str | None = None) -> JsonObject:
    """A container; unnamed unless ``name`` is given, as in upstream's tests."""
    found: JsonObject = {"resources": resources}
    if name is not None:
        found["name"] = name
    return found


def spec(
    *containers: JsonObject, init: list[JsonObject] | None = None, **more: JsonValue
) -> JsonObject:
    """A pod spec with containers, init containers and other fields."""
    found: JsonObject = {"containers": list[JsonValue](containers)}
    if init is not None:
        found["initContainers"] = list[JsonValue](init)
    found.update(more)
    return found


@dataclass(frozen=True)
class ConstraintCase:
    """A pod, the quota's tracked resources, and the ``must specify`` text (None: none)."""

    name: str
    spec: JsonObject
    required: list[str]
    expect: str | None
    release: KubeVersion = NEWEST


CPU_1M_2M = res({"cpu": "1m"}, {"cpu": "2m"})

CONSTRAINTS = [
    ConstraintCase(
        "init container resource missing",
        {"initContainers": [ctr(CPU_1M_2M, "dummy")]},
        ["memory"],
        "must specify memory for: dummy",
    ),
    ConstraintCase(
        "multiple init container resource missing",
        {"initContainers": [ctr(CPU_1M_2M, "foo"), ctr(CPU_1M_2M, "bar")]},
        ["memory"],
        "must specify memory for: bar,foo",
    ),
    ConstraintCase(
        "container resource missing",
        spec(ctr(CPU_1M_2M, "dummy")),
        ["memory"],
        "must specify memory for: dummy",
    ),
    ConstraintCase(
        "multiple container resource missing",
        spec(ctr(CPU_1M_2M, "foo"), ctr(CPU_1M_2M, "bar")),
        ["memory"],
        "must specify memory for: bar,foo",
    ),
    ConstraintCase(
        "container resource missing multiple",
        spec(ctr({}, "foo"), ctr({}, "bar")),
        ["memory", "cpu"],
        "must specify cpu for: bar,foo; memory for: bar,foo",
    ),
    ConstraintCase(
        "pod-level resource set, container-level required resources missing",
        spec(ctr({}, "foo"), ctr({}, "bar"), resources={"requests": {"cpu": "1m"}}),
        ["memory", "cpu"],
        None,
    ),
    # trainc's: the same pod where the pod-level resources gate is still off by default.
    ConstraintCase(
        "pod-level resource set before the gate is on",
        spec(ctr({}, "foo"), ctr({}, "bar"), resources={"requests": {"cpu": "1m"}}),
        ["memory", "cpu"],
        "must specify cpu for: bar,foo; memory for: bar,foo",
        BEFORE_POD_LEVEL,
    ),
]


@dataclass(frozen=True)
class UsageCase:
    """A pod and what it counts against quota, amounts as upstream writes them."""

    name: str
    spec: JsonObject
    usage: dict[str, str]
    release: KubeVersion = NEWEST


def counted(**amounts: str) -> dict[str, str]:
    """A usage with the pod counts every new pod has (``pods``, ``count/pods``)."""
    return {"pods": "1", "count/pods": "1", **amounts}


DONGLE = "example.com/dongle"

USAGE = [
    UsageCase(
        "init container CPU",
        spec(init=[ctr(CPU_1M_2M)]),
        counted(**{"requests.cpu": "1m", "limits.cpu": "2m", "cpu": "1m"}),
    ),
    UsageCase(
        "init container MEM",
        spec(init=[ctr(res({"memory": "1m"}, {"memory": "2m"}))]),
        counted(**{"requests.memory": "1m", "limits.memory": "2m", "memory": "1m"}),
    ),
    UsageCase(
        "init container local ephemeral storage",
        spec(init=[ctr(res({"ephemeral-storage": "32Mi"}, {"ephemeral-storage": "64Mi"}))]),
        counted(
            **{
                "ephemeral-storage": "32Mi",
                "requests.ephemeral-storage": "32Mi",
                "limits.ephemeral-storage": "64Mi",
            }
        ),
    ),
    UsageCase(
        "init container hugepages",
        spec(init=[ctr(res({"hugepages-2Mi": "100Mi"}))]),
        counted(**{"hugepages-2Mi": "100Mi", "requests.hugepages-2Mi": "100Mi"}),
    ),
    UsageCase(
        "container extended resources",
        spec(ctr(res({DONGLE: "3"}, {DONGLE: "3"}))),
        counted(**{"requests.example.com/dongle": "3"}),
    ),
    UsageCase(
        "init container maximums override sum of containers",
        spec(
            ctr(
                res(
                    {"cpu": "1", "memory": "50M", DONGLE: "1"},
                    {"cpu": "2", "memory": "100M", DONGLE: "1"},
                )
            ),
            ctr(
                res(
                    {"cpu": "2", "memory": "25M", DONGLE: "2"},
                    {"cpu": "5", "memory": "50M", DONGLE: "2"},
                )
            ),
            init=[
                ctr(
                    res(
                        {"cpu": "4", "memory": "100M", DONGLE: "4"},
                        {"cpu": "8", "memory": "200M", DONGLE: "4"},
                    )
                ),
                ctr(
                    res(
                        {"cpu": "1", "memory": "50M", DONGLE: "2"},
                        {"cpu": "2", "memory": "100M", DONGLE: "2"},
                    )
                ),
            ],
        ),
        counted(
            **{
                "requests.cpu": "4",
                "requests.memory": "100M",
                "limits.cpu": "8",
                "limits.memory": "200M",
                "cpu": "4",
                "memory": "100M",
                "requests.example.com/dongle": "4",
            }
        ),
    ),
    UsageCase(
        "count pod overhead as usage",
        spec(ctr(res({"cpu": "1"}, {"cpu": "2"})), overhead={"cpu": "1"}),
        counted(**{"requests.cpu": "2", "limits.cpu": "3", "cpu": "2"}),
    ),
    UsageCase(
        "pod-level CPU",
        {"resources": {"requests": {"cpu": "1m"}, "limits": {"cpu": "2m"}}},
        counted(**{"requests.cpu": "1m", "limits.cpu": "2m", "cpu": "1m"}),
    ),
    UsageCase(
        "pod-level memory with container-level ephemeral storage",
        spec(
            ctr(res({"ephemeral-storage": "32Mi"}, {"ephemeral-storage": "64Mi"})),
            resources={"requests": {"memory": "1Mi"}, "limits": {"memory": "2Mi"}},
        ),
        counted(
            **{
                "ephemeral-storage": "32Mi",
                "requests.ephemeral-storage": "32Mi",
                "limits.ephemeral-storage": "64Mi",
                "requests.memory": "1Mi",
                "limits.memory": "2Mi",
                "memory": "1Mi",
            }
        ),
    ),
]


@dataclass(frozen=True)
class ScopeCase:
    """A pod and which of the pod scopes select it (``TestPodEvaluatorMatchingScopes``)."""

    name: str
    spec: JsonObject
    scopes: list[str]


NOT_BEST_EFFORT = res(
    {"cpu": "1", "memory": "50M", DONGLE: "1"}, {"cpu": "2", "memory": "100M", DONGLE: "1"}
)
CROSS_NAMESPACE_TERM: JsonObject = {"namespaces": ["ns1"], "topologyKey": "kubernetes.io/hostname"}

SCOPES = [
    ScopeCase("EmptyPod", {}, ["NotTerminating", "BestEffort"]),
    ScopeCase(
        "PriorityClass",
        {"priorityClassName": "class1"},
        ["NotTerminating", "BestEffort", "PriorityClass In [class1]"],
    ),
    ScopeCase("NotBestEffort", spec(ctr(NOT_BEST_EFFORT)), ["NotTerminating", "NotBestEffort"]),
    ScopeCase("Terminating", {"activeDeadlineSeconds": 30}, ["Terminating", "BestEffort"]),
    ScopeCase(
        "CrossNamespaceAffinity",
        {
            "activeDeadlineSeconds": 30,
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [CROSS_NAMESPACE_TERM]
                }
            },
        },
        ["Terminating", "BestEffort", "CrossNamespacePodAffinity"],
    ),
    ScopeCase(
        "CrossNamespaceAntiAffinityWithSelector",
        {
            "affinity": {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "podAffinityTerm": {"namespaceSelector": {}, "topologyKey": "zone"},
                        }
                    ]
                }
            },
        },
        ["NotTerminating", "BestEffort", "CrossNamespacePodAffinity"],
    ),
]


@dataclass(frozen=True)
class AdmitCase:
    """A quota (hard, used, scopes), a pod, and the plugin's refusal (None: admitted)."""

    name: str
    hard: JsonObject
    spec: JsonObject
    expect: str | None
    used: dict[str, str] = field(default_factory=dict)
    quota_spec: JsonObject = field(default_factory=dict)


HARD: JsonObject = {"cpu": "3", "memory": "100Gi", "pods": "5"}
USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}

ADMIT = [
    AdmitCase(
        "TestAdmitBelowQuotaLimit",
        HARD,
        spec(ctr(res(lists("100m", "2Gi")))),
        None,
        USED,
    ),
    AdmitCase(
        "TestAdmitExceedQuotaLimit",
        HARD,
        spec(ctr(res(lists("3", "2Gi")))),
        "exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3",
        USED,
    ),
    AdmitCase(
        "TestAdmitEnforceQuotaConstraints",
        {"cpu": "3", "memory": "100Gi", "limits.memory": "200Gi", "pods": "5"},
        spec(ctr(res(lists("100m", "2Gi"), lists("200m")))),
        "failed quota: quota: must specify limits.memory for: ",
        {"cpu": "1", "memory": "50Gi", "limits.memory": "100Gi", "pods": "3"},
    ),
    AdmitCase(
        "quota fails, though covering quota for limited scope PriorityClassNameExists exists",
        {"memory": "10Gi"},
        spec(ctr(res(lists("3", "20Gi"))), priorityClassName="fake-priority"),
        "exceeded quota: quota, requested: memory=20Gi, used: memory=1Gi, limited: memory=10Gi",
        {"memory": "1Gi"},
        {
            "scopeSelector": {
                "matchExpressions": [{"scopeName": "PriorityClass", "operator": "Exists"}]
            }
        },
    ),
    AdmitCase(
        "Pod has different priorityclass than the quota's PriorityClassIn",
        {"cpu": "1"},
        spec(ctr(res(lists("3", "2Gi"))), priorityClassName="fake-priority"),
        None,
        {},
        {
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": "In", "values": ["cluster-services"]}
                ]
            }
        },
    ),
    AdmitCase(
        "terminating pod not charged to NotTerminating (as TestAdmitBelowTerminatingQuotaLimit)",
        {"cpu": "1"},
        spec(ctr(res(lists("3", "2Gi"))), activeDeadlineSeconds=60),
        None,
        {},
        {"scopes": ["NotTerminating"]},
    ),
    AdmitCase(
        "burstable pod not charged to BestEffort (TestAdmitBestEffortQuotaLimitIgnoresBurstable)",
        {"pods": "1"},
        spec(ctr(res(lists("100m", "1Gi")))),
        None,
        {"pods": "1"},
        {"scopes": ["BestEffort"]},
    ),
    AdmitCase(
        "a best-effort pod is charged to a BestEffort quota",
        {"pods": "1"},
        spec(ctr(res())),
        "exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1",
        {"pods": "1"},
        {"scopes": ["BestEffort"]},
    ),
]
