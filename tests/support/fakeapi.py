"""A fake Kubernetes API server on 127.0.0.1 for the sweeper's I/O tests.

It implements exactly the calls :mod:`trainc.sweep.client` and :mod:`trainc.cluster.client`
make, through the real ``kubernetes`` client: discovery of a group version's resources
(``/api/v1``, ``/apis/GROUP/VERSION``: 404 when none is served), list (equality label
selectors, ``metadata.name``/``metadata.namespace`` field selectors, ``limit``/``continue``
paging), get,
JSON merge patch (``resourceVersion`` in the patch is an optimistic-concurrency check),
delete with ``preconditions`` (409 on a uid or resourceVersion mismatch) and event
creation. Objects live in memory with UIDs and a global resourceVersion counter. Faults
are injected per (method, path): a status code, a delay that trips the client's timeout,
or a hook that changes the state first, each N times or forever. Every request is logged.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resource:
    """A served resource: where it lives in the URL space and what its items are."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool = True

    @property
    def builtin(self) -> bool:
        """Built-in lists omit apiVersion/kind on items, as the real API server does."""
        return self.api_version in _BUILTIN_VERSIONS


_BUILTIN_VERSIONS = ("v1", "batch/v1", "scheduling.k8s.io/v1", "admissionregistration.k8s.io/v1")


JOBSETS = Resource("jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets")
JOBS = Resource("batch/v1", "Job", "jobs")
PVCS = Resource("v1", "PersistentVolumeClaim", "persistentvolumeclaims")
CONFIGMAPS = Resource("v1", "ConfigMap", "configmaps")
EVENTS = Resource("v1", "Event", "events")
COSCHEDULING_PODGROUPS = Resource("scheduling.x-k8s.io/v1alpha1", "PodGroup", "podgroups")
VOLCANO_PODGROUPS = Resource("scheduling.volcano.sh/v1beta1", "PodGroup", "podgroups")
ALL_RESOURCES = (JOBSETS, JOBS, PVCS, CONFIGMAPS, EVENTS, COSCHEDULING_PODGROUPS, VOLCANO_PODGROUPS)

# What admission reads (``trainc cluster pull``); Kueue's kinds per served version.
NAMESPACES = Resource("v1", "Namespace", "namespaces", namespaced=False)
LIMIT_RANGES = Resource("v1", "LimitRange", "limitranges")
RESOURCE_QUOTAS = Resource("v1", "ResourceQuota", "resourcequotas")
PRIORITY_CLASSES = Resource("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", False)
ADMISSION_POLICIES = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicy",
    "validatingadmissionpolicies",
    namespaced=False,
)
POLICY_BINDINGS = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicyBinding",
    "validatingadmissionpolicybindings",
    namespaced=False,
)
CLUSTER_OBJECTS = (NAMESPACES, LIMIT_RANGES, RESOURCE_QUOTAS, PRIORITY_CLASSES, CONFIGMAPS)
POLICY_KINDS = (ADMISSION_POLICIES, POLICY_BINDINGS)


def kueue_resources(version: str) -> tuple[Resource, ...]:
    """Kueue's queueing kinds at ``kueue.x-k8s.io/<version>``."""
    api_version = f"kueue.x-k8s.io/{version}"
    return (
        Resource(api_version, "ResourceFlavor", "resourceflavors", namespaced=False),
        Resource(api_version, "ClusterQueue", "clusterqueues", namespaced=False),
        Resource(api_version, "LocalQueue", "localqueues"),
        Resource(api_version, "Cohort", "cohorts", namespaced=False),
        Resource(api_version, "WorkloadPriorityClass", "workloadpriorityclasses", False),
    )


_DISCOVERY = re.compile(r"^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/(?P<version>[^/]+))/?$")
_PATH = re.compile(
    r"^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/(?P<version>[^/]+))"
    r"(?:/namespaces/(?P<namespace>[^/]+))?/(?P<plural>[^/]+)(?:/(?P<name>[^/]+))?$"
)


@dataclass(frozen=True, slots=True)
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    content_type: str | None


@dataclass(slots=True)
class _Fault:
    status: int | None = None
    delay: float = 0.0
    hook: Callable[[], object] | None = None
    remaining: int | None = None  # None: forever


