"""What the container rules need to know about the pod around them, after defaulting.

Several container rules read pod-level facts: a ``sleep`` hook must fit in the pod's grace
period, a resize policy depends on the pod's restart policy, ``procMount: Unmasked`` on
whether the pod runs in a user namespace, a volume mount on the pod's volumes. The API
server reads them after ``SetDefaults_PodSpec`` and after the registry strategy dropped
the fields whose feature gate is off, so :func:`context_of` does the same once per pod
spec. The small typed readers below read JSON the way Go's decoder fills a struct: an
absent or ``null`` field is the zero value, a value of the wrong type (which the schema
layer reports) makes the rule that reads it stand down.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from trainc.model.json import JsonObject, JsonValue, as_list
from trainc.validate.workload.version import Gate, KubeVersion

#: Image volumes; off by default until 1.35, the API server drops them and their mounts.
IMAGE_VOLUME = Gate("ImageVolume", (1, 35))
#: ``hostUsers: false``; before 1.33 the field is dropped and every pod shares the host's
#: user namespace.
USER_NAMESPACES = Gate("UserNamespacesSupport", (1, 33))

#: ``DefaultTerminationGracePeriodSeconds``, which ``SetDefaults_PodSpec`` fills in.
DEFAULT_GRACE_PERIOD = 30


@dataclass(frozen=True, slots=True)
class ContainerContext:
    """The pod-level facts the container rules read, as the API server sees them."""

    version: KubeVersion
    #: Volumes a mount or device may name: the valid ones, less image volumes while the
    #: ImageVolume gate is off (the API server drops those before validating).
    volumes: Mapping[str, JsonObject]
    #: Every volume of the pod by name, valid or not (``validateFileKeyRefVolumes``
    #: looks at all of them).
    declared_volumes: Mapping[str, JsonObject]
    #: Volumes the API server drops with their mounts (image volumes, gate off).
    dropped_volumes: frozenset[str]
    #: ``terminationGracePeriodSeconds`` after defaulting; None when it is not a number.
    grace_period: int | None
    #: Whether the pod's ``restartPolicy`` is ``Never`` (absent, the JobSet webhook
    #: defaults it to ``OnFailure``).
    restart_never: bool
    #: Whether the pod shares the host's user namespace (``hostUsers`` defaults to true).
    host_users: bool
    #: ``hostNetwork``: a Pod's container ports then default their ``hostPort``.
    host_network: bool


def context_of(
    pod_spec: JsonObject, version: KubeVersion, volumes: Mapping[str, JsonObject]
) -> ContainerContext:
    """The context of ``pod_spec``'s containers; ``volumes`` are the valid volumes by name."""
    declared = {
        name: volume
        for _, volume in objects(pod_spec.get("volumes"))
        if isinstance(name := volume.get("name"), str)
    }
    dropped = frozenset(
        name
        for name, volume in declared.items()
        if volume.get("image") is not None and not IMAGE_VOLUME.enabled(version)
    )
    grace = pod_spec.get("terminationGracePeriodSeconds")
    return ContainerContext(
        version=version,
        volumes={name: volume for name, volume in volumes.items() if name not in dropped},
        declared_volumes=declared,
        dropped_volumes=dropped,
        grace_period=DEFAULT_GRACE_PERIOD if grace is None else integer(grace),
        restart_never=pod_spec.get("restartPolicy") == "Never",
        host_users=not USER_NAMESPACES.enabled(version) or pod_spec.get("hostUsers") is not False,
        host_network=pod_spec.get("hostNetwork") is True,
    )


def objects(value: JsonValue) -> Iterator[tuple[int, JsonObject]]:
    """The mappings of a list with their indexes; other items are the schema layer's."""
    for index, item in enumerate(as_list(value)):
        if isinstance(item, dict):
            yield index, item


def text(value: JsonValue) -> str | None:
    """A string field as Go reads it: absent or null is ``""``; None for a non-string."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def integer(value: JsonValue) -> int | None:
    """An integer field as Go reads it: absent or null is 0; None for a non-integer."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def present(obj: JsonObject, key: str) -> bool:
    """Whether a pointer or struct field is set: Go leaves it nil when absent or null."""
    return obj.get(key) is not None
