"""LimitRanger cases, written from Kubernetes' own tests of the plugin.

``TestPodLimitFunc``, ``TestPersistentVolumeClaimLimitFunc``,
``TestMergePodResourceRequirements`` and ``TestPodLimitFuncApplyDefault`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/limitranger/admission_test.go.
Upstream's tests build LimitRanges in memory (no storage defaulting) and run the mutating
half, then the validating half, on the pod as written (no pod defaulting); the cases
here are replayed the same way, each with the refusal the validating half words (upstream
only asserts that there is one; the text is its ``fmt.Errorf``). Cases with several
containers breaking the same rule check that the aggregate drops repeats. Two admitted
cases (``-at-max``, ``-within``) are trainc's: the refused upstream pod, brought within bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue

#: The release the cases are judged on (upstream's tests run with gates at their defaults).
NEWEST: KubeVersion = (1, 36)


@dataclass(frozen=True)
class Case:
    """One LimitRange item, a pod spec, and the refusal expected (None: admitted)."""

    name: str
    item: JsonObject
    spec: JsonObject
    expect: str | None


def lists(cpu: str = "", memory: str = "") -> JsonObject:
    """``getComputeResourceList``: cpu and memory, each only when given."""
    found: JsonObject = {}
    if cpu:
        found["cpu"] = cpu
    if memory:
        found["memory"] = memory
    return found


def storage(amount: str) -> JsonObject:
    """``getLocalStorageResourceList``: ephemeral storage when given."""
    return {"ephemeral-storage": amount} if amount else {}


def pod(count: int, requests: JsonObject, limits: JsonObject) -> JsonObject:
    """``validPod``: ``count`` containers ``foo-0``... with the same requests and limits."""
    containers: list[JsonValue] = [
        {"name": f"foo-{index}", "resources": {"requests": requests, "limits": limits}}
        for index in range(count)
    ]
    return {"containers": containers}


def with_init(spec: JsonObject, requests: JsonObject, limits: JsonObject) -> JsonObject:
    """``validPodInit``: the pod with one init container."""
    init: JsonObject = {"name": "foo-init", "resources": {"requests": requests, "limits": limits}}
    return {**spec, "initContainers": [init]}


def with_sidecar(spec: JsonObject, requests: JsonObject, limits: JsonObject) -> JsonObject:
    """``withRestartableInitContainer``: the pod with one sidecar."""
    init: JsonObject = {
        "name": "foo-0",
        "restartPolicy": "Always",
        "resources": {"requests": requests, "limits": limits},
    }
    return {**spec, "initContainers": [init]}


def item(
    kind: str,
    minimum: JsonObject | None = None,
    maximum: JsonObject | None = None,
    ratio: JsonObject | None = None,
) -> JsonObject:
    """``createLimitRange``: one item of ``kind`` (no defaults, as upstream's tests build it)."""
    found: JsonObject = {"type": kind}
    if minimum:
        found["min"] = minimum
    if maximum:
        found["max"] = maximum
    if ratio:
        found["maxLimitRequestRatio"] = ratio
    return found


C, P = "Container", "Pod"
NONE = lists()

ADMITTED = [
    Case("ctr-min-cpu-request", item(C, lists("50m")), pod(1, lists("100m"), NONE), None),
    Case(
        "ctr-min-cpu-request-limit",
        item(C, lists("50m")),
        pod(1, lists("100m"), lists("200m")),
        None,
    ),
    Case(
        "ctr-min-memory-request",
        item(C, lists(memory="50Mi")),
        pod(1, lists(memory="60Mi"), NONE),
        None,
    ),
    Case(
        "ctr-min-memory-request-limit",
        item(C, lists(memory="50Mi")),
        pod(1, lists(memory="60Mi"), lists(memory="100Mi")),
        None,
    ),
    Case(
        "ctr-max-cpu-request-limit",
        item(C, maximum=lists("2")),
        pod(1, lists("500m"), lists("1")),
        None,
    ),
    Case("ctr-max-cpu-limit", item(C, maximum=lists("2")), pod(1, NONE, lists("1")), None),
    Case(
        "ctr-max-mem-request-limit",
        item(C, maximum=lists(memory="1Gi")),
        pod(1, lists(memory="250Mi"), lists(memory="500Mi")),
        None,
    ),
    Case(
        "ctr-max-cpu-ratio", item(C, ratio=lists("1.5")), pod(1, lists("500m"), lists("750m")), None
    ),
    Case(
        "ctr-max-mem-limit",
        item(C, maximum=lists(memory="1Gi")),
        pod(1, NONE, lists(memory="500Mi")),
        None,
    ),
    Case("pod-min-cpu-request", item(P, lists("100m")), pod(2, lists("75m"), NONE), None),
    Case(
        "pod-min-cpu-request-limit",
        item(P, lists("100m")),
        pod(2, lists("75m"), lists("200m")),
        None,
    ),
    Case(
        "pod-min-memory-request",
        item(P, lists(memory="100Mi")),
        pod(2, lists(memory="60Mi"), NONE),
        None,
    ),
    Case(
        "pod-min-memory-request-limit",
        item(P, lists(memory="100Mi")),
        pod(2, lists(memory="60Mi"), lists(memory="100Mi")),
        None,
    ),
    Case(
        "pod-max-cpu-request-limit",
        item(P, maximum=lists("2")),
        pod(2, lists("500m"), lists("1")),
        None,
    ),
    Case("pod-max-cpu-limit", item(P, maximum=lists("2")), pod(2, NONE, lists("1")), None),
    Case(
        "pod-max-mem-request-limit",
        item(P, maximum=lists(memory="1Gi")),
        pod(2, lists(memory="250Mi"), lists(memory="500Mi")),
        None,
    ),
    Case(
        "pod-max-mem-limit",
        item(P, maximum=lists(memory="1Gi")),
        pod(2, NONE, lists(memory="500Mi")),
        None,
    ),
    Case(
        "pod-max-mem-ratio",
        item(P, maximum=lists(memory="2Gi"), ratio=lists(memory="1.5")),
        pod(3, lists(memory="300Mi"), lists(memory="450Mi")),
        None,
    ),
    Case(
        "pod-init-max-mem-limit-at-max",
        item(P, maximum=lists(memory="1Gi")),
        with_init(pod(1, NONE, lists(memory="500Mi")), NONE, lists(memory="1Gi")),
        None,
    ),
    Case(
        "ctr-max-cpu-limit-restartable-init-container-within",
        item(P, maximum=lists("2")),
        with_sidecar(pod(1, lists("1000m"), lists("1500m")), lists("500m"), NONE),
        None,
    ),
]

REFUSED = [
    Case(
        "ctr-min-cpu-request",
        item(C, lists("50m")),
        pod(1, lists("40m"), NONE),
        "minimum cpu usage per Container is 50m, but request is 40m",
    ),
    Case(
        "ctr-min-cpu-request-limit",
        item(C, lists("50m")),
        pod(1, lists("40m"), lists("200m")),
        "minimum cpu usage per Container is 50m, but request is 40m",
    ),
    Case(
        "ctr-min-cpu-no-request-limit",
        item(C, lists("50m")),
        pod(1, NONE, NONE),
        "minimum cpu usage per Container is 50m.  No request is specified",
    ),
    Case(
        "ctr-min-memory-request",
        item(C, lists(memory="50Mi")),
        pod(1, lists(memory="40Mi"), NONE),
        "minimum memory usage per Container is 50Mi, but request is 40Mi",
    ),
    Case(
        "ctr-min-memory-no-request-limit",
        item(C, lists(memory="50Mi")),
        pod(1, NONE, NONE),
        "minimum memory usage per Container is 50Mi.  No request is specified",
    ),
    Case(
        "ctr-max-cpu-request-limit",
        item(C, maximum=lists("2")),
        pod(1, lists("500m"), lists("2500m")),
        "maximum cpu usage per Container is 2, but limit is 2500m",
    ),
    Case(
        "ctr-max-cpu-limit",
        item(C, maximum=lists("2")),
        pod(1, NONE, lists("2500m")),
        "maximum cpu usage per Container is 2, but limit is 2500m",
    ),
    Case(
        "ctr-max-cpu-no-request-limit",
        item(C, maximum=lists("2")),
        pod(1, NONE, NONE),
        "maximum cpu usage per Container is 2.  No limit is specified",
    ),
    Case(
        "ctr-max-cpu-ratio",
        item(C, ratio=lists("1")),
        pod(1, lists("1250m"), lists("2500m")),
        "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000",
    ),
    Case(
        "ctr-max-mem-request-limit",
        item(C, maximum=lists(memory="1Gi")),
        pod(1, lists(memory="250Mi"), lists(memory="2Gi")),
        "maximum memory usage per Container is 1Gi, but limit is 2Gi",
    ),
    Case(
        "ctr-max-mem-no-request-limit",
        item(C, maximum=lists(memory="1Gi")),
        pod(1, NONE, NONE),
        "maximum memory usage per Container is 1Gi.  No limit is specified",
    ),
    Case(
        "pod-min-cpu-request",
        item(P, lists("100m")),
        pod(1, lists("75m"), NONE),
        "minimum cpu usage per Pod is 100m, but request is 75m",
    ),
    Case(
        "pod-min-memory-request-limit",
        item(P, lists(memory="100Mi")),
        pod(1, lists(memory="60Mi"), lists(memory="100Mi")),
        "minimum memory usage per Pod is 100Mi, but request is 60Mi",
    ),
    Case(
        "pod-max-cpu-request-limit",
        item(P, maximum=lists("2")),
        pod(3, lists("500m"), lists("1")),
        "maximum cpu usage per Pod is 2, but limit is 3",
    ),
    Case(
        "pod-max-mem-limit",
        item(P, maximum=lists(memory="1Gi")),
        pod(3, NONE, lists(memory="500Mi")),
        "maximum memory usage per Pod is 1Gi, but limit is 1500Mi",
    ),
    Case(
        "pod-init-max-mem-limit",
        item(P, maximum=lists(memory="1Gi")),
        with_init(pod(1, NONE, lists(memory="500Mi")), NONE, lists(memory="1.5Gi")),
        "maximum memory usage per Pod is 1Gi, but limit is 1536Mi",
    ),
    Case(
        "pod-max-mem-ratio",
        item(P, maximum=lists(memory="2Gi"), ratio=lists(memory="1.5")),
        pod(3, lists(memory="250Mi"), lists(memory="500Mi")),
        "memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000",
    ),
    Case(
        "ctr-1-min-local-ephemeral-storage-request",
        item(C, storage("50Mi")),
        pod(1, storage("40Mi"), NONE),
        "minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi",
    ),
    Case(
        "ctr-2-max-local-ephemeral-storage-no-request-limit",
        item(C, maximum=storage("1Gi")),
        pod(2, NONE, NONE),
        "maximum ephemeral-storage usage per Container is 1Gi.  No limit is specified",
    ),
    Case(
        "pod-max-local-ephemeral-storage-limit",
        item(P, maximum=storage("1Gi")),
        pod(3, NONE, storage("500Mi")),
        "maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1500Mi",
    ),
    Case(
        "ctr-max-cpu-limit-restartable-init-container",
        item(P, maximum=lists("2")),
        with_sidecar(pod(1, lists("1000m"), lists("1500m")), lists("1500m"), NONE),
        "maximum cpu usage per Pod is 2, but request is 2500m",
    ),
]


@dataclass(frozen=True)
class ClaimCase:
    """A PersistentVolumeClaim item, the claim's storage request, and the refusal expected."""

    name: str
    item: JsonObject
    request: str
    expect: str | None


V = "PersistentVolumeClaim"


def storage_of(amount: str) -> JsonObject:
    """A claim's storage amount."""
    return {"storage": amount}


GI: JsonObject = {"storage": "1Gi"}

CLAIMS = [
    ClaimCase("pvc-is-min-storage-request", item(V, GI), "1Gi", None),
    ClaimCase("pvc-is-max-storage-request", item(V, maximum=GI), "1Gi", None),
    ClaimCase("pvc-no-minmax-storage-request", item(V), "100Gi", None),
    ClaimCase(
        "pvc-within-minmax-storage-request",
        item(V, GI, storage_of("10Gi")),
        "5Gi",
        None,
    ),
    ClaimCase(
        "pvc-below-min-storage-request",
        item(V, GI),
        "500Mi",
        "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi",
    ),
    ClaimCase(
        "pvc-exceeds-max-storage-request",
        item(V, GI, GI),
        "100Gi",
        "maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Gi",
    ),
]
