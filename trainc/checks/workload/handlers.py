"""The actions probes and lifecycle hooks run (``validateHandler`` and its actions).

A probe or hook names exactly one action: ``exec`` a command, ``httpGet`` or
``tcpSocket`` a port, ``grpc`` (probes) or ``sleep`` (hooks). Upstream checks the kinds in
a fixed order, counts the first and forbids the rest, and requires one. The ports are
judged after ``SetDefaults_HTTPGetAction`` (path ``/``, scheme ``HTTP``); a port written as
a string is a port name, so ``"8080"`` in quotes is refused for having no letter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trainc.checks.workload.fielderrors import (
    FieldError,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.checks.workload.predicates import (
    http_header_name_errors,
    port_name_errors,
    port_number_errors,
)
from trainc.model.json import FieldPath, JsonObject, JsonValue

#: Upstream's order of action kinds; a probe has no ``sleep``, a hook no ``grpc``.
PROBE_ACTIONS = ("exec", "httpGet", "tcpSocket", "grpc")
HOOK_ACTIONS = ("exec", "httpGet", "tcpSocket", "sleep")

_SCHEMES = ("HTTP", "HTTPS")

#: Checks the ``sleep`` action's seconds (the caller knows the grace period and version).
SleepCheck = Callable[[int, FieldPath], list[FieldError]]


def check_handler(
    handler: JsonObject,
    path: FieldPath,
    code: str,
    *,
    kinds: Sequence[str],
    sleep: SleepCheck | None = None,
) -> list[FieldError]:
    """One probe's or hook's action; ``path`` is the probe's or hook's, ``kinds`` the actions
    it may name, in upstream's order, ``sleep`` the check of a sleep action's seconds."""
    errors: list[FieldError] = []
    chosen = False
    for kind in kinds:
        action = handler.get(kind)
        if not isinstance(action, dict):
            continue
        if chosen:
            errors.append(
                forbidden((*path, kind), code, "may not specify more than 1 handler type")
            )
            continue
        chosen = True
        errors += _action_errors(kind, action, (*path, kind), code, sleep)
    if not chosen:
        errors.append(required(path, code, "must specify a handler type"))
    return errors


def _action_errors(
    kind: str, action: JsonObject, path: FieldPath, code: str, sleep: SleepCheck | None
) -> list[FieldError]:
    if kind == "exec":
        command = action.get("command")
        return [] if command else [required((*path, "command"), code)]
    if kind == "httpGet":
        return _http_get_errors(action, path, code)
    if kind == "sleep":
        seconds = integer(action.get("seconds"))
        return [] if sleep is None or seconds is None else sleep(seconds, path)
    return _port_errors(action.get("port"), (*path, "port"), code)


def _http_get_errors(action: JsonObject, path: FieldPath, code: str) -> list[FieldError]:
    errors = _port_errors(action.get("port"), (*path, "port"), code)
    scheme = text(action.get("scheme"))
    if scheme and scheme not in _SCHEMES:
        errors.append(not_supported((*path, "scheme"), code, scheme, _SCHEMES))
    for _, header in objects(action.get("httpHeaders")):
        name = text(header.get("name"))
        if name is not None:
            errors += [
                invalid((*path, "httpHeaders"), code, name, e)
                for e in http_header_name_errors(name)
            ]
    return errors


def _port_errors(port: JsonValue, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidatePortNumOrName``: a number is a port, a string a port name; absent is 0."""
    if isinstance(port, str):
        return [invalid(path, code, port, e) for e in port_name_errors(port)]
    number = integer(port)
    if number is None:
        return []
    return [invalid(path, code, number, e) for e in port_number_errors(number)]
