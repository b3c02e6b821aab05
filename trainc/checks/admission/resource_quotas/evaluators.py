"""What one object counts against a quota, per kind, as Kubernetes' quota evaluators say.

Three evaluators decide everything the plugin does for the objects a TrainJob makes the
cluster create:

- pods (https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/quota/v1/evaluator/core/pods.go):
  ``count/pods`` and ``pods``; ``requests.cpu``/``requests.memory``/
  ``requests.ephemeral-storage`` and their bare names (``cpu`` means the request);
  ``limits.*`` of the same three; hugepages as ``hugepages-<size>`` and
  ``requests.hugepages-<size>``; extended resources (``nvidia.com/gpu``) only as
  ``requests.<name>``, since they cannot be overcommitted. Amounts are the pod's totals
  (``PodRequests``/``PodLimits``: containers, init containers, sidecars, pod-level
  resources where the gate is on, overhead).
- PersistentVolumeClaims (``persistent_volume_claims.go``): ``persistentvolumeclaims``,
  ``count/persistentvolumeclaims``, ``requests.storage`` (rounded up to whole bytes), and
  both again per storage class as ``<class>.storageclass.storage.k8s.io/<name>``.
- everything else (``generic.NewObjectCountEvaluator`` in
  https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go):
  one ``count/<resource>.<group>`` (``count/jobs.batch``, ``count/configmaps``), plus the
  legacy name some core kinds keep (``configmaps``, ``secrets``). Scoped quotas never
  match these.

The pod evaluator alone has a constraint: the "must specify" rule of cpu and memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_UP, Decimal

from trainc.checks.admission.resource_lists import (
    POD_LEVEL_RESOURCES,
    ZERO,
    ResourceList,
    add,
    container_list,
    pod_level_resource,
    pod_level_set,
    pod_total,
)
from trainc.checks.admission.resource_quotas.quota import Quota, Selector, label_selector_matches
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.checks.workload.quantities import Amount, is_native_resource, resource_amounts
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue, as_list, as_object

#: The release whose defaults turn the VolumeAttributesClass gate on (GA).
VOLUME_ATTRIBUTES_CLASS: KubeVersion = (1, 34)

_ONE = Amount(Decimal(1), binary=False)
_COMPUTE = ("cpu", "memory", "ephemeral-storage")
_POD_RESOURCES = frozenset(
    {
        "count/pods",
        "pods",
        *_COMPUTE,
        *(f"requests.{n}" for n in _COMPUTE),
        *(f"limits.{n}" for n in _COMPUTE),
    }
)
#: The resources whose quota obliges every container to set them (upstream's ``validationSet``).
MUST_SPECIFY = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)
_STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"
_CLAIM_RESOURCES = ("persistentvolumeclaims", "requests.storage")
_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_LEGACY_COUNTS = {
    ("", "configmaps"): "configmaps",
    ("", "secrets"): "secrets",
    ("", "resourcequotas"): "resourcequotas",
    ("", "replicationcontrollers"): "replicationcontrollers",
}


@dataclass(frozen=True, slots=True)
class Target:
    """An object the cluster is asked to create: its API group, resource (plural), and JSON.

    ``obj`` is the whole object (``metadata``, ``spec``); a pod's is the one admission
    sees, after its defaulting and LimitRanger's (see
    :func:`trainc.checks.admission.limit_ranges.admit_pod`).
    """

    group: str
    resource: str
    obj: JsonObject
    old: JsonObject | None = None
    """The stored object an UPDATE replaces (``GetOldObject``); None for a CREATE."""

    @property
    def spec(self) -> JsonObject:
        """The object's ``spec``."""
        return as_object(self.obj.get("spec"))

    @property
    def is_pod(self) -> bool:
        """Whether the pod evaluator judges it."""
        return (self.group, self.resource) == ("", "pods")

    @property
    def is_claim(self) -> bool:
        """Whether the PersistentVolumeClaim evaluator judges it."""
        return (self.group, self.resource) == ("", "persistentvolumeclaims")


def count_name(group: str, resource: str) -> str:
    """``ObjectCountQuotaResourceNameFor``: ``count/jobs.batch``, ``count/pods``."""
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def _extended(name: str) -> bool:
    """``IsExtendedResourceName``: a vendor resource a quota can name as ``requests.<name>``."""
    return not is_native_resource(name) and not name.startswith("requests.")


def _quota_extended(name: str) -> bool:
    """``isExtendedResourceNameForQuota``: ``requests.`` and a vendor resource after it."""
    return name.startswith("requests.") and not is_native_resource(name)


