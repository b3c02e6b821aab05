"""Whether a policy's ``matchConstraints`` or a binding's ``matchResources`` select a request.

``Matcher.Matches`` in
https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go,
with the predicates it shares with admission webhooks (``webhook/predicates/namespace``,
``object`` and ``rules``): the namespace selector against the labels of the request's
Namespace (of the Namespace itself when one is created; cluster-scoped objects pass), the
object selector against the new or the old object's labels, then ``excludeResourceRules``
(a match excludes), then ``resourceRules`` (none at all matches everything): operation,
group, version, resource and sub-resource (``*``, ``res/*``, ``*/sub``), scope, and
``resourceNames`` against the request's name.

``matchPolicy: Equivalent`` (the default) also tries the rules on the resources the
server serves as equivalent to the request's (``EquivalentResourcesFor``: the same
objects under another group or version, as HPAs under ``autoscaling/v1`` and ``v2``), in
the include and the exclude rules alike; ``Exact`` does not. In the releases trainc models
(1.29 to 1.36) every resource a TrainJob makes the cluster see (pods, jobs, cronjobs,
jobsets, podgroups, claims, ConfigMaps, Namespaces, the sweeper's RBAC objects) is served
under one group and version, so the request's resource is its only equivalent and both
policies select the same requests. A rule naming a version no longer served
(``batch/v1beta1`` CronJobs and ``policy/v1beta1`` went in 1.25) is stored without
complaint and matches nothing under either policy: the equivalents are served resources
only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trainc.checks.admission.policies.model import MatchResources, Rule
from trainc.checks.admission.policies.request import Request, labels_of, namespace_labels
from trainc.checks.workload.selectors import selector_matches
from trainc.model.json import JsonObject


@dataclass(frozen=True, slots=True)
class Unknown:
    """The match cannot be decided offline, and why."""

    reason: str


def _wild(allowed: tuple[str, ...], value: str) -> bool:
    return "*" in allowed or value in allowed


def _resource_matches(allowed: tuple[str, ...], resource: str, sub_resource: str) -> bool:
    for entry in allowed:
        name, _, sub = entry.partition("/")
        if (name in ("*", resource)) and (sub in ("*", sub_resource)):
            return True
    return False


def _scope_matches(scope: str, request: Request) -> bool:
    if scope == "Cluster":
        return not request.resource.namespaced
    if scope == "Namespaced":
        return request.resource.namespaced
    return True


def rule_matches(rule: Rule, request: Request) -> bool:
    """``rules.Matcher.Matches`` plus the rule's ``resourceNames``."""
    resource = request.resource
    return (
        _wild(rule.operations, request.operation)
        and _wild(rule.api_groups, resource.group)
        and _wild(rule.api_versions, resource.version)
        and _resource_matches(rule.resources, resource.resource, request.sub_resource)
        and _scope_matches(rule.scope, request)
        and (not rule.resource_names or request.name in rule.resource_names)
    )


def _namespace_matches(
    selector: JsonObject, request: Request, namespaces: Mapping[str, JsonObject]
) -> bool | Unknown:
    if not selector:
        return True
    if request.is_namespace:
        labels = namespace_labels(request.subject)
    elif not request.resource.namespaced:
        return True
    else:
        name = request.namespace
        found = namespaces.get(name)
        if found is None:
            return Unknown(f"namespace {name!r} is not among the cluster's Namespaces")
        labels = namespace_labels(found)
    return bool(selector_matches(selector, labels))


def _object_matches(selector: JsonObject, request: Request) -> bool:
    if not selector:
        return True
    candidates = (obj for obj in (request.obj, request.old) if obj is not None)
    return any(bool(selector_matches(selector, labels_of(obj))) for obj in candidates)


def matches(
    criteria: MatchResources, request: Request, namespaces: Mapping[str, JsonObject]
) -> bool | Unknown:
    """Whether ``criteria`` select ``request``; :class:`Unknown` when only the cluster knows.

    ``namespaces`` maps a namespace's name to its manifest. As upstream, a selector that
    cannot be decided only matters once the rules select the request.
    """
    in_namespace = _namespace_matches(criteria.namespace_selector, request, namespaces)
    if in_namespace is False or not _object_matches(criteria.object_selector, request):
        return False
    if any(rule_matches(rule, request) for rule in criteria.exclude_resource_rules):
        return False
    if criteria.resource_rules and not any(
        rule_matches(rule, request) for rule in criteria.resource_rules
    ):
        return False
    return in_namespace