class ApiStatus(Exception):  # noqa: N818 - carries an HTTP status, as the real server's Status
    """An error response the handler turns into a Kubernetes ``Status`` object."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


def rfc3339(moment: datetime) -> str:
    """A timestamp as the API server writes it (seconds, ``Z``)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Store:
    """The objects, keyed by (apiVersion, plural, namespace, name)."""

    now: datetime
    objects: dict[tuple[str, str, str, str], Obj] = field(default_factory=dict)
    revision: int = 1000
    serial: int = 0

    def bump(self) -> str:
        self.revision += 1
        return str(self.revision)

    def create(self, resource: Resource, obj: Obj) -> Obj:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        if "name" not in meta:
            self.serial += 1
            meta["name"] = f"{meta['generateName']}{self.serial:05x}"
        key = (resource.api_version, resource.plural, meta.get("namespace", ""), meta["name"])
        if key in self.objects:
            raise ApiStatus(409, "AlreadyExists", f"{meta['name']} already exists")
        self.serial += 1
        meta["uid"] = f"00000000-0000-4000-8000-{self.serial:012d}"
        meta.setdefault("creationTimestamp", rfc3339(self.now))
        meta["resourceVersion"] = self.bump()
        obj["apiVersion"], obj["kind"] = resource.api_version, resource.kind
        self.objects[key] = obj
        return obj


