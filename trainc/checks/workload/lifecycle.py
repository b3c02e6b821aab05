"""Lifecycle hooks and termination settings (``validateLifecycle``, ``validateSleepAction``,
the ``terminationMessagePolicy`` check of ``validateContainerCommon``).

The rule users meet is the ``sleep`` hook: a ``preStop`` sleep longer than the pod's
``terminationGracePeriodSeconds`` (30 unless set) is refused, since the kubelet would kill
the container before the sleep ends. Its wording and its lower bound moved with the
releases: the action came in with ``PodLifecycleSleepAction`` (on by default from 1.30;
before, the API server drops it), 1.32 added a hint to the message, and
``PodLifecycleSleepActionAllowZero`` (on from 1.33) accepts a zero sleep.
``lifecycle.stopSignal`` needs ``ContainerStopSignals``, alpha (off) in every release this
models, so the API server drops it and never judges it.
"""

from __future__ import annotations

from trainc.checks.workload.container_context import ContainerContext
from trainc.checks.workload.fielderrors import FieldError, invalid, not_supported
from trainc.checks.workload.handlers import HOOK_ACTIONS, SleepCheck, check_handler
from trainc.checks.workload.jsonfields import present, text
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue

POD_LIFECYCLE = Rule(
    "pod.lifecycle",
    Severity.ERROR,
    "a lifecycle hook or terminationMessagePolicy is invalid",
    doc=RuleDoc(
        what=(
            "a hook with no handler or two, a `sleep` outside the grace period, "
            "`terminationMessagePolicy`"
        ),
        source="`validateLifecycle`, `validateSleepAction`",
        versions="`sleep` from 1.30; zero sleep from 1.33",
    ),
)


LIFECYCLE = POD_LIFECYCLE.code

#: The ``sleep`` hook action; before 1.30 the API server drops it.
SLEEP_ACTION = Gate("PodLifecycleSleepAction", (1, 30))
#: A ``sleep`` of 0 seconds.
SLEEP_ZERO = Gate("PodLifecycleSleepActionAllowZero", (1, 33))
#: The release whose message (gate still alpha) names the zero-sleep gate.
_SLEEP_ZERO_HINT_SINCE: KubeVersion = (1, 32)

_HOOKS = ("postStart", "preStop")
#: ``File`` first: upstream lists them in this order, unsorted.
_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")


def effective_lifecycle(lifecycle: JsonValue, version: KubeVersion) -> JsonObject | None:
    """``lifecycle`` once the API server dropped what its gates disable; None if nothing is left.

    Without the sleep action (1.29) a hook's ``sleep`` is dropped, and the hook with it
    when it has no other action; the stop signal is always dropped. A lifecycle left with
    neither hook is dropped, so an init container is not refused for it.
    """
    if not isinstance(lifecycle, dict):
        return None
    kept = dict(lifecycle)
    if not SLEEP_ACTION.enabled(version):
        for hook in _HOOKS:
            handler = kept.get(hook)
            if isinstance(handler, dict) and present(handler, "sleep"):
                rest = {key: value for key, value in handler.items() if key != "sleep"}
                others = any(present(rest, kind) for kind in HOOK_ACTIONS)
                kept[hook] = rest if others else None
        if not any(present(kept, key) for key in (*_HOOKS, "stopSignal")):
            return None
    if present(kept, "stopSignal"):
        del kept["stopSignal"]
        if not any(present(kept, hook) for hook in _HOOKS):
            return None
    return kept


def check_lifecycle(
    lifecycle: JsonObject, path: FieldPath, ctx: ContainerContext
) -> list[FieldError]:
    """The hooks of an effective ``lifecycle``; ``path`` is the lifecycle's."""
    errors: list[FieldError] = []
    sleep = _sleep_check(ctx)
    for hook in _HOOKS:
        handler = lifecycle.get(hook)
        if isinstance(handler, dict):
            errors += check_handler(
                handler, (*path, hook), LIFECYCLE, kinds=HOOK_ACTIONS, sleep=sleep
            )
    return errors


def _sleep_check(ctx: ContainerContext) -> SleepCheck:
    """The bounds of a sleep hook's seconds in this release and pod."""

    def check(seconds: int, path: FieldPath) -> list[FieldError]:
        grace = ctx.grace_period
        if grace is None:
            return []  # upstream skips the check when the grace period is unusable
        if SLEEP_ZERO.enabled(ctx.version):
            if 0 <= seconds <= grace:
                return []
            detail = f"must be non-negative and less than terminationGracePeriodSeconds ({grace})"
        else:
            if 0 < seconds <= grace:
                return []
            detail = f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace})"
            if ctx.version >= _SLEEP_ZERO_HINT_SINCE:
                detail += (
                    ". Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
                )
        return [invalid(path, LIFECYCLE, seconds, detail)]

    return check


def check_termination_message_policy(container: JsonObject, path: FieldPath) -> list[FieldError]:
    """``terminationMessagePolicy`` (``File`` when unset); ``path`` is the container's."""
    policy = text(container.get("terminationMessagePolicy"))
    if not policy or policy in _TERMINATION_MESSAGE_POLICIES:
        return []
    at = (*path, "terminationMessagePolicy")
    return [not_supported(at, LIFECYCLE, policy, _TERMINATION_MESSAGE_POLICIES)]
