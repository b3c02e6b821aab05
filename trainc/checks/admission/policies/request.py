"""One admission request, and the ``request`` and ``namespaceObject`` a policy's CEL reads of it.

``CreateAdmissionRequest`` and ``CreateNamespaceObject`` in
https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/filter.go
decide what policies see: the request's kind, resource and sub-resource (also as
``requestKind``/``requestResource``), name, namespace, operation, the creator's
``userInfo``, ``dryRun`` and the operation's options, but never the objects themselves
(those are ``object`` and ``oldObject``); of the namespace, only its metadata, spec and
status. A Namespace's own request carries the Namespace's name as its namespace, but no
``namespaceObject``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from trainc.checks.admission.policies.resources import Resource, resource_for
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject, JsonValue, as_object

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"

_OPTIONS_KIND = {CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions"}

#: What ``CreateNamespaceObject`` keeps of a Namespace's metadata.
_NAMESPACE_METADATA = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "finalizers",
)


@dataclass(frozen=True, slots=True)
class UserInfo:
    """Who sends the request: the identity policies match on through ``request.userInfo``."""

    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        """``authentication/v1`` ``UserInfo`` as CEL reads it (empty fields left out)."""
        info: JsonObject = {"username": self.username}
        if self.uid:
            info["uid"] = self.uid
        if self.groups:
            info["groups"] = list[JsonValue](self.groups)
        if self.extra:
            info["extra"] = {key: list[JsonValue](values) for key, values in self.extra.items()}
        return info


@dataclass(frozen=True, slots=True)
class Request:
    """An object on its way into the API server.

    ``obj`` is the object as admission sees it (after defaulting and mutation); ``old``
    the stored object for UPDATE and DELETE (DELETE has no ``obj``).
    """

    resource: Resource
    operation: str
    user: UserInfo
    obj: JsonObject | None
    old: JsonObject | None = None
    sub_resource: str = ""
    dry_run: bool = False

    @property
    def subject(self) -> JsonObject:
        """The object the request is about: the new one, or the old one on DELETE."""
        return self.obj if self.obj is not None else (self.old or {})

    @property
    def name(self) -> str:
        """The object's name (empty when the API server is left to generate it)."""
        return text(as_object(self.subject.get("metadata")).get("name")) or ""

    @property
    def namespace(self) -> str:
        """The request's namespace: empty for cluster-scoped objects."""
        if not self.resource.namespaced:
            return ""
        return text(as_object(self.subject.get("metadata")).get("namespace")) or ""

    @property
    def is_namespace(self) -> bool:
        """True when the object is a Namespace itself."""
        return self.resource.group == "" and self.resource.resource == "namespaces"


def request_for(
    obj: JsonObject | None,
    user: UserInfo,
    *,
    old: JsonObject | None = None,
    operation: str = "",
) -> Request | None:
    """The request that stores ``obj`` (CREATE, or UPDATE over ``old``; DELETE of ``old``
    without ``obj``); None when trainc does not know the kind's resource."""
    subject = obj if obj is not None else old
    if subject is None:
        return None
    api_version, kind = subject.get("apiVersion"), subject.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    resource = resource_for(api_version, kind)
    if resource is None:
        return None
    if not operation:
        operation = DELETE if obj is None else UPDATE if old is not None else CREATE
    return Request(resource, operation, user, obj, old)


def request_json(request: Request) -> JsonObject:
    """``request`` as CEL sees it (``admission/v1`` ``AdmissionRequest``)."""
    resource = request.resource
    kind: JsonObject = {"group": resource.group, "version": resource.version, "kind": resource.kind}
    gvr: JsonObject = {
        "group": resource.group,
        "version": resource.version,
        "resource": resource.resource,
    }
    value: JsonObject = {
        "uid": "",
        "kind": kind,
        "resource": gvr,
        "requestKind": dict(kind),
        "requestResource": dict(gvr),
        "name": request.name,
        "operation": request.operation,
        "userInfo": request.user.to_json(),
        "dryRun": request.dry_run,
    }
    if request.sub_resource:
        value["subResource"] = request.sub_resource
        value["requestSubResource"] = request.sub_resource
    namespace = text(as_object(request.subject.get("metadata")).get("namespace"))
    if request.is_namespace:
        # The API server gives a Namespace's own request the Namespace as its namespace.
        namespace = request.name
    elif not resource.namespaced:
        namespace = None
    if namespace:
        value["namespace"] = namespace
    if request.operation in _OPTIONS_KIND:
        value["options"] = {
            "apiVersion": "meta.k8s.io/v1",
            "kind": _OPTIONS_KIND[request.operation],
        }
    return value


def namespace_object(namespace: JsonObject | None) -> JsonObject | None:
    """``namespaceObject``: the Namespace's metadata, spec and status; None without one."""
    if namespace is None:
        return None
    metadata = as_object(namespace.get("metadata"))
    value: JsonObject = {
        "metadata": {key: metadata[key] for key in _NAMESPACE_METADATA if key in metadata}
    }
    for key in ("spec", "status"):
        if isinstance(namespace.get(key), dict):
            value[key] = namespace[key]
    return value


def labels_of(obj: JsonObject) -> dict[str, str]:
    """An object's ``metadata.labels`` (entries that are not strings left out)."""
    labels = as_object(as_object(obj.get("metadata")).get("labels"))
    return {key: value for key, value in labels.items() if isinstance(value, str)}


def namespace_labels(namespace: JsonObject) -> dict[str, str]:
    """A Namespace's labels, with the ``kubernetes.io/metadata.name`` label the API server
    sets on every Namespace (``NamespaceDefaultLabelName``)."""
    labels = labels_of(namespace)
    name = text(as_object(namespace.get("metadata")).get("name"))
    if name:
        labels["kubernetes.io/metadata.name"] = name
    return labels
