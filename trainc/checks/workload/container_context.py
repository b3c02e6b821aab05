"""What the container rules need to know about the pod around them, after defaulting.

Several container rules read pod-level facts: a ``sleep`` hook must fit in the pod's grace
period, a resize policy depends on the pod's restart policy, ``procMount: Unmasked`` on
whether the pod runs in a user namespace, a volume mount on the pod's volumes. The API
server reads them after ``SetDefaults_PodSpec`` and after the registry strategy dropped
the fields whose feature gate is off, so :func:`context_of` does the same once per pod
spec.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.checks.workload.jsonfields import integer, objects
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.checks.workload.volumes import is_dropped
from trainc.model.json import JsonObject
from trainc.records import dataclass

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
    #: Whether the pod shares the host's user namespace: ``spec.hostUsers``, true unless
    #: false. Upstream reads ``SecurityContext.HostUsers`` of its internal pod spec, which
    #: the v1 API a manifest is written in keeps on the spec, not in ``securityContext``.
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
    dropped = frozenset(name for name, volume in declared.items() if is_dropped(volume, version))
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
