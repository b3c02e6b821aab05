"""``trainc cluster pull``'s door to the cluster: the official ``kubernetes`` client, read-only.

With :mod:`trainc.sweep.client`, the only modules that import ``kubernetes`` (the
import-linter contract "Third-party libraries stay behind their adapters"), and only inside
the functions that talk to the cluster, so ``trainc validate`` never loads it. The client
is configured as the sweeper's is (:func:`trainc.sweep.client.load_configuration`:
kubectl's kubeconfig order, then the pod's service account), and every call goes through
the sweeper's :class:`~trainc.sweep.calls.Caller`: timeouts, retries of 5xx, 429 and
connection errors with backoff, and a budget, so a pull against a dead cluster ends.
Only discovery, list and get are called. Core kinds go through ``CoreV1Api``
(``list_namespaced_<kind>``, ``read_<kind>``, ...), grouped kinds, built-in or custom,
through ``CustomObjectsApi``'s group endpoints; answers are read raw, as JSON.
"""

from __future__ import annotations

import re
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

from trainc.checks.admission.policies.resources import Resource
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.sweep.calls import ApiError, Caller, NotFound, SweepLimits
from trainc.sweep.client import load_configuration, raw_attempt

#: Bounds of one pull: shorter than a sweep's, a pull is one command in a CI job.
PULL_LIMITS = SweepLimits(request_timeout=20.0, max_seconds=300.0)


class ClusterError(Exception):
    """The cluster could not be read: unreachable, refused, or an unexpected answer."""


def connect(
    *, kubeconfig: Path | None, context: str | None, limits: SweepLimits = PULL_LIMITS
) -> ClusterReader:
    """A reader configured as kubectl would be; a bad configuration is a UsageError."""
    return ClusterReader(load_configuration(kubeconfig=kubeconfig, context=context), limits=limits)


class ClusterReader:
    """Discovery, list and get, each failure a :class:`ClusterError` naming the kind and verb."""

    def __init__(self, configuration: Any, *, limits: SweepLimits = PULL_LIMITS) -> None:
        from kubernetes import client  # noqa: PLC0415 - only a pull pays for it

        configuration.retries = False
        api = client.ApiClient(configuration)
        self._core: Any = client.CoreV1Api(api)
        self._custom: Any = client.CustomObjectsApi(api)
        self._caller = Caller(limits, sleep=time.sleep, monotonic=time.monotonic)
        self._page_size = limits.page_size

    def discover(self, group: str, version: str) -> dict[str, Resource] | None:
        """The resources ``group/version`` serves (``/api/v1`` or ``/apis/GROUP/VERSION``)."""
        if group:
            request = raw_attempt(self._custom.get_api_resources, group, version)
        else:
            request = raw_attempt(self._core.get_api_resources)
        where = f"{group}/{version}" if group else version
        try:
            answer = self._call(f"discover the resources of {where}", request, verb="get")
        except NotFound:
            return None
        served: dict[str, Resource] = {}
        for raw in as_list(answer.get("resources")):
            entry = as_object(raw)
            plural, kind = entry.get("name"), entry.get("kind")
            if isinstance(plural, str) and isinstance(kind, str):
                namespaced = entry.get("namespaced") is True
                served[plural] = Resource(group, version, plural, kind, namespaced)
        return served

    def list(
        self,
        resource: Resource,
        namespace: str | None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> list[JsonObject]:
        """Every object of ``resource`` in ``namespace`` (None: all), page by page."""
        items: list[JsonObject] = []
        token = ""
        place = f"namespace {namespace}" if namespace else "all namespaces"
        what = f"list {resource.resource} ({resource.kind}, {resource.api_version})"
        what += f" in {place}" if resource.namespaced else ""
        while True:
            options: dict[str, Any] = {"limit": self._page_size}
            if label_selector:
                options["label_selector"] = label_selector
            if field_selector:
                options["field_selector"] = field_selector
            if token:
                options["_continue"] = token
            request = self._operation(resource, "list", namespace, None, options)
            try:
                page = self._call(what, request, verb="list", resource=resource)
            except NotFound as error:
                raise ClusterError(f"cannot {what}: {error}") from error
            items.extend(as_object(item) for item in as_list(page.get("items")))
            token_value = get_path(page, ("metadata", "continue"))
            if not isinstance(token_value, str) or not token_value:
                return items
            token = token_value

    def get(self, resource: Resource, namespace: str | None, name: str) -> JsonObject | None:
        """One object by name; None when it does not exist."""
        where = f"{namespace}/{name}" if namespace else name
        what = f"get {resource.kind} {where} ({resource.api_version})"
        request = self._operation(resource, "read", namespace, name, {})
        try:
            return self._call(what, request, verb="get", resource=resource)
        except NotFound:
            return None

    # ------------------------------------------------------------------ plumbing
    def _call(
        self, what: str, request: Any, *, verb: str, resource: Resource | None = None
    ) -> JsonObject:
        """The answer of ``request``; a refusal names the RBAC verb and resource it needs."""
        try:
            return self._caller.call(what, request)
        except NotFound:
            raise
        except ApiError as error:
            if error.status == HTTPStatus.UNAUTHORIZED:
                raise ClusterError(
                    f"cannot {error}. The API server did not accept the kubeconfig's "
                    "credentials: renew the token or certificate"
                ) from error
            if error.status == HTTPStatus.FORBIDDEN:
                raise ClusterError(_refusal(error, verb, resource)) from error
            raise ClusterError(f"cannot {error}") from error

    def _operation(
        self,
        resource: Resource,
        verb: str,
        namespace: str | None,
        name: str | None,
        options: dict[str, Any],
    ) -> Any:
        """The client call for ``verb`` (list, read) on ``resource``, raw."""
        if not resource.group:
            stem = _snake(resource.kind)
            if not resource.namespaced:
                scoped = stem
            elif namespace:
                scoped = f"namespaced_{stem}"
            else:
                scoped = f"{stem}_for_all_namespaces"
            method = getattr(self._core, f"{verb}_{scoped}")
            args = [a for a in (name, namespace if resource.namespaced else None) if a is not None]
            return raw_attempt(method, *args, **options)
        custom_verb = "get" if verb == "read" else verb
        scope = "namespaced" if resource.namespaced and namespace else "cluster"
        method = getattr(self._custom, f"{custom_verb}_{scope}_custom_object")
        args = [resource.group, resource.version]
        args += [namespace] if scope == "namespaced" and namespace else []
        args += [resource.resource, *([name] if name is not None else [])]
        return raw_attempt(method, *args, **options)


def _snake(kind: str) -> str:
    """``ConfigMap`` → ``config_map``: the stem of ``CoreV1Api``'s method names."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower()


def _refusal(error: ApiError, verb: str, resource: Resource | None) -> str:
    """A 403 as the fix needs it: which RBAC verb on which resource is missing."""
    if resource is None:
        return f"cannot {error}"
    group = f'API group "{resource.group}"' if resource.group else 'the core API group ("")'
    return (
        f"cannot {error}. The identity of the kubeconfig needs the RBAC verb "
        f'"{verb}" on resource "{resource.resource}" of {group}'
    )
