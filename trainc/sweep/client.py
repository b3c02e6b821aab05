"""The sweeper's only door to the cluster: the official ``kubernetes`` client behind a small API.

This is the one module that imports ``kubernetes`` (import-linter's forbidden contract,
``docs/design.md``, "Stages and packages"), lazily, so ``trainc validate`` never pays for it.
Every grouped resource
(JobSets, batch/v1 Jobs, both PodGroup groups) goes through the generic group endpoints of
``CustomObjectsApi``: one code path, JSON answers for every kind, and JSON merge patch in
every supported client release; core/v1 kinds (claims, ConfigMaps, Events) go through
``CoreV1Api``. Answers are read raw (``_preload_content=False``) and parsed by
:mod:`trainc.sweep.parse`, so the records never depend on generated models. Retries and
budgets are :mod:`trainc.sweep.calls`'; the client's own urllib3 retries are off.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from trainc.errors import UsageError
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.model.labels import JOBSET_NAME_LABEL
from trainc.sweep.calls import Answer, ApiError, Caller, NotFound, SweepLimits
from trainc.sweep.kinds import (
    COMPANION_KINDS,
    JOB,
    JOBSET,
    KINDS,
    MANAGED_SELECTOR,
    POD_GROUPS,
    Kind,
)
from trainc.sweep.kubeconfig import KubeconfigSearch, first_current_context, kubeconfig_search
from trainc.sweep.model import ChildJobState, CompanionState, JobSetState, ObjectRef, Snapshot
from trainc.sweep.parse import (
    MalformedObject,
    is_managed,
    parse_companion,
    parse_job,
    parse_jobset,
)

_T = TypeVar("_T")

#: ``source.component`` of the sweeper's Events.
EVENT_SOURCE = "trainc-sweeper"
#: Event messages are cut to the note limit of Kubernetes' event validation (1024).
_EVENT_MESSAGE_LIMIT = 1024


def connect(*, kubeconfig: Path | None, context: str | None, limits: SweepLimits) -> SweepClient:
    """A client configured as kubectl would be: kubeconfig files first, then in-cluster.

    The files are :func:`~trainc.sweep.kubeconfig.kubeconfig_search`'s (``--kubeconfig``,
    else ``$KUBECONFIG``, else ``~/.kube/config``); when none exists, or they select no
    cluster, the pod's service account is used (the CronJob case), as client-go's deferred
    loading does. ``context`` picks a context of the files. A missing or broken
    configuration is a :class:`UsageError` that says where trainc looked, never a traceback.
    """
    return SweepClient(load_configuration(kubeconfig=kubeconfig, context=context), limits=limits)


def load_configuration(*, kubeconfig: Path | None, context: str | None) -> Any:
    """The ``kubernetes.client.Configuration`` kubectl would use (see :func:`connect`).

    Shared with the other cluster adapters (``trainc cluster pull``), so every command
    finds its cluster, and fails to, in the same words.
    """
    from kubernetes import client, config  # noqa: PLC0415 - only a cluster command pays for it

    search = kubeconfig_search(kubeconfig, os.environ, Path.home())
    configuration = client.Configuration()
    # A broken file fails in the YAML parser the kubeconfig loader uses (PyYAML, which
    # trainc itself never imports): its errors are caught through the loader's reference.
    broken_yaml: type[Exception] = config.kube_config.yaml.YAMLError  # type: ignore[attr-defined]  # the loader's own import
    source = search.describe()
    try:
        if not _load_kubeconfig(search, context, configuration):
            source = "the in-cluster configuration"
            config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]  # untyped module
    except (config.ConfigException, broken_yaml, OSError, ValueError, TypeError) as error:
        problem = " ".join(str(error).split()).rstrip(".")
        raise UsageError(
            f"cannot configure the Kubernetes client from {source}: {problem}. Pass "
            "--kubeconfig PATH (and --context NAME), set $KUBECONFIG, or run in a pod "
            "with a service account."
        ) from error
    return configuration


def _load_kubeconfig(search: KubeconfigSearch, context: str | None, configuration: Any) -> bool:
    """Configure from the kubeconfig files of ``search``; False when the pod's own should be used.

    False only when no file exists (an explicit ``--kubeconfig`` must) or the files set no
    current context and none is asked for, and the process runs in a pod: client-go's
    ``IsEmptyConfig`` fallback. ``--context`` with no file at all is an error, not a
    silent switch to the service account.
    """
    from kubernetes.config import ConfigException, kube_config  # noqa: PLC0415 - see connect()

    if search.explicit and not search.candidates[0].exists():
        raise ConfigException("the file does not exist")
    files = search.existing()
    if not files:
        if context is not None:
            raise ConfigException(f"no kubeconfig file exists to select context {context!r} from")
        if _in_cluster():
            return False
        raise ConfigException("no kubeconfig file exists and this is not a pod")
    separator: str = kube_config.ENV_KUBECONFIG_PATH_SEPARATOR
    merged = kube_config.KubeConfigMerger(separator.join(str(path) for path in files))  # type: ignore[no-untyped-call]  # untyped module
    chosen = context or first_current_context(merged.config_files[p] for p in merged.paths)
    if chosen is None:
        if _in_cluster():
            return False
        raise ConfigException("no current-context is set: pass --context NAME")
    loader = kube_config.KubeConfigLoader(  # type: ignore[no-untyped-call]  # untyped module
        config_dict=merged.config, active_context=chosen, config_base_path=None
    )
    loader.load_and_set(configuration)  # type: ignore[no-untyped-call]  # untyped module
    return True


def _in_cluster() -> bool:
    """Whether the pod's service account can be used (client-go's ``Possible``).

    client-go's ``inClusterClientConfig`` asks for the service host and port variables the
    kubelet sets and the projected token file
    (https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/client-go/tools/clientcmd/client_config.go).
    """
    from kubernetes.config import incluster_config  # noqa: PLC0415 - see connect()

    variables = (incluster_config.SERVICE_HOST_ENV_NAME, incluster_config.SERVICE_PORT_ENV_NAME)
    token = Path(incluster_config.SERVICE_TOKEN_FILENAME)
    return all(os.environ.get(name) for name in variables) and token.is_file()


class SweepClient:
    """Reads what trainc manages and carries out the sweeper's changes, within budgets.

    ``configuration`` is a ``kubernetes.client.Configuration``; its own urllib3 retries
    are switched off so that every attempt is counted and backed off here. ``sleep`` and
    ``monotonic`` are injectable for tests.
    """

    def __init__(
        self,
        configuration: Any,
        *,
        limits: SweepLimits,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        from kubernetes import client  # noqa: PLC0415 - see connect()

        configuration.retries = False
        api = client.ApiClient(configuration)
        self._core: Any = client.CoreV1Api(api)
        self._custom: Any = client.CustomObjectsApi(api)
        self._models: Any = client
        self._caller = Caller(limits, sleep=sleep, monotonic=monotonic)
        self.limits = limits

    @property
    def calls(self) -> int:
        """API calls (HTTP attempts) of the current pass."""
        return self._caller.calls

    def start_pass(self) -> None:
        """Reset the call and time budgets: each sweep pass gets its own."""
        self._caller.start_pass()

    def pause(self, attempt: int) -> None:
        """Back off after failed attempt ``attempt`` (a conflict), within the time budget."""
        self._caller.pause(attempt)

    def plan(self, planned: int) -> None:
        """Size the pass's call budget for actions needing ``planned`` calls (see Caller)."""
        self._caller.plan(planned)

    def share(self, wanted: int) -> int:
        """Set aside up to ``wanted`` calls for one action, in decision order (see Caller)."""
        return self._caller.share(wanted)

    def spending(self, share: int) -> contextlib.AbstractContextManager[None]:
        """Calls made in the block on this thread come from ``share`` first."""
        return self._caller.spending(share)

    # ------------------------------------------------------------------ reads
    def snapshot(self, namespaces: tuple[str, ...] | None) -> Snapshot:
        """Everything labelled as trainc's in ``namespaces`` (None: all), every list paged.

        A PodGroup type whose CRD is not installed (404 on list) has no objects. Any
        other failure raises: a partial snapshot could make live companions look orphaned.
        """
        jobsets = self.list_jobsets(namespaces)
        jobs = [_parsed(parse_job, o, JOB) for o in self._list(JOB, namespaces)]
        companions = [
            _parsed(parse_companion, obj, kind)
            for kind in COMPANION_KINDS
            for obj in self._list(kind, namespaces, optional=kind in POD_GROUPS)
        ]
        return Snapshot(
            jobsets=jobsets,
            jobs=tuple(job for job in jobs if job is not None),
            companions=tuple(c for c in companions if c is not None),
        )

    def list_jobsets(self, namespaces: tuple[str, ...] | None) -> tuple[JobSetState, ...]:
        """Every JobSet labelled as trainc's in ``namespaces`` (None: all), paged; any
        failure raises."""
        return tuple(_parsed(parse_jobset, obj, JOBSET) for obj in self._list(JOBSET, namespaces))

    def read_jobset(self, namespace: str, name: str) -> JobSetState | None:
        """A fresh GET of a JobSet; None when it is gone or no longer labelled as trainc's."""
        obj = self._read(JOBSET, namespace, name)
        return None if obj is None else _parsed(parse_jobset, obj, JOBSET)

    def list_jobs(self, namespace: str, jobset: str) -> tuple[ChildJobState, ...]:
        """A fresh, paged list of one JobSet's child Jobs (by the JobSet controller's label)."""
        selector = f"{MANAGED_SELECTOR},{JOBSET_NAME_LABEL}={jobset}"
        jobs = (_parsed(parse_job, o, JOB) for o in self._list(JOB, (namespace,), selector))
        return tuple(job for job in jobs if job is not None)

    def read_companion(self, ref: ObjectRef) -> CompanionState | None:
        """A fresh GET of a companion; None when it is gone or no longer trainc's."""
        kind = KINDS[ref.api_version, ref.kind]
        obj = self._read(kind, ref.namespace, ref.name)
        return None if obj is None else _parsed(parse_companion, obj, kind)

    # ------------------------------------------------------------------ writes
    def set_active_deadline(self, job: ObjectRef, seconds: int) -> bool:
        """Merge-patch a Job's ``spec.activeDeadlineSeconds``; False when it is gone.

        The patch carries the fresh ``resourceVersion``, so a Job changed since it was read
        fails with :class:`Conflict` instead of being patched blind.
        """
        patch = {
            "metadata": {"resourceVersion": job.resource_version},
            "spec": {"activeDeadlineSeconds": seconds},
        }
        request = self._operation(JOB, "patch", job.namespace, job.name, body=patch)
        return self._write(f"patch Job {job.namespace}/{job.name}", request)

    def delete(self, ref: ObjectRef) -> bool:
        """Delete with ``Background`` propagation and uid + resourceVersion preconditions.

        Background, not Foreground: the object goes at once and the garbage collector
        takes its pods (``docs/upstream.md``, "Lifecycle: deadlines, TTL, deletion"). The
        preconditions make a re-created object of the same
        name, or one changed since it was read, a :class:`Conflict`. False when gone.
        """
        models = self._models
        options = models.V1DeleteOptions(
            propagation_policy="Background",
            preconditions=models.V1Preconditions(
                uid=ref.uid, resource_version=ref.resource_version
            ),
        )
        kind = KINDS[ref.api_version, ref.kind]
        request = self._operation(kind, "delete", ref.namespace, ref.name, body=options)
        return self._write(f"delete {ref.kind} {ref.namespace}/{ref.name}", request)

    def record_event(
        self, subject: ObjectRef, *, reason: str, message: str, warning: bool, now: datetime
    ) -> None:
        """Create a core/v1 Event on ``subject``, stamped with the run's clock."""
        models = self._models
        stamp = now.replace(microsecond=0)
        event = models.CoreV1Event(
            metadata=models.V1ObjectMeta(
                generate_name=f"{subject.name}.", namespace=subject.namespace
            ),
            involved_object=models.V1ObjectReference(
                api_version=subject.api_version,
                kind=subject.kind,
                namespace=subject.namespace,
                name=subject.name,
                uid=subject.uid,
                resource_version=subject.resource_version,
            ),
            reason=reason,
            message=message[:_EVENT_MESSAGE_LIMIT],
            type="Warning" if warning else "Normal",
            source=models.V1EventSource(component=EVENT_SOURCE),
            count=1,
            first_timestamp=stamp,
            last_timestamp=stamp,
        )

        request = self._raw(self._core.create_namespaced_event, subject.namespace, body=event)
        what = f"create Event on {subject.kind} {subject.namespace}/{subject.name}"
        self._caller.call(what, request)

    # ------------------------------------------------------------------ plumbing
    def _list(
        self,
        kind: Kind,
        namespaces: tuple[str, ...] | None,
        selector: str = MANAGED_SELECTOR,
        *,
        optional: bool = False,
    ) -> Iterator[JsonObject]:
        """Items of every page in each namespace; a 404 ends an ``optional`` kind quietly."""
        for namespace in namespaces if namespaces is not None else (None,):
            token: str | None = None
            while True:
                options: dict[str, Any] = {"label_selector": selector}
                options["limit"] = self.limits.page_size
                if token:
                    options["_continue"] = token
                what = f"list {kind.plural}.{kind.api_version} in {namespace or 'all namespaces'}"
                try:
                    page = self._caller.call(
                        what, self._operation(kind, "list", namespace, **options)
                    )
                except NotFound as error:
                    if optional:
                        return
                    raise ApiError(str(error), status=error.status) from error
                yield from (as_object(item) for item in as_list(page.get("items")))
                next_token = get_path(page, ("metadata", "continue"))
                if not isinstance(next_token, str) or not next_token:
                    break
                token = next_token

    def _read(self, kind: Kind, namespace: str, name: str) -> JsonObject | None:
        request = self._operation(kind, "read", namespace, name=name)
        try:
            obj = self._caller.call(f"get {kind.kind} {namespace}/{name}", request)
        except NotFound:
            return None
        return obj if is_managed(obj) else None

    def _write(self, what: str, request: Callable[[float], Answer]) -> bool:
        try:
            self._caller.call(what, request)
        except NotFound:
            return False
        return True

    def _operation(
        self, kind: Kind, verb: str, namespace: str | None, name: str | None = None, **options: Any
    ) -> Callable[[float], Answer]:
        """The client call for ``verb`` (list, read, patch, delete) on ``kind``, raw.

        Core kinds map onto CoreV1Api's ``{verb}_namespaced_{stem}`` and
        ``list_{stem}_for_all_namespaces``; grouped kinds onto the custom-object calls.
        """
        if kind.core is not None:
            scoped = f"namespaced_{kind.core}" if namespace else f"{kind.core}_for_all_namespaces"
            method = getattr(self._core, f"{verb}_{scoped}")
            args: list[str] = [a for a in (name, namespace) if a is not None]
        else:
            group, version = kind.api_version.split("/")
            custom_verb = "get" if verb == "read" else verb
            scope = "namespaced" if namespace else "cluster"
            method = getattr(self._custom, f"{custom_verb}_{scope}_custom_object")
            args = [group, version, *([namespace] if namespace else []), kind.plural]
            args += [name] if name is not None else []

        return self._raw(method, *args, **options)

    def _raw(self, method: Any, *args: str, **options: Any) -> Callable[[float], Answer]:
        return raw_attempt(method, *args, **options)


