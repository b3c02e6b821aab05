"""Pod-level resources against the containers': ``validatePodResourceConsistency``.

With pod-level ``resources`` (``PodLevelResources``, on by default from 1.34) the pod's
requests must cover what its containers request together, and no container may be
limited above the pod. The containers' total follows ``AggregateContainerRequests`` of
``k8s.io/component-helpers/resource``: regular and sidecar (``restartPolicy: Always``)
init containers add up, and each other init container needs its own request plus the
sidecars started before it; the pod needs the larger of the two. Container requests are
taken as the Pod will hold them, a missing request being its limit (``SetDefaults_Pod``).

Only resources the pod-level requests name are compared: the Pod's own defaulting fills
the rest from the containers, so a missing pod-level request never falls short.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import FieldError, Key, invalid
from trainc.checks.workload.quantities import Amount, resource_amounts
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object

POD_POD_RESOURCES = Rule(
    "pod.pod-resources",
    Severity.ERROR,
    "pod-level resources are invalid or below the containers'",
    doc=RuleDoc(
        what="pod-level resources below what the containers need, or claims at pod level",
        source="`validatePodResources`, `validatePodResourceConsistency`",
        versions="from 1.34 (`PodLevelResources`)",
    ),
)


#: Pod-level ``resources``: no claims, and room for what the containers ask.
POD_RESOURCES_CODE = POD_POD_RESOURCES.code

Totals = dict[str, Amount]


def pod_resource_consistency_errors(
    pod_spec: JsonObject, resources: JsonObject, path: FieldPath
) -> list[FieldError]:
    """Pod requests below the containers' total; container limits above the pod's."""
    errors: list[FieldError] = []
    pod_requests = resource_amounts(resources.get("requests"))
    for name, total in aggregate_container_requests(pod_spec).items():
        pod_request = pod_requests.get(name)
        if pod_request is not None and total.value > pod_request.value:
            errors.append(
                invalid(
                    (*path, "requests", Key(name)),
                    POD_RESOURCES_CODE,
                    str(pod_request),
                    f"must be greater than or equal to aggregate container requests of {total}",
                )
            )
    pod_limits = resource_amounts(resources.get("limits"))
    for index, container in enumerate(as_list(pod_spec.get("containers"))):
        limits = resource_amounts(as_object(as_object(container).get("resources")).get("limits"))
        for name, limit in limits.items():
            pod_limit = pod_limits.get(name)
            if pod_limit is not None and limit.value > pod_limit.value:
                errors.append(
                    invalid(
                        # Upstream builds this path below the pod-level resources.
                        (*path, "containers", index, Key(name), "limits"),
                        POD_RESOURCES_CODE,
                        str(limit),
                        f"must be less than or equal to pod limits of {pod_limit}",
                    )
                )
    return errors


def aggregate_container_requests(pod_spec: JsonObject) -> Totals:
    """What the pod's containers request together (the sidecar-aware formula)."""
    total: Totals = {}
    for container in as_list(pod_spec.get("containers")):
        _add(total, _pod_requests(container))
    sidecars: Totals = {}
    init_peak: Totals = {}
    for container in as_list(pod_spec.get("initContainers")):
        requests = _pod_requests(container)
        if as_object(container).get("restartPolicy") == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            _keep_max(init_peak, sidecars)
        else:
            running: Totals = {}
            _add(running, requests)
            _add(running, sidecars)
            _keep_max(init_peak, running)
    _keep_max(total, init_peak)
    return total


def _pod_requests(container: JsonValue) -> Totals:
    """A container's requests on the Pod: each missing request defaults to its limit."""
    resources = as_object(as_object(container).get("resources"))
    return resource_amounts(resources.get("limits")) | resource_amounts(resources.get("requests"))


def _add(into: Totals, amounts: Totals) -> None:
    for name, amount in amounts.items():
        held = into.get(name)
        into[name] = amount if held is None else Amount(held.value + amount.value, held.binary)


def _keep_max(into: Totals, amounts: Totals) -> None:
    for name, amount in amounts.items():
        held = into.get(name)
        if held is None or amount.value > held.value:
            into[name] = amount
