"""Container ports and host-port conflicts, as ``validateContainerPorts`` and
``AccumulateUniqueHostPorts`` judge them.

A port with an unusable number or name, or two containers claiming the same host port,
makes the API server refuse the pod; on a training job that surfaces as a Job whose pods
never appear.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.checks.workload.predicates import port_name_errors, port_number_errors
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue

POD_PORTS = Rule(
    "pod.ports",
    Severity.ERROR,
    "a container port's number, name or protocol is invalid or repeated",
    doc=RuleDoc(
        what=(
            "port numbers, names (IANA service names, at most 15 characters), protocols; "
            "duplicate port names; host port collisions"
        ),
        source="`validateContainerPorts`, `AccumulateUniqueHostPorts`",
        versions="all",
    ),
)


PORTS = POD_PORTS.code

#: ``supportedPortProtocols``, sorted as ``sets.List`` prints them.
_PROTOCOLS = ("SCTP", "TCP", "UDP")


def check_ports(ports: JsonValue, path: FieldPath) -> list[FieldError]:
    """One container's ``ports`` (``validateContainerPorts``); ``path`` is the list's."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, port in objects(ports):
        at = (*path, index)
        name = text(port.get("name"))
        if name:
            if name_errors := port_name_errors(name):
                errors += [invalid((*at, "name"), PORTS, name, e) for e in name_errors]
            elif name in names:
                errors.append(duplicate((*at, "name"), PORTS, name))
            else:
                names.add(name)
        errors += _number_errors(port, at)
        protocol = text(port.get("protocol")) or "TCP"  # defaulted before validation
        if protocol not in _PROTOCOLS:
            errors.append(not_supported((*at, "protocol"), PORTS, protocol, _PROTOCOLS))
    return errors


def _number_errors(port: JsonObject, at: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    container_port = integer(port.get("containerPort"))
    if container_port == 0:
        errors.append(required((*at, "containerPort"), PORTS))
    elif container_port is not None:
        errors += [
            invalid((*at, "containerPort"), PORTS, container_port, e)
            for e in port_number_errors(container_port)
        ]
    host_port = integer(port.get("hostPort"))
    if host_port:
        errors += [
            invalid((*at, "hostPort"), PORTS, host_port, e) for e in port_number_errors(host_port)
        ]
    return errors


def check_host_port_conflicts(
    containers: Sequence[JsonValue], path: FieldPath, *, host_network: bool = False
) -> list[FieldError]:
    """Host ports claimed twice among ``containers`` (``checkHostPortConflicts``).

    ``path`` is the containers' list; each container is numbered by its position in
    ``containers``. With ``host_network``, a port without ``hostPort`` claims its
    ``containerPort``, as ``SetDefaults_Pod`` fills it in on a Pod (not on a template).
    """
    errors: list[FieldError] = []
    claimed: set[str] = set()
    for index, container in objects(list(containers)):
        for port_index, port in objects(container.get("ports")):
            host_port = integer(port.get("hostPort"))
            if not host_port and host_network:
                host_port = integer(port.get("containerPort"))
            if not host_port:
                continue
            protocol = text(port.get("protocol")) or "TCP"
            key = f"{protocol}/{text(port.get('hostIP')) or ''}/{host_port}"
            if key in claimed:
                at = (*path, index, "ports", port_index, "hostPort")
                errors.append(duplicate(at, PORTS, key))
            claimed.add(key)
    return errors