def raw_attempt(method: Any, *args: str, **options: Any) -> Callable[[float], Answer]:
    """One attempt of the client call ``method``, its answer read raw, exceptions made answers.

    Newer clients raise ``ApiException`` for an error status even with
    ``_preload_content=False``; older ones return the answer: both become an Answer.
    Shared with the other cluster adapters (``trainc cluster pull``).
    """
    import urllib3  # noqa: PLC0415 - see connect()
    from kubernetes import client  # noqa: PLC0415 - see connect()

    def attempt(timeout: float) -> Answer:
        # A (connect, read) pair: older clients ignore a single float.
        limit = (timeout, timeout)
        try:
            raw = method(*args, _preload_content=False, _request_timeout=limit, **options)
        except client.ApiException as error:
            status = getattr(error, "status", None)
            reason = str(getattr(error, "reason", "") or "")
            return Answer(status if status else None, reason, getattr(error, "body", None))
        except (urllib3.exceptions.HTTPError, OSError) as error:
            return Answer(None, f"{type(error).__name__}: {error}")
        return Answer(raw.status, str(raw.reason or ""), raw.data)

    return attempt


def _parsed(parse: Callable[[JsonObject, str, str], _T], obj: JsonObject, kind: Kind) -> _T:
    """``parse`` applied to ``obj``; a malformed object is an :class:`ApiError` of the pass."""
    try:
        return parse(obj, kind.api_version, kind.kind)
    except MalformedObject as error:
        name = get_path(obj, ("metadata", "name"))
        raise ApiError(f"malformed {kind.kind} {name!r} from the API server: {error}") from error