class FakeApiServer:
    """A threaded in-memory API server; use as a context manager, then point a client at ``url``."""

    def __init__(
        self,
        *,
        resources: tuple[Resource, ...] = ALL_RESOURCES,
        now: datetime = datetime(2025, 1, 1, tzinfo=UTC),
    ) -> None:
        self.resources = resources
        self._store = _Store(now=now)
        self._lock = threading.RLock()
        self._faults: dict[tuple[str, str], list[_Fault]] = {}
        self._log: list[Request] = []
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> FakeApiServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        """Base URL for ``kubernetes.client.Configuration(host=...)``."""
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    # ------------------------------------------------------------------ state
    def put(self, obj: Obj) -> Obj:
        """Create ``obj`` (uid, resourceVersion, creationTimestamp unless given)."""
        with self._lock:
            return copy.deepcopy(self._store.create(self._resource_of(obj), obj))

    def apply(self, obj: Obj) -> Obj:
        """What a GitOps sync does: metadata labels/annotations and spec from git, status kept.

        A missing object is created; an existing one keeps uid, creation time and status,
        and gets a new resourceVersion only when something changed.
        """
        with self._lock:
            key = self._key(obj)
            live = self._store.objects.get(key)
            if live is None:
                return copy.deepcopy(self._store.create(self._resource_of(obj), obj))
            desired = copy.deepcopy(live)
            for part in ("labels", "annotations"):
                desired["metadata"].pop(part, None)
                if part in obj["metadata"]:
                    desired["metadata"][part] = copy.deepcopy(obj["metadata"][part])
            for part in set(obj) - {"apiVersion", "kind", "metadata", "status"}:
                desired[part] = copy.deepcopy(obj[part])
            if desired != live:
                desired["metadata"]["resourceVersion"] = self._store.bump()
                self._store.objects[key] = desired
            return copy.deepcopy(self._store.objects[key])

    def update(
        self, resource: Resource, namespace: str, name: str, change: Callable[[Obj], object]
    ) -> Obj:
        """Change a live object in place (a controller's doing); bumps its resourceVersion."""
        with self._lock:
            obj = self._store.objects[(resource.api_version, resource.plural, namespace, name)]
            change(obj)
            obj["metadata"]["resourceVersion"] = self._store.bump()
            return copy.deepcopy(obj)

    def remove(self, resource: Resource, namespace: str, name: str) -> None:
        """Delete an object behind the client's back."""
        with self._lock:
            del self._store.objects[(resource.api_version, resource.plural, namespace, name)]

    def get(self, resource: Resource, namespace: str, name: str) -> Obj | None:
        """A copy of the live object, or None."""
        with self._lock:
            found = self._store.objects.get(
                (resource.api_version, resource.plural, namespace, name)
            )
            return copy.deepcopy(found)

    def all(self, resource: Resource) -> list[Obj]:
        """Copies of every object of ``resource``, sorted by namespace and name."""
        with self._lock:
            return [copy.deepcopy(o) for o in self._items(resource, None)]

    def dump(self) -> dict[tuple[str, str, str, str], Obj]:
        """Every object, for before/after comparisons."""
        with self._lock:
            return copy.deepcopy(self._store.objects)

    # ------------------------------------------------------------------ faults and log
    def fail(self, method: str, path: str, *, status: int = 500, times: int | None = None) -> None:
        """Answer ``method path`` with ``status`` ``times`` times (None: forever)."""
        self._add_fault(method, path, _Fault(status=status, remaining=times))

    def slow(self, method: str, path: str, *, seconds: float, times: int | None = 1) -> None:
        """Delay ``method path`` by ``seconds`` before answering, ``times`` times."""
        self._add_fault(method, path, _Fault(delay=seconds, remaining=times))

    def before(self, method: str, path: str, hook: Callable[[], object], *, times: int = 1) -> None:
        """Run ``hook`` (e.g. re-create an object) just before serving ``method path``."""
        self._add_fault(method, path, _Fault(hook=hook, remaining=times))

    @property
    def requests(self) -> list[Request]:
        """Every request served so far, in order."""
        with self._lock:
            return list(self._log)

    def clear_log(self) -> None:
        """Forget the requests logged so far."""
        with self._lock:
            self._log.clear()

    def _add_fault(self, method: str, path: str, fault: _Fault) -> None:
        with self._lock:
            self._faults.setdefault((method, path), []).append(fault)

    def _take_faults(self, method: str, path: str) -> list[_Fault]:
        with self._lock:
            active = self._faults.get((method, path), [])
            taken = [f for f in active if f.remaining is None or f.remaining > 0]
            for fault in taken:
                if fault.remaining is not None:
                    fault.remaining -= 1
            return taken

    # ------------------------------------------------------------------ serving
    def serve(self, method: str, url: str, body: Any, content_type: str | None) -> tuple[int, Obj]:
        """Answer one request: (status code, JSON body)."""
        parts = urlsplit(url)
        request = Request(method, parts.path, dict(parse_qsl(parts.query)), body, content_type)
        with self._lock:
            self._log.append(request)
        for fault in self._take_faults(method, parts.path):
            if fault.hook is not None:
                fault.hook()
            time.sleep(fault.delay)
            if fault.status is not None:
                raise ApiStatus(fault.status, "InjectedFault", f"injected {fault.status}")
        discovery = _DISCOVERY.match(parts.path)
        if discovery is not None and method == "GET":
            api_version = discovery["core"] or f"{discovery['group']}/{discovery['version']}"
            return 200, self._discover(api_version)
        resource, namespace, name = self._route(parts.path)
        with self._lock:
            return self._dispatch(request, resource, namespace, name)

    def _dispatch(
        self, request: Request, resource: Resource, namespace: str | None, name: str | None
    ) -> tuple[int, Obj]:
        method, body = request.method, request.body
        if name is None and method == "GET":
            return 200, self._list(resource, namespace, request.query)
        if name is None and method == "POST" and namespace is not None:
            body.setdefault("metadata", {})["namespace"] = namespace
            return 201, copy.deepcopy(self._store.create(resource, body))
        key = (resource.api_version, resource.plural, namespace or "", name or "")
        live = self._store.objects.get(key)
        if live is None or name is None:
            raise ApiStatus(404, "NotFound", f'{resource.plural} "{name}" not found')
        if method == "GET":
            return 200, copy.deepcopy(live)
        if method == "PATCH":
            return 200, self._patch(key, live, body, request.content_type)
        if method == "DELETE":
            return 200, self._delete(key, live, body)
        raise ApiStatus(405, "MethodNotAllowed", f"{method} is not served")

    def _discover(self, api_version: str) -> Obj:
        """The APIResourceList of ``api_version``; 404 when it serves nothing."""
        served = [r for r in self.resources if r.api_version == api_version]
        if not served:
            raise ApiStatus(404, "NotFound", "the server could not find the requested resource")
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": api_version,
            "resources": [
                {
                    "name": r.plural,
                    "singularName": r.kind.lower(),
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": ["get", "list"],
                }
                for r in served
            ],
        }

    def _list(self, resource: Resource, namespace: str | None, query: dict[str, str]) -> Obj:
        selector = _parse_selector(query.get("labelSelector", ""))
        fields = _parse_fields(query.get("fieldSelector", ""))
        items = [
            o
            for o in self._items(resource, namespace)
            if _matches(o, selector) and _fields_match(o, fields)
        ]
        start = int(base64.b64decode(query["continue"])) if query.get("continue") else 0
        limit = int(query.get("limit") or 0) or len(items)
        page = items[start : start + limit]
        meta: Obj = {"resourceVersion": str(self._store.revision)}
        if start + limit < len(items):
            meta["continue"] = base64.b64encode(str(start + limit).encode()).decode()
        out = [copy.deepcopy(o) for o in page]
        if resource.builtin:
            for item in out:
                item.pop("apiVersion", None)
                item.pop("kind", None)
        return {
            "apiVersion": resource.api_version,
            "kind": f"{resource.kind}List",
            "metadata": meta,
            "items": out,
        }

    def _patch(
        self, key: tuple[str, str, str, str], live: Obj, patch: Any, ctype: str | None
    ) -> Obj:
        if ctype != "application/merge-patch+json":
            raise ApiStatus(415, "UnsupportedMediaType", f"unsupported patch type {ctype}")
        wanted = patch.get("metadata", {}).get("resourceVersion")
        if wanted is not None and wanted != live["metadata"]["resourceVersion"]:
            raise ApiStatus(409, "Conflict", "the object has been modified")
        merged = _merge(copy.deepcopy(live), patch)
        merged["metadata"]["uid"] = live["metadata"]["uid"]
        merged["metadata"]["resourceVersion"] = self._store.bump()
        self._store.objects[key] = merged
        return copy.deepcopy(merged)

    def _delete(self, key: tuple[str, str, str, str], live: Obj, options: Any) -> Obj:
        preconditions = (options or {}).get("preconditions") or {}
        meta = live["metadata"]
        for field_name in ("uid", "resourceVersion"):
            wanted = preconditions.get(field_name)
            if wanted is not None and wanted != meta[field_name]:
                raise ApiStatus(409, "Conflict", f"Precondition failed: {field_name} {wanted}")
        del self._store.objects[key]
        return {"kind": "Status", "apiVersion": "v1", "status": "Success", "metadata": {}}

    def _route(self, path: str) -> tuple[Resource, str | None, str | None]:
        match = _PATH.match(path)
        if match is None:
            raise ApiStatus(404, "NotFound", "the server could not find the requested resource")
        api_version = match["core"] or f"{match['group']}/{match['version']}"
        for resource in self.resources:
            if (resource.api_version, resource.plural) == (api_version, match["plural"]):
                return resource, match["namespace"], match["name"]
        raise ApiStatus(404, "NotFound", "the server could not find the requested resource")

    def _resource_of(self, obj: Obj) -> Resource:
        for resource in (*self.resources, *ALL_RESOURCES):
            if (resource.api_version, resource.kind) == (obj["apiVersion"], obj["kind"]):
                return resource
        raise ValueError(f"the fake API server does not serve {obj['apiVersion']} {obj['kind']}")

    def _key(self, obj: Obj) -> tuple[str, str, str, str]:
        resource = self._resource_of(obj)
        meta = obj["metadata"]
        return resource.api_version, resource.plural, meta.get("namespace", ""), meta["name"]

    def _items(self, resource: Resource, namespace: str | None) -> Iterator[Obj]:
        for key in sorted(self._store.objects):
            if key[:2] == (resource.api_version, resource.plural) and namespace in (None, key[2]):
                yield self._store.objects[key]


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = target if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _merge(result.get(key), value)
    return result