def matching_resources(target: Target, names: list[str]) -> list[str]:
    """Of a quota's hard names, those the object's evaluator tracks (``MatchingResources``)."""
    if target.is_pod:
        return [
            name
            for name in names
            if name in _POD_RESOURCES
            or name.startswith(("hugepages-", "requests.hugepages-"))
            or _quota_extended(name)
        ]
    if target.is_claim:
        claim_names = {count_name("", "persistentvolumeclaims"), *_CLAIM_RESOURCES}
        suffixes = tuple(_STORAGE_CLASS_SUFFIX + name for name in _CLAIM_RESOURCES)
        return [name for name in names if name in claim_names or name.endswith(suffixes)]
    own = {count_name(target.group, target.resource)}
    legacy = _LEGACY_COUNTS.get((target.group, target.resource))
    if legacy:
        own.add(legacy)
    return [name for name in names if name in own]


def _compute_usage(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """``podComputeUsageHelper``: the quota names a set of requests and limits fills."""
    result: ResourceList = {"pods": _ONE}
    for name in _COMPUTE:
        if name in requests:
            result[name] = requests[name]
            result[f"requests.{name}"] = requests[name]
        if name in limits:
            result[f"limits.{name}"] = limits[name]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            result[name] = amount
            result[f"requests.{name}"] = amount
        if _extended(name):
            result[f"requests.{name}"] = amount
    return result


def pod_usage(spec: JsonObject, release: KubeVersion) -> ResourceList:
    """``PodUsageFunc`` for a pod being created (never terminal, so charged in full)."""
    pod_level = pod_level_resource if release >= POD_LEVEL_RESOURCES else None
    requests = pod_total(spec, "requests", pod_level=pod_level, overhead=True)
    limits = pod_total(spec, "limits", pod_level=pod_level, overhead=True)
    return add({"count/pods": _ONE}, _compute_usage(requests, limits))


def claim_class(claim: JsonObject) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation, else ``spec.storageClassName``."""
    annotations = as_object(as_object(claim.get("metadata")).get("annotations"))
    annotated = annotations.get(_STORAGE_CLASS_ANNOTATION)
    if isinstance(annotated, str):
        return annotated
    return text(as_object(claim.get("spec")).get("storageClassName")) or ""


def claim_usage(claim: JsonObject) -> ResourceList:
    """What a new claim counts: one claim, and its storage request in whole bytes."""
    result: ResourceList = {"persistentvolumeclaims": _ONE, "count/persistentvolumeclaims": _ONE}
    storage_class = claim_class(claim)
    if storage_class:
        result[storage_class + _STORAGE_CLASS_SUFFIX + "persistentvolumeclaims"] = _ONE
    resources = as_object(as_object(claim.get("spec")).get("resources"))
    requested = resource_amounts(resources.get("requests")).get("storage")
    if requested is not None:
        whole = Amount(requested.value.to_integral_value(rounding=ROUND_UP), requested.binary)
        result["requests.storage"] = whole
        if storage_class:
            result[storage_class + _STORAGE_CLASS_SUFFIX + "requests.storage"] = whole
    return result


def usage(target: Target, release: KubeVersion) -> ResourceList:
    """Everything one object being created counts, by its evaluator (``Usage``)."""
    if target.is_pod:
        return pod_usage(target.spec, release)
    if target.is_claim:
        return claim_usage(target.obj)
    result: ResourceList = {count_name(target.group, target.resource): _ONE}
    legacy = _LEGACY_COUNTS.get((target.group, target.resource))
    if legacy:
        result[legacy] = _ONE
    return result


def charged(target: Target, release: KubeVersion) -> ResourceList:
    """What the plugin charges for ``target``: its whole usage on a CREATE; on an UPDATE,
    nothing unless its evaluator handles updates (of a TrainJob's objects, only the claim
    evaluator's: the object-count evaluator's ``Handles`` is CREATE alone), and then only
    what grew over the old object's usage (``SubtractWithNonNegativeResult`` in
    ``CheckRequest``,
    https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go,
    zeros removed)."""
    new = usage(target, release)
    if target.old is None:
        return new
    if not target.is_claim:
        return {}
    before = usage(Target(target.group, target.resource, target.old), release)
    return {
        name: Amount(amount.value - before[name].value, amount.binary) if name in before else amount
        for name, amount in new.items()
        if amount.value > before.get(name, ZERO).value
    }


def terminating(spec: JsonObject) -> bool:
    """``IsTerminating``: the pod has ``activeDeadlineSeconds`` (0 or more).

    Only the pod's own field counts; a Job's ``spec.activeDeadlineSeconds`` is the Job
    controller's deadline and does not reach its pods.
    """
    deadline = integer(spec.get("activeDeadlineSeconds"))
    return spec.get("activeDeadlineSeconds") is not None and deadline is not None and deadline >= 0


def best_effort(spec: JsonObject, release: KubeVersion) -> bool:
    """``GetPodQOS(pod) == BestEffort``: no positive cpu or memory request or limit anywhere.

    Where the pod-level resources gate is on and the pod sets them, they decide alone.
    """
    if release >= POD_LEVEL_RESOURCES and pod_level_set(spec):
        sources = [as_object(spec.get("resources"))]
    else:
        sources = [
            as_object(container.get("resources"))
            for key in ("initContainers", "containers")
            for _, container in objects(spec.get(key))
        ]
    for resources in sources:
        for key in ("requests", "limits"):
            amounts = resource_amounts(resources.get(key))
            if any(amounts[n].value > 0 for n in ("cpu", "memory") if n in amounts):
                return False
    return True


def _affinity_terms(affinity: JsonValue) -> list[JsonObject]:
    section = as_object(affinity)
    required = [
        t for _, t in objects(section.get("requiredDuringSchedulingIgnoredDuringExecution"))
    ]
    preferred = [
        as_object(t.get("podAffinityTerm"))
        for _, t in objects(section.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ]
    return required + preferred


def cross_namespace_affinity(spec: JsonObject) -> bool:
    """``usesCrossNamespacePodAffinity``: a pod (anti-)affinity term names other namespaces."""
    affinity = as_object(spec.get("affinity"))
    terms = _affinity_terms(affinity.get("podAffinity")) + _affinity_terms(
        affinity.get("podAntiAffinity")
    )
    return any(
        bool(as_list(term.get("namespaces"))) or term.get("namespaceSelector") is not None
        for term in terms
    )


def _priority_class(selector: Selector, spec: JsonObject) -> bool:
    """The PriorityClass scope: ``Exists`` asks for any class, other operators read the name."""
    priority_class = text(spec.get("priorityClassName")) or ""
    if selector.operator == "Exists":
        return bool(priority_class)
    labels = {"PriorityClass": priority_class} if priority_class else {}
    return label_selector_matches(selector, labels)


_POD_SCOPES: dict[str, Callable[[JsonObject, KubeVersion], bool]] = {
    "Terminating": lambda spec, _: terminating(spec),
    "NotTerminating": lambda spec, _: not terminating(spec),
    "BestEffort": best_effort,
    "NotBestEffort": lambda spec, release: not best_effort(spec, release),
    "CrossNamespacePodAffinity": lambda spec, _: cross_namespace_affinity(spec),
}


def _pod_scope(selector: Selector, spec: JsonObject, release: KubeVersion) -> bool:
    """``podMatchesScopeFunc``: an unknown scope selects no pod."""
    if selector.scope == "PriorityClass":
        return _priority_class(selector, spec)
    predicate = _POD_SCOPES.get(selector.scope)
    return predicate is not None and predicate(spec, release)


def _claim_scope(selector: Selector, claim: JsonObject) -> bool:
    """``pvcMatchesScopeFunc``: only the VolumeAttributesClass scope applies to claims."""
    if selector.scope != "VolumeAttributesClass":
        return False
    name = text(as_object(claim.get("spec")).get("volumeAttributesClassName")) or ""
    if selector.operator == "Exists":
        return bool(name)
    return label_selector_matches(selector, {"VolumeAttributesClass": name} if name else {})


def scope_matches(selector: Selector, target: Target, release: KubeVersion) -> bool:
    """Whether one scope selector of a quota selects the object."""
    if target.is_pod:
        return _pod_scope(selector, target.spec, release)
    if target.is_claim and release >= VOLUME_ATTRIBUTES_CLASS:
        return _claim_scope(selector, target.obj)
    return False  # MatchesNoScopeFunc


def matches(quota: Quota, target: Target, release: KubeVersion) -> bool:
    """``generic.Matches``: it tracks one of the object's resources and every scope selects it."""
    if not matching_resources(target, list(quota.hard)):
        return False
    return all(scope_matches(selector, target, release) for selector in quota.selectors)


def missing(target: Target, required: list[str], release: KubeVersion) -> str | None:
    """The pod evaluator's ``Constraints``: ``must specify limits.cpu for: a,b; …``, or None.

    A quota on cpu or memory (bare, ``requests.`` or ``limits.``) obliges every container
    and init container to set it; the names are listed sorted, without spaces, per
    resource in sorted order. From the release where pod-level resources are on, a pod
    that sets them is exempt.
    """
    if not target.is_pod:
        return None
    spec = target.spec
    if release >= POD_LEVEL_RESOURCES and pod_level_set(spec):
        return None
    wanted = MUST_SPECIFY.intersection(required)
    lacking: dict[str, set[str]] = {}
    for key in ("containers", "initContainers"):
        for _, container in objects(spec.get(key)):
            have = _compute_usage(
                container_list(container, "requests"), container_list(container, "limits")
            )
            for name in wanted.difference(have):
                lacking.setdefault(name, set()).add(text(container.get("name")) or "")
    if not lacking:
        return None
    parts = [f"{name} for: {','.join(sorted(lacking[name]))}" for name in sorted(lacking)]
    return "must specify " + "; ".join(parts)
