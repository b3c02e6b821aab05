"""Liveness, readiness and startup probes (``validateProbe`` and its three callers).

A probe needs one action and non-negative timings; liveness and startup probes must
succeed once to count (``successThreshold`` 1), and a readiness probe cannot carry its
own ``terminationGracePeriodSeconds``. Timings are judged after ``SetDefaults_Probe``: an
unset (or 0) timeout becomes 1, period 10, success threshold 1, failure threshold 3.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import FieldError, invalid
from trainc.checks.workload.handlers import PROBE_ACTIONS, check_handler
from trainc.checks.workload.jsonfields import integer
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue

POD_PROBE = Rule(
    "pod.probe",
    Severity.ERROR,
    "a probe has no handler or two, or invalid settings",
    doc=RuleDoc(
        what=(
            "a probe with no handler or two, ports, schemes, header names, negative timings, "
            "`successThreshold` other than 1 for liveness and startup"
        ),
        source="`validateProbe`, `validateHandler`",
        versions="all",
    ),
)


PROBE = POD_PROBE.code

#: Fields ``SetDefaults_Probe`` fills in when 0, with their defaults.
_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
#: Fields that must not be negative, in upstream's order.
_NON_NEGATIVE = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
)


def check_probes(container: JsonObject, path: FieldPath) -> list[FieldError]:
    """A container's liveness, readiness and startup probes; ``path`` is the container's."""
    errors: list[FieldError] = []
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(kind)
        if isinstance(probe, dict):
            errors += _probe_errors(kind, probe, (*path, kind))
    return errors


def _probe_errors(kind: str, probe: JsonObject, path: FieldPath) -> list[FieldError]:
    errors = check_handler(probe, path, PROBE, kinds=PROBE_ACTIONS)
    for field in _NON_NEGATIVE:
        value = _timing(probe, field)
        if value is not None and value < 0:
            detail = "must be greater than or equal to 0"
            errors.append(invalid((*path, field), PROBE, value, detail))
    grace = probe.get("terminationGracePeriodSeconds")
    seconds = None if grace is None else integer(grace)
    if seconds is not None and seconds <= 0:
        errors.append(
            invalid(
                (*path, "terminationGracePeriodSeconds"), PROBE, seconds, "must be greater than 0"
            )
        )
    if kind == "readinessProbe":
        if seconds is not None:
            detail = "must not be set for readinessProbes"
            errors.append(invalid((*path, "terminationGracePeriodSeconds"), PROBE, seconds, detail))
    elif (threshold := _timing(probe, "successThreshold")) is not None and threshold != 1:
        errors.append(invalid((*path, "successThreshold"), PROBE, threshold, "must be 1"))
    return errors


def _timing(probe: JsonObject, field: str) -> int | None:
    """A timing field after defaulting; None when it is not an integer."""
    value: JsonValue = probe.get(field)
    number = integer(value)
    if number == 0:
        return _DEFAULTS.get(field, 0)
    return number