def _parse_selector(text: str) -> list[tuple[str, str, str | None]]:
    """Equality-based selector terms as (key, operator, value)."""
    terms: list[tuple[str, str, str | None]] = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        for operator in ("!=", "==", "="):
            if operator in term:
                key, value = term.split(operator, 1)
                terms.append((key.strip(), "!=" if operator == "!=" else "=", value.strip()))
                break
        else:
            terms.append((term.lstrip("!"), "!" if term.startswith("!") else "exists", None))
    return terms


def _parse_fields(text: str) -> dict[str, str]:
    """``metadata.name=x,metadata.namespace=y`` as a mapping; other fields are refused."""
    fields: dict[str, str] = {}
    for term in filter(None, (t.strip() for t in text.split(","))):
        key, _, value = term.partition("=")
        if key not in ("metadata.name", "metadata.namespace"):
            raise ApiStatus(400, "BadRequest", f'field label not supported: "{key}"')
        fields[key] = value.lstrip("=")
    return fields


def _fields_match(obj: Obj, fields: dict[str, str]) -> bool:
    meta = obj.get("metadata", {})
    return all(meta.get(key.split(".", 1)[1], "") == value for key, value in fields.items())


def _matches(obj: Obj, selector: list[tuple[str, str, str | None]]) -> bool:
    labels = obj.get("metadata", {}).get("labels") or {}
    checks: dict[str, Callable[[str, str | None], bool]] = {
        "=": lambda key, value: labels.get(key) == value,
        "!=": lambda key, value: labels.get(key) != value,
        "exists": lambda key, _: key in labels,
        "!": lambda key, _: key not in labels,
    }
    return all(checks[op](key, value) for key, op, value in selector)


def _handler_for(api: FakeApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            try:
                code, answer = api.serve(
                    self.command, self.path, body, self.headers.get("Content-Type")
                )
            except ApiStatus as error:
                code, answer = error.code, _status(error)
            data = json.dumps(answer).encode()
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client timed out and hung up: exactly what a slow fault is for

        do_GET = do_POST = do_PATCH = do_DELETE = _serve  # noqa: N815 - http.server's names

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


def _status(error: ApiStatus) -> Obj:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": str(error),
        "reason": error.reason,
        "code": error.code,
    }
