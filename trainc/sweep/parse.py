"""API objects, as JSON the API server returned, turned into the sweeper's records.

Kept apart from :mod:`trainc.sweep.client` so the records' meaning (which time is which,
what counts as finished or retained) is readable without the transport. Built-in list
responses omit ``apiVersion``/``kind`` on their items, so the caller says what it listed.
Timestamps become aware UTC datetimes (``docs/design.md``, "Determinism").
"""

from __future__ import annotations

from datetime import UTC, datetime

from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.model.labels import (
    ARGOCD_NO_PRUNE,
    ARGOCD_SYNC_OPTIONS_ANNOTATION,
    FLUX_PRUNE_ANNOTATION,
    FLUX_PRUNE_DISABLED,
    JOBSET_NAME_LABEL,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    TRAINJOB_NAME_LABEL,
)
from trainc.sweep.model import ChildJobState, CompanionState, Condition, JobSetState, ObjectRef

#: Job conditions that make a Job terminal (as the TTL-after-finished controller reads them).
_JOB_TERMINAL = ("Complete", "Failed")


class MalformedObject(ValueError):  # noqa: N818 - a ValueError about one object
    """An object lacks a field every API server sets (name, uid, a parseable time)."""


def object_ref(obj: JsonObject, api_version: str, kind: str) -> ObjectRef:
    """Identity of ``obj`` with the uid and resourceVersion its preconditions need."""
    return ObjectRef(
        api_version=api_version,
        kind=kind,
        namespace=_text(obj, "metadata", "namespace"),
        name=_required(obj, "metadata", "name"),
        uid=_required(obj, "metadata", "uid"),
        resource_version=_required(obj, "metadata", "resourceVersion"),
    )


def is_managed(obj: JsonObject) -> bool:
    """Carries ``app.kubernetes.io/managed-by: trainc``; nothing else is ever considered."""
    return get_path(obj, ("metadata", "labels", MANAGED_BY_LABEL)) == MANAGED_BY_TRAINC


def parse_jobset(obj: JsonObject, api_version: str, kind: str) -> JobSetState:
    """A JobSet with the times and flags the sweeper's windows read (:mod:`.times`)."""
    return JobSetState(
        ref=object_ref(obj, api_version, kind),
        created=_created(obj),
        annotations=_strings(get_path(obj, ("metadata", "annotations"))),
        suspended=get_path(obj, ("spec", "suspend")) is True,
        conditions=_conditions(obj),
        deleting=get_path(obj, ("metadata", "deletionTimestamp")) is not None,
    )


def parse_job(obj: JsonObject, api_version: str, kind: str) -> ChildJobState | None:
    """A child Job, or None for a Job the JobSet controller did not label as its own.

    ``finished`` is a ``Complete`` or ``Failed`` condition that is ``True`` (the TTL
    controller's rule); the counters and ``startTime`` come from the Job's status.
    """
    jobset = get_path(obj, ("metadata", "labels", JOBSET_NAME_LABEL))
    if not isinstance(jobset, str):
        return None
    deadline = get_path(obj, ("spec", "activeDeadlineSeconds"))
    return ChildJobState(
        ref=object_ref(obj, api_version, kind),
        jobset=jobset,
        start_time=_time(get_path(obj, ("status", "startTime"))),
        active_deadline=deadline if isinstance(deadline, int) else None,
        suspended=get_path(obj, ("spec", "suspend")) is True,
        finished=any(c.type in _JOB_TERMINAL and c.status == "True" for c in _conditions(obj)),
        ready=_count(obj, "ready"),
        succeeded=_count(obj, "succeeded"),
        failed=_count(obj, "failed"),
        active=_count(obj, "active"),
    )


def parse_companion(obj: JsonObject, api_version: str, kind: str) -> CompanionState | None:
    """A PodGroup, PVC or ConfigMap of a TrainJob, or None without the TrainJob label.

    ``retained`` marks claims GitOps must not prune (Argo CD ``Prune=false``, Flux
    ``prune: disabled``: ``Retain`` claims, which must outlive their job).
    """
    trainjob = get_path(obj, ("metadata", "labels", TRAINJOB_NAME_LABEL))
    if not isinstance(trainjob, str):
        return None
    annotations = _strings(get_path(obj, ("metadata", "annotations")))
    sync_options = annotations.get(ARGOCD_SYNC_OPTIONS_ANNOTATION, "")
    retained = ARGOCD_NO_PRUNE in (o.strip() for o in sync_options.split(",")) or (
        annotations.get(FLUX_PRUNE_ANNOTATION) == FLUX_PRUNE_DISABLED
    )
    return CompanionState(
        ref=object_ref(obj, api_version, kind),
        trainjob=trainjob,
        created=_created(obj),
        retained=retained,
    )


def parse_time(value: JsonValue) -> datetime:
    """An RFC 3339 timestamp as an aware datetime (UTC when the text has no offset)."""
    if not isinstance(value, str):
        raise MalformedObject(f"not a timestamp: {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise MalformedObject(f"not a timestamp: {value!r}") from error
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _time(value: JsonValue) -> datetime | None:
    return None if value is None else parse_time(value)


def _created(obj: JsonObject) -> datetime:
    return parse_time(get_path(obj, ("metadata", "creationTimestamp")))


def _conditions(obj: JsonObject) -> tuple[Condition, ...]:
    conditions = []
    for item in as_list(get_path(obj, ("status", "conditions"))):
        condition = as_object(item)
        kind, status = condition.get("type"), condition.get("status")
        if not isinstance(kind, str) or not isinstance(status, str):
            continue
        reason = condition.get("reason")
        conditions.append(
            Condition(
                type=kind,
                status=status,
                reason=reason if isinstance(reason, str) else None,
                last_transition=_time(condition.get("lastTransitionTime")),
            )
        )
    return tuple(conditions)


def _count(obj: JsonObject, name: str) -> int:
    value = get_path(obj, ("status", name))
    return value if isinstance(value, int) else 0


def _strings(value: JsonValue) -> dict[str, str]:
    return {k: v for k, v in as_object(value).items() if isinstance(v, str)}


def _text(obj: JsonObject, *path: str) -> str:
    value = get_path(obj, path)
    return value if isinstance(value, str) else ""


def _required(obj: JsonObject, *path: str) -> str:
    value = _text(obj, *path)
    if not value:
        raise MalformedObject(f"{'.'.join(path)} is missing")
    return value
